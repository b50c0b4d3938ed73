// The checkpoints the trainer section opens with (web/checkpoints/, scripts/make_checkpoints.js)
// are what the project's own trainer makes from the options and steps recorded beside them: each
// is trained again here and compared byte for byte, and what the record says of it (size,
// checksum, head scores, accuracy) is checked against the file.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { PRESETS, TASKS, defaultOptions, engineOptions } from '../../web/src/logic/training/options.js';
import MANIFEST from '../../web/checkpoints/manifest.json' with { type: 'json' };

const CHECKPOINTS = MANIFEST.checkpoints;
import { fnv1a, trainPageModel } from '../../scripts/make_checkpoints.js';

let engine;
before(async () => {
  engine = await createEngine({ trainer: true });
});

const committed = (entry) => new Uint8Array(readFileSync(new URL(`../../web/checkpoints/${entry.file}`, import.meta.url)));

test('there is a checkpoint for every task, made from the section\'s own options', () => {
  assert.deepEqual(Object.keys(CHECKPOINTS), TASKS);
  for (const task of TASKS) {
    const entry = CHECKPOINTS[task];
    assert.deepEqual(entry.options, engineOptions(defaultOptions(task)), task);
    assert.equal(entry.steps, PRESETS[task].steps, task);
    const bytes = committed(entry);
    assert.equal(bytes.length, entry.bytes, `${task}: size`);
    assert.equal(fnv1a(bytes), entry.fnv1a, `${task}: checksum`);
    const trainer = engine.trainer({ checkpoint: bytes });
    assert.equal(trainer.step, entry.steps);
    const round = (x) => Number(x.toFixed(4));
    assert.deepEqual(trainer.headScores().map(({ layer, head, jobs }) => ({ layer, head, jobs: Object.fromEntries(Object.entries(jobs).map(([k, v]) => [k, round(v)])) })), entry.heads, `${task}: head scores`);
    assert.equal(round(trainer.evaluate().accuracy), entry.accuracy, `${task}: accuracy`);
    assert.ok(entry.accuracy >= 0.99, `${task} is trained: ${entry.accuracy}`);
    const best = Math.max(...trainer.headScores().map((h) => h.score));
    assert.ok(best >= trainer.task.jobTarget, `${task}: its job's best head ${best} reaches the task's target ${trainer.task.jobTarget}`);
  }
});

for (const task of TASKS) {
  test(`${task}: training again from the recorded seed and options gives the committed checkpoint, bit for bit`, { timeout: 180_000 }, () => {
    const entry = CHECKPOINTS[task];
    const { trainer } = trainPageModel(engine, task);
    const again = trainer.save();
    const bytes = committed(entry);
    assert.equal(again.length, bytes.length);
    const first = again.findIndex((byte, i) => byte !== bytes[i]);
    assert.equal(first, -1, `${task}: first differing byte at ${first} of ${bytes.length}`);
  });
}
