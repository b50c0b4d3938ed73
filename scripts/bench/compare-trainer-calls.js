#!/usr/bin/env node
// node scripts/bench/compare-trainer-calls.js <other checkout> [rounds]
//
// What one trainer call costs beyond its arithmetic, this checkout beside another (built: its
// web/dist/ holds mha_trainer.wasm), in one Node process: train(1) at the induction task's
// defaults and on a model whose checkpoint is about 1 MB, and train(20) for scale. Rounds
// interleave the two in alternating order; medians and the ratio of medians (this ÷ other).
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { performance } from 'node:perf_hooks';

import { createEngine } from '../../web/src/engine/node.js';

const [otherRoot, roundsArg] = process.argv.slice(2);
if (!otherRoot) {
  console.error('usage: node scripts/bench/compare-trainer-calls.js <other checkout> [rounds]');
  process.exit(2);
}
const rounds = Number(roundsArg ?? 15);
const otherApi = path.resolve(otherRoot, 'web/src/engine/node.js');
const { createEngine: createOther } = await import(pathToFileURL(otherApi).href);
const engines = { this: await createEngine({ trainer: true }), other: await createOther({ trainer: true }) };

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
const cases = [
  { name: 'induction defaults, train(1)', options: { task: 'induction', seed: 1 }, steps: 1, repeat: 20 },
  { name: '~1 MB checkpoint (3 layers, width 48, MLP, batch 1), train(1)', options: { task: 'previous', seed: 1, layers: 3, width: 48, heads: 4, mlp: true, batch: 1 }, steps: 1, repeat: 10 },
  { name: 'induction defaults, train(20)', options: { task: 'induction', seed: 1 }, steps: 20, repeat: 2 },
];
console.log(`this: ${process.cwd()}  other: ${path.resolve(otherRoot)}  rounds: ${rounds}`);
for (const { name, options, steps, repeat } of cases) {
  const trainers = Object.fromEntries(Object.entries(engines).map(([key, engine]) => [key, engine.trainer(options)]));
  const bytes = trainers.this.save().length;
  const losses = Object.fromEntries(Object.entries(trainers).map(([key, trainer]) => [key, trainer.train(steps).loss]));
  if (losses.this !== losses.other) throw new Error(`${name}: the two trainers disagree (${losses.this} vs ${losses.other})`);
  const times = { this: [], other: [] };
  for (let round = 0; round < rounds; ++round) {
    for (const key of round % 2 ? ['this', 'other'] : ['other', 'this']) {
      const started = performance.now();
      for (let r = 0; r < repeat; ++r) trainers[key].train(steps);
      times[key].push((performance.now() - started) / repeat);
    }
  }
  for (const trainer of Object.values(trainers)) trainer.dispose?.();
  const [ours, theirs] = [median(times.this), median(times.other)];
  console.log(`${name.padEnd(56)} checkpoint ${(bytes / 1024).toFixed(0)} KiB: this ${ours.toFixed(3)} ms, other ${theirs.toFixed(3)} ms: ${(ours / theirs).toFixed(2)}×`);
}
