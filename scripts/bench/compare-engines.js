#!/usr/bin/env node
// node scripts/bench/compare-engines.js <other checkout> [rounds]
//
// This checkout's engine side by side with another checkout's (built: its web/dist/ holds the
// .wasm), in one Node process, on the same inputs: compute only (snapshots: false, explicit x and
// weights, as `npm run bench` times it) and with every snapshot, at the toy size, T=128 and T=512.
// Rounds interleave the two engines in alternating order; we report the median of each and the
// ratio of the medians (this ÷ other). Used to check that a change kept the speed it should.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

import { createEngine } from '../../web/src/engine/engine.js';
import { noise } from './noise.js';

const [otherRoot, roundsArg] = process.argv.slice(2);
if (!otherRoot) {
  console.error('usage: node scripts/bench/compare-engines.js <other checkout> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 15);
const otherApi = ['web/src/engine/engine.js', 'web/src/engine.js'].map((file) => path.resolve(otherRoot, file)).find((file) => fs.existsSync(file));
const { createEngine: createOther } = await import(pathToFileURL(otherApi).href);

function explicit({ B, T, C }) {
  const bound = 1 / Math.sqrt(C);
  const weights = {};
  ['Wq', 'Wk', 'Wv', 'Wo'].forEach((name, i) => (weights[name] = noise(C * C, 10 + i, bound)));
  ['bq', 'bk', 'bv', 'bo'].forEach((name, i) => (weights[name] = noise(C, 20 + i, bound)));
  return { x: noise(B * T * C, 1, 1), weights };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

const engines = { this: await createEngine(), other: await createOther() };
const cases = [
  { name: 'toy B=2 T=4 C=8 H=2, seeded, every snapshot', size: { B: 2, T: 4, C: 8, H: 2 }, snapshots: true, seeded: true, repeat: 200 },
  { name: 'B=1 T=128 C=768 H=12, compute only', size: { B: 1, T: 128, C: 768, H: 12 }, snapshots: false, repeat: 3 },
  { name: 'B=1 T=128 C=768 H=12, every snapshot', size: { B: 1, T: 128, C: 768, H: 12 }, snapshots: true, repeat: 3 },
  { name: 'B=1 T=512 C=768 H=12, compute only', size: { B: 1, T: 512, C: 768, H: 12 }, snapshots: false, repeat: 1 },
  { name: 'B=1 T=512 C=768 H=12, every snapshot', size: { B: 1, T: 512, C: 768, H: 12 }, snapshots: true, repeat: 1 },
];

console.log(`this: ${process.cwd()}  other: ${path.resolve(otherRoot)}  rounds: ${rounds}`);
for (const { name, size, snapshots, seeded, repeat } of cases) {
  const config = { ...size, snapshots, memoryCap: 2 ** 30, ...(seeded ? {} : explicit(size)) };
  const times = { this: [], other: [] };
  const outputs = {};
  for (const key of Object.keys(engines)) outputs[key] = engines[key].run(config).output;  // warm-up, and the check
  for (let i = 0; i < outputs.this.length; ++i) {
    if (Math.abs(outputs.this[i] - outputs.other[i]) > 1e-5) throw new Error(`${name}: outputs differ at ${i}`);
  }
  for (let round = 0; round < rounds; ++round) {
    for (const key of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const started = performance.now();
      for (let r = 0; r < repeat; ++r) engines[key].run(config);
      times[key].push((performance.now() - started) / repeat);
    }
  }
  const [ours, theirs] = [median(times.this), median(times.other)];
  const unit = Math.min(ours, theirs) < 1 ? [1000, "µs"] : [1, "ms"];
  console.log(`${name.padEnd(46)} this ${(ours * unit[0]).toFixed(1)} ${unit[1]}, other ${(theirs * unit[0]).toFixed(1)} ${unit[1]}: ${(ours / theirs).toFixed(2)}×`);
}
