#!/usr/bin/env node
// Trains each task's model as the docs page's trainer section builds it (web/src/logic/
// training-options.js: the task's preset, dropout 0, seed 0) with the project's own trainer, for
// the preset's step count, and writes what the section opens with:
//   web/checkpoints/<task>.mhat       the trainer's checkpoint (trainer.save()), bytes as they are
//   web/checkpoints/manifest.json      for each: the options and steps it was made from, its size
//                                     and FNV-1a checksum, its head scores, accuracy on fresh
//                                     sequences, and its loss curve (a mean per bucket of steps)
// tests/js/checkpoints.test.js trains them again from those options and checks every byte.
//   node scripts/make_checkpoints.js [task …]      (default: every task)
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';

import { createEngine } from '../web/src/engine/node.js';
import { PRESETS, TASKS, defaultOptions, engineOptions } from '../web/src/logic/training/options.js';

const ROOT = new URL('../', import.meta.url);
const MANIFEST = new URL('web/checkpoints/manifest.json', ROOT);
const CHUNK = 50; // steps per call, as the worker trains (the result does not depend on it)
const CURVE_POINTS = 100;

/** FNV-1a over the bytes (what tests and the page's own check use to name a checkpoint). */
export function fnv1a(bytes) {
  let hash = 2166136261;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/**
 * Trains `task`'s page model for its preset's steps; returns { options, steps, trainer, losses,
 * accuracy } (accuracy: the batch accuracy of each chunk's last step).
 */
export function trainPageModel(engine, task) {
  const options = engineOptions(defaultOptions(task));
  const steps = PRESETS[task].steps;
  const trainer = engine.trainer(options);
  const losses = new Float32Array(steps);
  const accuracy = [];
  for (let done = 0; done < steps; done += CHUNK) {
    const result = trainer.train(Math.min(CHUNK, steps - done));
    losses.set(result.losses, done);
    accuracy.push(Number(result.accuracy.toFixed(3)));
  }
  return { options, steps, trainer, losses, accuracy };
}

// Means of equal runs of steps, at 3 significant digits: enough to draw the curve.
function curve(losses) {
  const size = Math.ceil(losses.length / CURVE_POINTS);
  const points = [];
  for (let start = 0; start < losses.length; start += size) {
    const bucket = losses.subarray(start, start + size);
    points.push(Number((bucket.reduce((sum, x) => sum + x, 0) / bucket.length).toPrecision(3)));
  }
  return { every: size, points };
}

const round = (x) => Number(x.toFixed(4));

async function main() {
  const engine = await createEngine({ trainer: true });
  const tasks = process.argv.slice(2).length ? process.argv.slice(2) : TASKS;
  const previous = existsText(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, 'utf8')).checkpoints : {};
  const entries = { ...previous };
  mkdirSync(new URL('web/checkpoints/', ROOT), { recursive: true });
  for (const task of tasks) {
    const started = performance.now();
    const { options, steps, trainer, losses, accuracy } = trainPageModel(engine, task);
    const bytes = trainer.save();
    const file = `${task}.mhat`;
    writeFileSync(new URL(`web/checkpoints/${file}`, ROOT), bytes);
    const evaluation = trainer.evaluate();
    entries[task] = {
      file,
      options,
      steps,
      bytes: bytes.length,
      fnv1a: fnv1a(bytes),
      accuracy: round(evaluation.accuracy),
      heads: trainer.headScores().map(({ layer, head, jobs }) => ({ layer, head, jobs: Object.fromEntries(Object.entries(jobs).map(([job, score]) => [job, round(score)])) })),
      loss: curve(losses),
      batchAccuracy: { every: CHUNK, points: accuracy },
    };
    console.log(`${task}: ${steps} steps, ${bytes.length} bytes, accuracy ${(evaluation.accuracy * 100).toFixed(1)}%, ` +
      `heads ${entries[task].heads.map((h) => `L${h.layer}h${h.head} ${JSON.stringify(h.jobs)}`).join('; ')} (${((performance.now() - started) / 1000).toFixed(1)} s)`);
  }
  const ordered = Object.fromEntries(TASKS.filter((task) => entries[task]).map((task) => [task, entries[task]]));
  const about = 'The checkpoints the trainer section opens with (made by scripts/make_checkpoints.js; copied beside the trainer\'s .wasm by scripts/build.sh): what each was trained from and what it reached. tests/js/checkpoints.test.js trains each again and compares every byte.';
  const text = `${JSON.stringify({ about, checkpoints: ordered }, null, 2)}\n`;
  if (!existsText(MANIFEST, text)) writeFileSync(MANIFEST, text);
}

function existsText(url, text) {
  try {
    const held = readFileSync(url, 'utf8');
    return text === undefined || held === text;
  } catch {
    return false;
  }
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) await main();
