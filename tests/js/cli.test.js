// The CLI as a user runs it: `mha-lens walk ...` in a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { ROOT } from './helpers.js';

const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { encoding: 'utf8', timeout: 30_000 });

test('walk prints the seed example chain and a row per step', () => {
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(status, 0, stderr);
  assert.ok(stdout.includes('[2,4,8] → [2,4,8] → [2,4,2,4] → [2,2,4,4] → scores [2,2,4,4] → weights [2,2,4,4] → context [2,2,4,4] → [2,4,2,4] → concat [2,4,8] → output [2,4,8]'), stdout);
  assert.match(stdout, /^2 +q · Query projection +\[2,4,8\] @ \[8,8\] \+ \[8\] → \[2,4,8\] +\[2,4,8\] +B,T,H·D +yes +64$/m);
  assert.match(stdout, /^8 +q_heads · Heads first: Q +\[2,4,2,4\] → \[2,2,4,4\] +\[2,2,4,4\] +B,H,T,D +no +64$/m);
  assert.match(stdout, /^parameters: 288 /m);
});

test('every config field has an option', () => {
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '3', '--Tk', '5', '--C', '12', '--H', '6', '--Hkv', '2',
    '--mask', 'causal', '--key-lengths', '5,2', '--seed', '11', '--no-bias');
  assert.equal(status, 0, stderr);
  assert.match(stdout, /B=2 T=3 Tk=5 C=12 H=6 Hkv=2 \(D=2\) · cross-attention · causal mask \+ padding mask \[5,2\] · no bias/);
  assert.match(stdout, /k_shared · Share K heads across query heads \(GQA\) +\[2,2,5,2\] → \[2,6,5,2\]/);
});

test('a bad config prints the engine message and exits with 2', () => {
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '4', '--C', '10', '--H', '4');
  assert.equal(status, 2);
  assert.equal(stdout, '');
  assert.equal(stderr, 'error: C=10 is not divisible by H=4: every head needs D = C/H features. Choose H from the divisors of C=10: 1, 2, 5, 10.\n');
  const typed = cli('walk', '--B', 'two', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(typed.status, 2);
  assert.match(typed.stderr, /B must be a whole number ≥ 1, not the string "two"/);
  const usage = cli('walk', '--B', '2', '--frobnicate');
  assert.equal(usage.status, 2);
  assert.match(usage.stderr, /Unknown option '--frobnicate'[\s\S]*Usage: mha-lens walk/);
});

test('--json prints the whole trace, masked scores as null', () => {
  const { status, stdout } = cli('walk', '--B', '1', '--T', '3', '--C', '4', '--H', '2', '--mask', 'causal', '--json');
  assert.equal(status, 0);
  const trace = JSON.parse(stdout);
  assert.equal(trace.summary.T, 3);
  const masked = trace.steps.find((s) => s.id === 'masked');
  assert.deepEqual(masked.shape, [1, 2, 3, 3]);
  assert.equal(masked.data.length, 18);
  assert.equal(masked.data[1], null);  // query 0 may not see key 1
  assert.equal(typeof masked.data[0], 'number');
});

test('--step lays the tensor out by its axes', () => {
  const { status, stdout } = cli('walk', '--B', '1', '--T', '2', '--C', '4', '--H', '2', '--mask', 'causal', '--step', 'weights');
  assert.equal(status, 0);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[0], /^weights · Softmax over keys/);
  assert.match(lines[1], /^\[1,2,2,2\] +\(B, H, Tq, Tk\)/);
  assert.equal(lines[2], 'B=0 H=0  (Tq × Tk)');
  assert.match(lines[3], /^ +Tq=0 +1\.0000 +0\.0000$/);
  assert.equal(lines.length, 2 + 2 * 3);
  const unknown = cli('walk', '--B', '1', '--T', '2', '--C', '4', '--H', '2', '--step', 'attention');
  assert.equal(unknown.status, 2);
  assert.match(unknown.stderr, /There is no step "attention" in this run\. Its steps are: x, q, /);
});

test('--lang zh speaks Chinese', () => {
  const { status, stdout } = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2', '--lang', 'zh');
  assert.equal(status, 0);
  assert.match(stdout, /自注意力/);
  assert.match(stdout, /q · 查询投影/);
  assert.match(stdout, /^形状链: /m);
  const bad = cli('walk', '--B', '2', '--T', '4', '--C', '10', '--H', '4', '--lang', 'zh');
  assert.equal(bad.status, 2);
  assert.equal(bad.stderr, '错误: C=10 不能被 H=4 整除：每个头需要 D = C/H 个特征。请从 C=10 的约数中选 H：1, 2, 5, 10。\n');
});
