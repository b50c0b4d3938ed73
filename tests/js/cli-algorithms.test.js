// The CLI's tiled and incremental walks, as a user runs them: `mha-lens walk ...
// --algorithm tiled|incremental` in a child process.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';

import { ROOT, stepTitlePattern } from './helpers.js';

const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { encoding: 'utf8', timeout: 30_000 });

test('--algorithm tiled prints the tiled steps, the tile counts and the grid with the skipped tiles', async () => {
  const { status, stdout, stderr } = cli('walk', '--B', '1', '--T', '5', '--C', '8', '--H', '2', '--mask', 'causal', '--algorithm', 'tiled');
  assert.equal(status, 0, stderr);
  assert.match(stdout, /· causal mask · bias · tiled$/m);
  assert.match(stdout, new RegExp(String.raw`^12 +tile_scores · ${await stepTitlePattern('tile_scores')} +\[1,2,5,4\] @ \[1,2,4,5\] in \[2,2\] tiles → \[1,2,5,5\] +\[1,2,5,5\] +B,H,Tq,Tk +yes +50$`, 'm'));
  assert.match(stdout, new RegExp(String.raw`^16 +tile_sum · ${await stepTitlePattern('tile_sum')} +\[1,2,5,5\] in \[2,2\] tiles → \[1,2,5,3\] +\[1,2,5,3\] +B,H,Tq,Nk `, 'm'));
  assert.match(stdout, /^shape chain: .* → tile_scores \[1,2,5,5\] → tile_context \[1,2,5,4\] → \[1,5,2,4\] → concat \[1,5,8\] → output \[1,5,8\]$/m);
  assert.match(stdout, /^tiles: 2×2 tiles, a 3×3 grid per head, 18 in all: 12 computed, 6 skipped$/m);
  assert.ok(stdout.includes('  ■ · ·\n  ■ ■ ·\n  ■ ■ ■\n'), stdout);
  const blocks = cli('walk', '--B', '1', '--T', '6', '--C', '8', '--H', '2', '--algorithm', 'tiled', '--block-q', '4', '--block-k', '3');
  assert.equal(blocks.status, 0, blocks.stderr);
  assert.match(blocks.stdout, /^tiles: 4×3 tiles, a 2×2 grid per head, 8 in all: 8 computed, 0 skipped$/m);
});

test('--algorithm incremental prints the decoding steps and the cache measured at every t, in Chinese too', async () => {
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '4', '--C', '8', '--H', '2', '--Hkv', '1', '--mask', 'causal', '--algorithm', 'incremental');
  assert.equal(status, 0, stderr);
  assert.match(stdout, new RegExp(String.raw`^5 +cache_k · ${await stepTitlePattern('cache_k')} +\[2,1,1,4\] per token → \[2,1,4,4\] +\[2,1,4,4\] +B,Hkv,t\+1,D +no +32$`, 'm'));
  assert.match(stdout, /^step t \(t=3\): decode_q \[2,2,1,4\] → .* → cache_k \[2,1,4,4\] → .* → decode_scores \[2,2,1,4\] → .* → decode_output \[2,1,8\]$/m);
  assert.match(stdout, /^ {2}t=0 +\[2,1,1,4\] +64 +64$/m);
  assert.match(stdout, /^ {2}t=3 +\[2,1,4,4\] +256 +256$/m);
  const zh = cli('walk', '--B', '1', '--T', '3', '--C', '8', '--H', '2', '--mask', 'causal', '--algorithm', 'incremental', '--lang', 'zh');
  assert.equal(zh.status, 0, zh.stderr);
  assert.match(zh.stdout, /增量解码/);
  assert.match(zh.stdout, new RegExp(`cache_v · ${await stepTitlePattern('cache_v', 'zh')}`));
  assert.match(zh.stdout, /每个解码步的 KV 缓存，由快照量得/);
});

test('--step with --at lays a decoding step out as it was at step t; bad algorithms exit with 2', () => {
  const { status, stdout, stderr } = cli('walk', '--B', '1', '--T', '4', '--C', '8', '--H', '2', '--mask', 'causal', '--algorithm', 'incremental',
    '--step', 'decode_weights', '--at', '2');
  assert.equal(status, 0, stderr);
  const lines = stdout.trimEnd().split('\n');
  assert.match(lines[1], /^\[1,2,1,3\] +\(B, H, t, t\+1\)/);
  assert.equal(lines.length, 2 + 2 * 2);
  const wrong = cli('walk', '--B', '1', '--T', '4', '--C', '8', '--H', '2', '--algorithm', 'incremental');
  assert.equal(wrong.status, 2);
  assert.match(wrong.stderr, /^error: algorithm "incremental" decodes one token at a time/);
  const bad = cli('walk', '--B', '1', '--T', '4', '--C', '8', '--H', '2', '--algorithm', 'flash', '--lang', 'zh');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /^错误: algorithm 必须是 "naive"、"tiled" 或 "incremental"，而不是字符串 "flash"。$/m);
  const outOfRange = cli('walk', '--B', '1', '--T', '4', '--C', '8', '--H', '2', '--mask', 'causal', '--algorithm', 'incremental', '--step', 'cache_k', '--at', '9');
  assert.equal(outOfRange.status, 2);
  assert.match(outOfRange.stderr, /t=9 is not a whole number from 0 to 3\./);
});
