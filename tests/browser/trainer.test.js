// The trainer in real Chromium: the same seed gives the same loss curve, bit for bit,
// in the browser as in Node (and so as natively: tests/js/trainer.test.js), and the gradients of a
// backward run are the same arrays. Runs under the docs page's strict CSP.
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { TIMEOUT, launch } from './harness.js';

let server;
let url;
let browser;
let engine;
before(async () => {
  ({ server, url, browser, engine } = await launch());
});
after(async () => {
  await browser?.close();
  server?.close();
});

const bits = (floats) => Array.from(new Uint32Array(Float32Array.from(floats).buffer), (u) => u.toString(16).padStart(8, '0'));

test('a trainer in Chromium gives the loss curve and checkpoint of Node, bit for bit', { timeout: TIMEOUT * 3 }, async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  page.on('pageerror', (error) => problems.push(error.message));
  await page.goto(new URL('index.html', url).href);
  const inPage = await page.evaluate(`(async () => {
    const { createEngine } = await import('/src/engine/engine.js');
    const engine = await createEngine({ trainer: true });
    const trainer = engine.trainer({ task: 'induction', seed: 7, dropout: 0.1 });
    const losses = [...trainer.train(10).losses, ...trainer.train(15).losses];
    const run = engine.run({ B: 1, T: 3, C: 4, H: 2, seed: 3, dOutput: [1, -1, 0.5, 2, 0, 1, -2, 0.25, 1, 1, -1, 3] });
    return { losses, checkpoint: Array.from(trainer.save()), dx: Array.from(run.gradients.x), scores: trainer.headScores() };
  })()`);
  const trainer = (await createEngine({ trainer: true })).trainer({ task: 'induction', seed: 7, dropout: 0.1 });
  const losses = [...trainer.train(10).losses, ...trainer.train(15).losses];
  assert.deepEqual(bits(inPage.losses), bits(losses));
  assert.deepEqual(inPage.checkpoint, Array.from(trainer.save()));
  assert.deepEqual(inPage.scores, trainer.headScores());
  const run = engine.run({ B: 1, T: 3, C: 4, H: 2, seed: 3, dOutput: [1, -1, 0.5, 2, 0, 1, -2, 0.25, 1, 1, -1, 3] });
  assert.deepEqual(bits(inPage.dx), bits(run.gradients.x));
  assert.deepEqual(problems, []);
  await context.close();
});
