// The CLI as a user runs it: `mha-lens walk ...` in a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';

import { ROOT, stepTitlePattern } from './helpers.js';

const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { encoding: 'utf8', timeout: 30_000 });

test('walk prints the seed example chain and a row per step', async () => {
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(status, 0, stderr);
  assert.ok(stdout.includes('[2,4,8] → [2,4,8] → [2,4,2,4] → [2,2,4,4] → scores [2,2,4,4] → weights [2,2,4,4] → context [2,2,4,4] → [2,4,2,4] → concat [2,4,8] → output [2,4,8]'), stdout);
  assert.match(stdout, new RegExp(String.raw`^2 +q · ${await stepTitlePattern('q')} +\[2,4,8\] @ \[8,8\] \+ \[8\] → \[2,4,8\] +\[2,4,8\] +B,T,H·D +yes +64$`, 'm'));
  assert.match(stdout, new RegExp(String.raw`^8 +q_heads · ${await stepTitlePattern('q_heads')} +\[2,4,2,4\] → \[2,2,4,4\] +\[2,2,4,4\] +B,H,T,D +no +64$`, 'm'));
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
  assert.match(usage.stderr, /^Unknown option --frobnicate\. The options are: --B --T --Tk --C --H --Hkv --mask .*--version\.\n\nUsage: mha-lens walk/);
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

test('--step lays the tensor out by its axes', async () => {
  const { status, stdout } = cli('walk', '--B', '1', '--T', '2', '--C', '4', '--H', '2', '--mask', 'causal', '--step', 'weights');
  assert.equal(status, 0);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[0], new RegExp(`^weights · ${await stepTitlePattern('weights')}`));
  assert.match(lines[1], /^\[1,2,2,2\] +\(B, H, Tq, Tk\)/);
  assert.equal(lines[2], 'b=0 h=0  (Tq × Tk)', 'indices in lower case, the axes they index in their names');
  assert.match(lines[3], /^ +tq=0 +1\.0000 +0\.0000$/);
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
  assert.equal(bad.stderr, '错误: C=10 不能被 H=4 整除：每个头需要 D = C/H 个特征。请从 C=10 的约数中选 H：1、2、5、10。\n');
});

test('a negative value gets the engine\'s own range message, not a parser\'s', () => {
  const batch = cli('walk', '--B', '-2', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(batch.status, 2);
  assert.equal(batch.stderr, 'error: B=-2 is not allowed: B is the batch size (sequences per batch) and must be at least 1.\n');
  const seed = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2', '--seed', '-1');
  assert.equal(seed.status, 2);
  assert.equal(seed.stderr, 'error: seed=-1 is outside 0 to 4294967295 (a 32-bit seed).\n');
  const missing = cli('walk', '--B');
  assert.equal(missing.status, 2);
  assert.match(missing.stderr, /^--B needs a value\.\n/);
});

test('lowercase sizes as the elements\' attributes are named, --version, and walk alone is the seed example', () => {
  const upper = cli('walk', '--B', '1', '--T', '3', '--Tk', '5', '--C', '12', '--H', '4', '--Hkv', '2');
  const lower = cli('walk', '--b', '1', '--t', '3', '--tk', '5', '--c', '12', '--h', '4', '--hkv', '2');
  assert.equal(lower.status, 0, lower.stderr);
  assert.equal(lower.stdout, upper.stdout);
  const version = cli('--version');
  assert.equal(version.status, 0);
  assert.equal(version.stdout, `${JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version}\n`);
  assert.equal(cli('-v').stdout, version.stdout, '-v is --version');
  const alone = cli('walk');
  const seed = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(alone.status, 0, alone.stderr);
  assert.equal(alone.stdout, seed.stdout);
  assert.equal(alone.stderr, 'No sizes given: the seed example, --B 2 --T 4 --C 8 --H 2. Give --B, --T, --C and --H for sizes of your own.\n');
});

test('--json --step prints that step, and refuses a step the run does not have', () => {
  const one = cli('walk', '--B', '1', '--T', '3', '--C', '8', '--H', '2', '--mask', 'causal', '--json', '--step', 'masked');
  assert.equal(one.status, 0, one.stderr);
  const step = JSON.parse(one.stdout);
  assert.equal(step.id, 'masked');
  assert.deepEqual(step.shape, [1, 2, 3, 3]);
  assert.equal(step.data[1], null);
  const nope = cli('walk', '--B', '1', '--T', '3', '--C', '8', '--H', '2', '--json', '--step', 'nope');
  assert.equal(nope.status, 2);
  assert.equal(nope.stdout, '');
  assert.match(nope.stderr, /^error: There is no step "nope" in this run/);
});

test('big outputs: --step of 131,072 values, a streamed --json trace, and a closed pipe ends quietly', () => {
  // Math.max(...cells) over 131,072 cells overflowed the stack.
  const big = cli('walk', '--B', '1', '--T', '256', '--C', '8', '--H', '2', '--step', 'weights');
  assert.equal(big.status, 0, big.stderr.slice(0, 500));
  assert.equal(big.stdout.trimEnd().split('\n').length, 2 + 2 * 257);
  // The trace is written piece by piece; it is still one JSON document, every value in it.
  const trace = spawnSync(process.execPath, [`${ROOT}web/cli.js`, 'walk', '--B', '1', '--T', '256', '--C', '8', '--H', '4', '--mask', 'causal', '--json'],
    { encoding: 'utf8', timeout: 60_000, maxBuffer: 1 << 28 });
  assert.equal(trace.status, 0, trace.stderr.slice(0, 500));
  const parsed = JSON.parse(trace.stdout);
  const weights = parsed.steps.find((s) => s.id === 'weights');
  assert.equal(weights.data.length, 4 * 256 * 256);
  assert.equal(parsed.steps.find((s) => s.id === 'masked').data[1], null);
  // A reader piping into head: no EPIPE stack trace, exit 0.
  const piped = spawnSync('bash', ['-o', 'pipefail', '-c', `"${process.execPath}" "${ROOT}web/cli.js" walk --B 1 --T 256 --C 8 --H 4 --json | head -c 100 > /dev/null`],
    { encoding: 'utf8', timeout: 60_000 });
  assert.equal(piped.stderr, '');
  assert.equal(piped.status, 0);
});
