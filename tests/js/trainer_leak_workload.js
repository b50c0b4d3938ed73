// The trainer's part of the leak checks (tests/js/trainer-leaks.test.js, scripts/leak_check.js):
// a trainer made, used through every call (and an error) and disposed. A trainer lives in the
// module until dispose() frees it, so after warm-up neither the memory nor the Embind handles
// may change.
import { MhaError } from '../../web/src/engine/engine.js';

/** The smallest trainer of each task, for many rounds in little time. */
export const TINY = {
  reverse: { task: 'reverse', T: 4, vocab: 4, width: 4, batch: 2 },
  previous: { task: 'previous', T: 4, vocab: 4, width: 4, batch: 2, dropout: 0.2 },
  sort: { task: 'sort', T: 4, vocab: 6, width: 8, heads: 2, layers: 2, mlp: true, batch: 2 },
  induction: { task: 'induction', T: 8, vocab: 8, width: 8, layers: 2, batch: 2 },
};
/** Each task at its default sizes (scripts/leak_check.js --trainer). */
export const DEFAULTS = Object.fromEntries(Object.keys(TINY).map((task) => [task, { task }]));

/** Trainer number i: made, trained, asked everything once, saved and loaded, then disposed. */
export function trainerRound(engine, i, sizes = TINY) {
  const names = Object.keys(sizes);
  const options = { ...sizes[names[i % names.length]], seed: i };
  const trainer = engine.trainer(options);
  trainer.train(2);
  const tokens = new Int32Array(trainer.task.T).map((_, j) => (j * 3 + i) % 4);
  trainer.predict(tokens);
  trainer.attention(tokens);
  if (i % 10 === 0) trainer.headScores();
  if (i % 10 === 1) trainer.evaluate({ sequences: 8 });
  if (i % 10 === 2) trainer.run(tokens);
  if (i % 10 === 3) trainer.view(tokens);
  const copy = engine.trainer({ checkpoint: trainer.save() });
  trainer.dispose();
  try {
    copy.predict([99]);
  } catch (error) {
    if (!(error instanceof MhaError)) throw error;
    return;
  } finally {
    copy.dispose();
  }
  throw new Error(`round ${i}: bad tokens were accepted`);
}
