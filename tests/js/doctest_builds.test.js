// The doctest suites, native and WebAssembly, seen from outside: the same seed gives bit-identical
// values in both builds and through the JS API, and a failing check makes either run exit non-zero.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { checksum, ROOT } from './helpers.js';

const NATIVE = `${ROOT}build/native/mha_tests`;
const WASM = `${ROOT}build/wasm/mha_tests.cjs`;
const native = (...args) => spawnSync(NATIVE, args, { encoding: 'utf8', timeout: 120_000 });
const wasm = (...args) => spawnSync(process.execPath, [WASM, ...args], { encoding: 'utf8', timeout: 120_000 });

// Keep equal to tests/cpp/seeded_configs.hpp.
const SEEDED = {
  classic: { B: 2, T: 4, C: 8, H: 2, seed: 0 },
  gqa_cross_causal_padding: { B: 2, T: 5, Tk: 7, C: 24, H: 6, Hkv: 2, seed: 42, mask: 'causal', keyLengths: [7, 3] },
  no_bias: { B: 1, T: 3, C: 12, H: 4, bias: false, seed: 7 },
};

let engine;
before(async () => {
  assert.ok(existsSync(NATIVE) && existsSync(WASM), 'run scripts/build.sh first');
  engine = await createEngine();
});

test('every step of a seeded run is bit-identical natively, in wasm and through the JS API', () => {
  const fromNative = native('--checksums');
  const fromWasm = wasm('--checksums');
  assert.equal(fromNative.status, 0, fromNative.stderr.slice(-2000));
  assert.equal(fromWasm.status, 0, fromWasm.stderr.slice(-2000));
  const lines = fromNative.stdout.trim().split('\n');
  assert.ok(lines.length > 50, `${lines.length} checksums`);
  assert.equal(fromWasm.stdout, fromNative.stdout);

  const fromJs = Object.entries(SEEDED).flatMap(([name, config]) =>
    engine.run(config).steps.map((step) => `${name} ${step.id} ${checksum(step.data)}`));
  assert.deepEqual(fromJs, lines);
});

test('seeded x is the documented mulberry32 stream, reimplemented here', () => {
  // seed ^ (stream · 0x9E3779B9), stream 1 = x; top 24 bits · 2^-23 − 1.
  const mulberry32 = (state) => () => {
    state = (state + 0x6D2B79F5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1) >>> 0;
    z = (z ^ (z + Math.imul(z ^ (z >>> 7), z | 61))) >>> 0;
    return (z ^ (z >>> 14)) >>> 0;
  };
  for (const seed of [0, 1, 42, 4294967295]) {
    const next = mulberry32((seed ^ Math.imul(1, 0x9E3779B9)) >>> 0);
    const expected = Float32Array.from({ length: 2 * 3 * 4 }, () => (next() >>> 8) / 8388608 - 1);
    assert.deepEqual(engine.run({ B: 2, T: 3, C: 4, H: 2, seed }).step('x').data, expected, `seed ${seed}`);
  }
});

test('a failing doctest check makes both runs exit non-zero', () => {
  for (const [build, run] of [['native', native], ['wasm', wasm]]) {
    const failing = run('--fail-on-purpose');
    assert.notEqual(failing.status, 0, `${build}: ${failing.stdout.slice(-2000)}`);
    assert.match(failing.stdout, /1 failed/, `${build}: ${failing.stderr.slice(-2000)}`);
  }
});
