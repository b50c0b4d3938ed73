// The language-model section (<mha-lm>) on the docs page, in real Chromium: it loads only once
// it comes near the screen; every head is drawn over the typed text and redrawn when the text
// changes, with the same weights, job scores and next-character distribution as the model run here
// in Node; Generate streams the characters the API generates with the same seed; Train, Pause and
// Reset run in the worker along the curve Node trains; the language model's block in the
// walkthrough; Chinese; 360 px; no console errors. Screenshots in tests/artifacts/ (lm-*.png).
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { after, before, test } from 'node:test';
import { createEngine } from '../../web/src/engine/engine.js';
import { ARTIFACTS, TIMEOUT, deep, launch, noProblems, openPage } from './harness.js';

const DIST = new URL('../../web/dist/', import.meta.url);
const HAS_ENGLISH = existsSync(new URL('checkpoints/moby-dick.mhat', DIST));

let env;
let engine;
before(async () => {
  env = await launch();
  engine = await createEngine({ trainer: true });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

// Polls `fn($, $$, arg)` in the page until it returns something truthy; returns that.
async function until(page, fn, arg, { timeout = TIMEOUT, what = 'a condition' } = {}) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await deep(page, fn, arg);
    if (value) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await page.waitForTimeout(150);
  }
}

// What the section shows of the text it read: the text, each head's map and labels, the next characters.
const shown = (page) => deep(page, () => {
  const root = document.getElementById('language-model').shadowRoot;
  const heads = root.querySelector('.heads');
  return {
    text: heads?.dataset.text ?? null,
    maps: [...root.querySelectorAll('figure.head')].map((f) => ({ layer: Number(f.dataset.layer), head: Number(f.dataset.head), weights: Array.from(f.weights), job: f.querySelector('.job').textContent, jobs: f.querySelector('.jobs').textContent })),
    next: [...root.querySelectorAll('.read .next .bar')].map((b) => ({ char: b.dataset.char, p: Number(b.querySelector('.p').textContent) })),
    status: root.querySelector('.status').textContent,
    title: root.querySelector('.read h3').textContent,
  };
});

const readText = (page, text) => until(page, ($, $$, text) => document.getElementById('language-model').shadowRoot.querySelector('.heads')?.dataset.text === text, text, { what: `the heads over "${text}"` });

async function screenshot(page, name, part = null) {
  const box = await deep(page, ($, $$, part) => {
    const section = document.getElementById('language-model');
    const r = (part ? section.shadowRoot.querySelector(part) : section).getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: Math.min(r.height, 4000) };
  }, part);
  await page.screenshot({ path: `${ARTIFACTS}${name}`, fullPage: true, clip: box });
}

// The page's model and the one here must agree: the same wasm reads the same checkpoint.
function closeTo(actual, expected, what, tolerance = 1e-6) {
  assert.equal(actual.length, expected.length, `${what}: length`);
  const worst = actual.reduce((max, value, i) => Math.max(max, Math.abs(value - expected[i])), 0);
  assert.ok(worst <= tolerance, `${what}: off by ${worst}`);
}

async function checkReading(page, lm, text) {
  await readText(page, text);
  const view = await shown(page);
  const attention = lm.attention(text);
  const scores = lm.headScores(text);
  assert.equal(view.maps.length, lm.options.layers * lm.options.heads, 'a map for every head of every layer');
  for (const map of view.maps) {
    const { weights } = attention[map.layer];
    const n = Math.round(Math.sqrt(weights.length / lm.options.heads));
    closeTo(map.weights, Array.from(weights.subarray(map.head * n * n, (map.head + 1) * n * n)), `layer ${map.layer} head ${map.head}`);
    const jobs = scores.find((s) => s.layer === map.layer && s.head === map.head).jobs;
    assert.ok(map.jobs.includes(jobs.previousChar.toFixed(2)), `head ${map.layer}.${map.head}'s previous-character score ${jobs.previousChar.toFixed(2)} in "${map.jobs}"`);
  }
  const next = lm.next(text, { topK: 8 });
  assert.deepEqual(view.next.map((b) => b.char), next.map((e) => e.char), 'the next characters, most likely first');
  view.next.forEach((bar, i) => assert.ok(Math.abs(bar.p - next[i].p) < 6e-4, `p(${bar.char})`));
  return view;
}

test('English: loads when near, every head over the typed text, generate, the walkthrough on the text', { timeout: TIMEOUT * 8, skip: !HAS_ENGLISH && 'no English checkpoint in web/dist/checkpoints (scripts/lm/make_checkpoints.js)' }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const requested = [];
  page.on('request', (request) => requested.push(request.url()));
  await page.waitForTimeout(1500);
  assert.ok(!requested.some((url) => /moby-dick|mha-lm-view/.test(url)), 'nothing of the section is fetched while it is far from the screen');
  await deep(page, () => document.getElementById('language-model').scrollIntoView());
  const lm = engine.languageModel({ corpus: 'moby-dick' });
  const first = 'Call me Ishmael. Some years ago, never mind how long precisely, I went to sea. Call me Ishma';
  const opened = await checkReading(page, lm, first);
  assert.equal(opened.title, 'Type any text');
  const { layers, heads, width } = lm.options;
  assert.ok(opened.status.includes(`${layers} layers, ${heads} heads, width ${width}, reads the last ${lm.context} characters, ${lm.parameterCount.toLocaleString('en')} parameters, ${lm.step} training steps`), opened.status);
  assert.ok(requested.some((url) => url.endsWith('/checkpoints/moby-dick.mhat')), 'the checkpoint was fetched');
  assert.ok(!requested.some((url) => /train\.u8/.test(url)), 'opening trained does not fetch the training text');
  assert.equal(await deep(page, () => document.getElementById('language-model').mode), 'worker');
  await screenshot(page, 'lm-en.png');
  await screenshot(page, 'lm-en-read.png', '.card.read');

  // The held-out induction score, whatever it is, said as measured.
  const best = lm.headScores(undefined, { windows: 32 }).reduce((a, b) => (b.jobs.induction > a.jobs.induction ? b : a));
  const induction = await until(page, () => document.getElementById('language-model').shadowRoot.querySelector('.induction').textContent, null, { timeout: TIMEOUT * 2, what: 'the held-out figures' });
  assert.ok(induction.includes(`L${best.layer} H${best.head}`) && induction.includes(best.jobs.induction.toFixed(2)), induction);
  assert.match(induction, best.jobs.induction >= 0.5 ? /^An induction head formed/ : /^No induction head formed/);
  // Invented words written twice: the copying example.
  await deep(page, () => document.getElementById('language-model').shadowRoot.querySelector('button[data-example="repeat"]').click());
  await checkReading(page, lm, 'the zorbled quibbish xanthor, the zorbled quibbish xanthor, the zorbled quib');

  // Typing: every head is redrawn over the new characters.
  const typed = 'the cat sat on the mat. the cat sat on the';
  const input = page.locator('mha-lm #lm-text');
  await input.fill(typed);
  const view = await checkReading(page, lm, typed);
  const before = opened.maps.map((m) => m.weights.join());
  view.maps.forEach((map, i) => assert.notEqual(map.weights.join(), before[i], `head ${map.layer}.${map.head} changed with the text`));
  // A character outside the alphabet is shown, not dropped.
  await input.fill('naïve ☃ whale');
  await readText(page, 'naïve ☃ whale');
  const note = await deep(page, () => document.getElementById('language-model').shadowRoot.querySelector('#lm-text-note').textContent);
  assert.match(note, /ï ☃/);
  // A chosen character: the next one after it.
  await input.fill(typed);
  await readText(page, typed);
  await deep(page, () => document.getElementById('language-model').shadowRoot.querySelectorAll('.chars button')[2].click());
  await until(page, () => document.getElementById('language-model').shadowRoot.querySelector('.read h4.next-title').textContent.includes('“the”'), null, { what: 'the next character after "the"' });
  await page.waitForTimeout(300);
  const afterThe = (await shown(page)).next.map((b) => b.char);
  assert.deepEqual(afterThe, lm.next('the', { topK: 8 }).map((e) => e.char));
  // Positions removed and shuffled: the same question without order.
  const modes = await deep(page, () => [...document.getElementById('language-model').shadowRoot.querySelectorAll('.positions .mode')].map((m) => ({ mode: m.dataset.mode, first: m.querySelector('.bar').dataset.char })));
  assert.deepEqual(modes.map((m) => m.mode), ['trained', 'removed', 'shuffled']);
  assert.equal(modes[1].first, lm.next('the', { topK: 1, positions: 'removed' })[0].char);

  // Generate: the characters arrive in pieces, and are the API's with the same seed.
  await deep(page, () => { const root = document.getElementById('language-model').shadowRoot; root.querySelector('#lm-prompt').value = 'The whale '; root.querySelector('button.generate').click(); });
  const lengths = new Set();
  await until(page, () => {
    const out = document.getElementById('language-model').shadowRoot.querySelector('pre.output');
    return out?.dataset.done === 'true' ? true : (window.__lengths = [...(window.__lengths ?? []), out?.textContent.length ?? 0], false);
  }, null, { what: 'the generation to finish' });
  for (const n of await deep(page, () => window.__lengths ?? [])) lengths.add(n);
  const generated = await deep(page, () => {
    const root = document.getElementById('language-model').shadowRoot;
    return { text: root.querySelector('pre.output').textContent, cache: root.querySelector('.cache').textContent, timing: root.querySelector('.timing').textContent };
  });
  assert.equal(generated.text, `The whale ${lm.generate('The whale ', { length: 128, temperature: 0.8, topK: 0, seed: 1 })}`);
  assert.ok(lengths.size >= 2, `the text grew in pieces (${[...lengths].join(', ')})`);
  // Keys and values of every layer for each character held (float32), at most T of them: past T the
  // cache starts again from the last half of the window.
  const [, held, kb] = generated.cache.match(/KV cache: (\d+) characters of keys and values, ([\d.]+) KB/);
  assert.ok(Number(held) > 0 && Number(held) <= 128, `${held} characters held`);
  assert.equal(kb, (Number(held) * 2 * 2 * 128 * 4 / 1024).toFixed(1));
  await screenshot(page, 'lm-en-generate.png', '.card.generate');
  assert.match(generated.timing, /128 characters in \d+ ms with the KV cache .* Recomputing the whole text for every character: \d+ ms .*× slower/);

  // The walkthrough runs the block on the typed text: its X is the model's hidden state there.
  await deep(page, () => document.getElementById('language-model').shadowRoot.querySelector('button.walk').click());
  const walked = await until(page, () => {
    const w = document.querySelector('mha-playground').shadowRoot.querySelector('mha-walkthrough');
    return w.run && w.labels?.join('') === 'the␣cat␣sat␣on␣the␣mat.␣the␣cat␣sat␣on␣the' ? { tokens: w.labels, output: Array.from(w.run.step('output').data), shape: w.run.step('x').shape, steps: w.run.steps.length } : null;
  }, null, { what: 'the walkthrough on the typed text' });
  const run = lm.run(typed, { layer: 0 });
  assert.deepEqual(walked.shape, [1, Array.from(typed).length, 128]);
  assert.equal(walked.steps, run.steps.filter((step) => !step.id.startsWith('d_')).length, 'the forward steps only');
  closeTo(walked.output, Array.from(run.step('output').data), 'the block\'s output', 1e-5);
  const note2 = await deep(page, () => document.querySelector('mha-playground').shadowRoot.querySelector('.block-note').textContent);
  assert.match(note2, /layer 0 of the language model/);

  await page.setViewportSize({ width: 360, height: 780 });
  await deep(page, () => document.getElementById('language-model').scrollIntoView());
  await page.waitForTimeout(500);
  const overflow = await deep(page, () => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px at 360 px`);
  await screenshot(page, 'lm-en-360.png');
  // The page's language button: the section in Chinese, on the Chinese model (no corpus was set).
  await page.locator('button[data-lang="zh"]').click();
  const tang = engine.languageModel({ corpus: 'tang-poems' });
  const zh = await checkReading(page, tang, '床前明月光，疑是地上霜。举头望明月，低头思故');
  assert.equal(zh.title, '输入任意文字');
  assert.equal(await deep(page, () => document.getElementById('language-model').shadowRoot.querySelector('#lm-corpus').value), 'tang-poems');
  tang.dispose();
  lm.dispose();
  await noProblems(problems, page);
  await context.close();
});

test('Chinese: the Tang verse model, its words, and training from scratch with Pause and Reset', { timeout: TIMEOUT * 8 }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=zh', width: 360, height: 780 });
  await deep(page, () => document.getElementById('language-model').scrollIntoView());
  const lm = engine.languageModel({ corpus: 'tang-poems' });
  const view = await checkReading(page, lm, '床前明月光，疑是地上霜。举头望明月，低头思故');
  assert.equal(view.title, '输入任意文字');
  assert.ok(view.status.includes(`训练好的模型：${lm.options.layers} 层，${lm.options.heads} 个头，宽度 ${lm.options.width}`), view.status);
  const halfLine = lm.headScores('床前明月光，疑是地上霜。举头望明月，低头思故').find((s) => s.layer === 0 && s.head === 1).jobs.halfLine;
  assert.equal(view.maps[1].job, `上半句的同一位置 ${halfLine.toFixed(2)}`);
  const overflow = await deep(page, () => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px at 360 px`);
  await screenshot(page, 'lm-zh-360.png');

  // Train: a new small model from step 0, measured every 25 steps, as the same recipe trains in Node.
  const training = () => deep(page, () => {
    const r = document.getElementById('language-model').shadowRoot;
    const s = r.querySelector('.train-status');
    return { step: Number(s.dataset.step), running: s.dataset.running === 'true', text: s.textContent, points: r.querySelectorAll('figure.curve circle.bits').length, sample: r.querySelector('pre.sample').textContent };
  });
  const poll = async (ok, what, timeout = TIMEOUT * 2) => {
    const deadline = Date.now() + timeout;
    for (;;) {
      const state = await training();
      if (ok(state)) return state;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${JSON.stringify(state)}`);
      await page.waitForTimeout(200);
    }
  };
  const click = (name) => deep(page, ($, $$, name) => document.getElementById('language-model').shadowRoot.querySelector(`button.${name}`).click(), name);
  await click('train');
  const at25 = await poll((s) => s.step >= 25 && s.points >= 2, 'step 25');
  const scratch = engine.languageModel({ corpus: 'tang-poems', trained: false, layers: 1, width: 64, heads: 4, T: 64, batch: 32, lr: 0.01, mlp: true, layernorm: true, seed: 0 });
  const bits0 = scratch.evaluate({ windows: 32 }).bits;
  scratch.train(25);
  const bits25 = scratch.evaluate({ windows: 32 }).bits;
  const curve = await deep(page, () => [...document.getElementById('language-model').shadowRoot.querySelectorAll('figure.curve circle.bits')].map((c) => Number(c.getAttribute('cy'))));
  assert.ok(curve[1] > curve[0], `the held-out bits fell from step 0 (${bits0.toFixed(2)}) to 25 (${bits25.toFixed(2)}): the dot is lower`);
  assert.ok(bits25 < bits0);
  assert.notEqual(at25.sample, '', 'a sample at step 25');
  await click('pause');
  const paused = await poll((s) => !s.running, 'the pause');
  await page.waitForTimeout(1500);
  assert.equal((await training()).step, paused.step, 'paused: no more steps');
  if (paused.step === 25 || paused.step === 50) assert.match(paused.text, new RegExp(`第 ${paused.step} 步`));
  await screenshot(page, 'lm-zh-train.png', '.card.train');
  await click('reset');
  const reset = await poll((s) => s.step === 0 && s.points === 1, 'the reset');
  assert.match(reset.text, /第 0 步/);
  assert.match(reset.text, new RegExp(`${bits0.toFixed(2)} 比特`), `step 0's held-out bits as in Node (${bits0.toFixed(2)}): ${reset.text}`);
  scratch.dispose();
  lm.dispose();
  await noProblems(problems, page);
  await context.close();
});
