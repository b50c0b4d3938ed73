// The trainer section, "What attention learns" (<mha-trainer>), in real Chromium: the
// docs page opens it trained with the checkpoint's head scores; Reset gives near-uniform heads,
// Train lowers the loss, Pause stops, Step takes one step, a probe edit and dropout change what
// they should; the URL round trip; a foreign page with one script tag under a strict CSP (at
// most worker-src 'self'), the iframe route, and training without a worker. Expected values come
// from the trainer run here in Node on the committed checkpoints. Screenshots in tests/artifacts/.
import assert from 'node:assert/strict';
import { copyFile, cp, mkdir, rm, writeFile } from 'node:fs/promises';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';

import { startServer } from '../../scripts/serve.js';
import { createEngine } from '../../web/src/engine/engine.js';
import { flatness } from '../../web/src/logic/training/heads.js';
import MANIFEST from '../../web/checkpoints/manifest.json' with { type: 'json' };

const CHECKPOINTS = MANIFEST.checkpoints;
import { ARTIFACTS, TIMEOUT, deep, launch, makeHostSite, openPage } from './harness.js';

const HOST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

let env;
let trainerEngine;
let site;
let hosts = [];
before(async () => {
  env = await launch();
  trainerEngine = await createEngine({ trainer: true });
  // A tutorial site: the widget bundle and the trainer's files copied into lib/, as web/docs/widgets.md says.
  site = await makeHostSite('mha-lens-trainer-');
  const dist = new URL('../../web/dist/', import.meta.url).pathname;
  for (const file of ['mha_trainer.mjs', 'mha_trainer.wasm', 'mha-trainer-worker.js']) await copyFile(join(dist, file), join(site, 'lib', file));
  await cp(join(dist, 'checkpoints'), join(site, 'lib', 'checkpoints'), { recursive: true });
  const page = (body) => `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="/favicon.svg">
<script type="module" src="lib/mha-lens.js"></script></head>
<body><p>A tutorial paragraph about induction heads.</p>${body}</body></html>`;
  await writeFile(join(site, 'trained.html'), page('<mha-trainer id="t" task="induction" trained></mha-trainer>'));
  await writeFile(join(site, 'no-worker.html'), page('<mha-trainer id="t" task="reverse" worker="none"></mha-trainer>'));
  await mkdir(join(site, 'empty'), { recursive: true });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  for (const host of hosts) host.server.close();
  if (site) await rm(site, { recursive: true, force: true });
});

const checkpoint = (task) => trainerEngine.trainer({ checkpoint: new Uint8Array(readFileSync(new URL(`../../web/checkpoints/${CHECKPOINTS[task].file}`, import.meta.url))) });

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

// The section as the page shows it: step, mode, scores, labels, probe and each map's weights.
const section = (page) => deep(page, () => {
  const t = document.querySelector('mha-trainer');
  const root = t.shadowRoot;
  const maps = (kind) => [...root.querySelectorAll(`.map[data-kind="${kind}"] mha-heatmap`)].map((m) => Array.from(m.run?.step('weights').data ?? []));
  return {
    step: t.step, running: t.running, mode: t.mode, task: t.taskInfo, options: t.options, probe: t.probe, losses: t.losses,
    scores: t.headScores, labels: [...root.querySelectorAll('figure.head .job')].map((n) => n.textContent),
    now: maps('now'), start: maps('start'), dropout: maps('dropout'),
    where: root.querySelector('.where')?.dataset.mode, fallbackShown: root.querySelector('.where.fallback')?.checkVisibility() ?? false,
    status: root.querySelector('.status')?.textContent,
  };
});

// Waits for the trainer to have drawn a view at `step` (or any step when omitted).
const drawn = (page, step) => until(page, ($, $$, step) => {
  const t = document.querySelector('mha-trainer');
  const maps = t?.shadowRoot.querySelectorAll('.map[data-kind="now"] mha-heatmap');
  const at = t?.shadowRoot.querySelector('.layers')?.dataset.step;
  return t?.headScores && maps?.length && [...maps].every((m) => m.run) && (step === null || (t.step === step && at === String(step))) && !t.running;
}, step ?? null, { what: `the trainer's view${step === null || step === undefined ? '' : ` at step ${step}`}` });

async function screenshot(page, name) {
  await page.evaluate(() => document.getElementById('trained').scrollIntoView());
  await page.waitForTimeout(300);
  const box = await page.evaluate(() => {
    const block = document.querySelector('mha-playground').shadowRoot.querySelector('section.trained');
    const r = block.getBoundingClientRect();
    return { x: r.left + scrollX, y: r.top + scrollY, width: r.width, height: r.height };
  });
  await page.screenshot({ path: `${ARTIFACTS}${name}`, fullPage: true, clip: { x: Math.max(0, box.x - 4), y: Math.max(0, box.y - 4), width: box.width + 8, height: box.height + 8 } });
}

test('the docs page opens the section trained: the checkpoint\'s head scores, labels and maps', { timeout: TIMEOUT * 4 }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  await drawn(page, 1000);
  const shown = await section(page);
  const trained = checkpoint('induction');
  assert.equal(shown.mode, 'worker');
  assert.equal(shown.step, 1000);
  assert.deepEqual(shown.scores.map((s) => s.jobs), trained.headScores().map((s) => s.jobs), 'the scores measured in the page are the checkpoint\'s, bit for bit');
  assert.deepEqual(shown.labels, ['previous token 0.79', 'prefix matching 0.98']);
  const attention = trained.attention(shown.probe);
  shown.now.forEach((weights, layer) => assert.deepEqual(weights, Array.from(attention[layer].weights), `layer ${layer}'s map`));
  assert.ok(flatness(Float32Array.from(shown.now[1]), 24, { causal: true }) > 0.5, 'a trained head is far from flat');
  assert.match(shown.status, /Step 1000 of 1000/);
  // The section is a link target, right after the heatmaps.
  const order = await deep(page, () => [...document.querySelector('mha-playground').shadowRoot.querySelectorAll('section.block')].map((s) => s.className.replace('block ', '')));
  assert.deepEqual(order.slice(order.indexOf('heatmaps'), order.indexOf('heatmaps') + 2), ['heatmaps', 'trained']);
  assert.equal(await deep(page, () => document.getElementById('trained').localName), 'mha-trainer');
  await screenshot(page, 'trainer-en.png');
  await page.setViewportSize({ width: 360, height: 780 });
  await page.waitForTimeout(400);
  const overflow = await deep(page, () => document.documentElement.scrollWidth - document.documentElement.clientWidth);
  assert.ok(overflow <= 1, `the page scrolls sideways by ${overflow} px at 360 px`);
  await screenshot(page, 'trainer-360.png');
  assert.deepEqual(problems, []);
  await context.close();
});

test('Reset gives near-uniform heads; Train lowers the loss; Pause stops; Step, a probe edit and dropout', { timeout: TIMEOUT * 6 }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  await drawn(page, 1000);
  await page.locator('mha-trainer button[data-action="reset"]').click();
  await drawn(page, 0);
  let shown = await section(page);
  assert.deepEqual(shown.losses, []);
  for (const weights of shown.now) {
    const spread = flatness(Float32Array.from(weights), 24, { causal: true });
    assert.ok(spread < 0.2, `at step 0 a head is near uniform: its largest |w − 1/n| is ${spread}`);
  }
  assert.ok(shown.labels.every((label) => label.startsWith('no clear job yet')), shown.labels.join(' | '));

  await page.locator('mha-trainer button[data-action="train"]').click();
  await until(page, () => document.querySelector('mha-trainer').step >= 120, null, { what: '120 training steps' });
  await page.locator('mha-trainer button[data-action="pause"]').click();
  await until(page, () => !document.querySelector('mha-trainer').running, null, { what: 'the pause' });
  shown = await section(page);
  const mean = (xs) => xs.reduce((a, b) => a + b, 0) / xs.length;
  assert.ok(mean(shown.losses.slice(-10)) < mean(shown.losses.slice(0, 10)) - 0.05, `the loss falls: ${mean(shown.losses.slice(0, 10))} → ${mean(shown.losses.slice(-10))}`);
  const paused = shown.step;
  await page.waitForTimeout(1200);
  assert.equal((await section(page)).step, paused, 'Pause stops training');
  await page.locator('mha-trainer button[data-action="step"]').click();
  await drawn(page, paused + 1);

  // A probe edit changes the maps (and the predictions).
  const before = await section(page);
  const probe = Array.from({ length: 24 }, (_, i) => (i < 14 ? i + 3 : i - 8)).join(' ');
  await page.locator('mha-trainer #tr-probe').fill(probe);
  await until(page, ($, $$, probe) => document.querySelector('mha-trainer').probe.join(' ') === probe, probe, { what: 'the new probe' });
  await until(page, ($, $$, old) => {
    const map = document.querySelector('mha-trainer').shadowRoot.querySelector('.map[data-kind="now"] mha-heatmap');
    return map.run && Array.from(map.run.step('weights').data).join() !== old;
  }, before.now[0].join(), { what: 'the maps of the new probe' });
  const edited = await section(page);
  assert.notDeepEqual(edited.now, before.now);
  assert.deepEqual(await deep(page, () => document.querySelector('mha-trainer').shadowRoot.querySelector('.predictions tr:nth-child(2) td').textContent), '3');
  // A probe that is not one is named, and changes nothing.
  await page.locator('mha-trainer #tr-probe').fill('1 2 banana');
  assert.match(await page.locator('mha-trainer #tr-probe-error').textContent(), /“banana” is not a token/);
  assert.equal((await section(page)).probe.join(' '), probe);
  await page.locator('mha-trainer #tr-probe').fill(probe);

  // Dropout acts in training only: the maps of now stay, the training step's maps are dropped out.
  await page.locator('mha-trainer #tr-dropout').selectOption('0.3');
  await until(page, () => document.querySelector('mha-trainer').shadowRoot.querySelectorAll('.map[data-kind="dropout"] mha-heatmap').length > 0, null, { what: 'the dropout maps' });
  await drawn(page);
  const dropped = await section(page);
  assert.deepEqual(dropped.now, edited.now, 'changing dropout changes no evaluation map');
  assert.equal(dropped.step, edited.step);
  let zeros = 0;
  let visible = 0;
  dropped.dropout.forEach((weights, layer) => weights.forEach((w, i) => {
    const q = Math.floor(i / 24) % 24;
    const k = i % 24;
    if (k > q) return; // masked: 0 either way
    visible++;
    if (w === 0) zeros++;
    else assert.ok(Math.abs(w - dropped.now[layer][i] / 0.7) < 1e-6, `kept entries are scaled by 1/(1 − p): ${w} vs ${dropped.now[layer][i]}`);
  }));
  assert.ok(Math.abs(zeros / visible - 0.3) < 0.08, `${zeros} of ${visible} entries zeroed`);
  assert.match(await page.locator('mha-trainer').locator('.note.lesson').nth(1).textContent(), /Dropout acts in training only/);

  // Random vs trained: step 0 beside now, near uniform.
  await page.locator('mha-trainer #tr-compare').check();
  await until(page, () => document.querySelector('mha-trainer').shadowRoot.querySelectorAll('.map[data-kind="start"] mha-heatmap').length === 2, null, { what: 'the step-0 maps' });
  await drawn(page);
  const compared = await section(page);
  for (const weights of compared.start) assert.ok(flatness(Float32Array.from(weights), 24, { causal: true }) < 0.2);
  assert.ok(compared.labels.every((label) => /step 0: \d\.\d\d/.test(label)), compared.labels.join(' | '));
  assert.deepEqual(problems, []);
  await context.close();
});

test('the URL keeps the section\'s options, probe and view, and the walkthrough\'s trained block', { timeout: TIMEOUT * 5 }, async () => {
  const query = '?lang=zh&tr-task=previous&tr-lr=0.01&tr-dropout=0.2&tr-compare=1&tr-block=0&tr-backward=1';
  const { page, context, problems } = await openPage(env.browser, env.url, { query, locale: 'zh-CN' });
  await drawn(page, 400);
  let shown = await section(page);
  assert.deepEqual(shown.options, { task: 'previous', layers: 1, heads: 1, lr: 0.01, dropout: 0.2, seed: 0 });
  assert.equal(shown.start.length, 1, 'step 0 beside now');
  assert.equal(shown.dropout.length, 1, 'the training step\'s map');
  assert.deepEqual(shown.scores.map((s) => s.jobs), checkpoint('previous').headScores().map((s) => s.jobs), 'opened trained: lr and dropout do not change what a model is');
  assert.match(shown.labels[0], /^前一个词元：0\.99/);
  // The walkthrough above shows the trained block, forward and backward.
  const walk = await until(page, () => {
    const w = document.querySelector('mha-playground').shadowRoot.querySelector('mha-walkthrough');
    return w.run?.steps.some((s) => s.id === 'd_masked') && { ids: w.run.steps.map((s) => s.id), summary: w.run.summary };
  }, null, { what: 'the trained block in the walkthrough' });
  assert.deepEqual([walk.summary.B, walk.summary.T, walk.summary.C, walk.summary.H], [1, 16, 32, 1]);
  assert.ok(walk.ids.indexOf('output') < walk.ids.indexOf('d_output'));
  await screenshot(page, 'trainer-zh.png');

  // Changes through the controls reach the URL.
  await page.locator('mha-trainer #tr-task').selectOption('reverse');
  await drawn(page, 400);
  // A new task brings its own model (the one its checkpoint opens trained); dropout stays.
  assert.deepEqual((await section(page)).options, { task: 'reverse', layers: 1, heads: 1, lr: 0.003, dropout: 0.2, seed: 0 });
  await page.locator('mha-trainer #tr-lr').selectOption('0.01');
  await page.locator('mha-trainer #tr-heads').selectOption('2');
  await drawn(page, 0);
  await page.locator('mha-trainer #tr-seed').fill('7');
  await page.locator('mha-trainer #tr-seed').press('Enter');
  await page.locator('mha-trainer #tr-seed').blur();
  await drawn(page, 0);
  const probe = '15 14 13 12 11 10 9 8 7 6 5 4 3 2 1 0';
  await page.locator('mha-trainer #tr-probe').fill(probe);
  await page.waitForTimeout(600);
  const search = await deep(page, () => location.search);
  const params = new URLSearchParams(search);
  for (const [key, value] of [['tr-task', 'reverse'], ['tr-heads', '2'], ['tr-seed', '7'], ['tr-probe', probe], ['tr-compare', '1'], ['tr-block', '0'], ['tr-backward', '1'], ['tr-lr', '0.01'], ['tr-dropout', '0.2']]) {
    assert.equal(params.get(key), value, `${key} in ${search}`);
  }
  // The same URL opens the same section.
  const again = await openPage(env.browser, `${env.url}${search}`, { locale: 'zh-CN' });
  await drawn(again.page, 0);
  shown = await section(again.page);
  assert.deepEqual(shown.options, { task: 'reverse', layers: 1, heads: 2, lr: 0.01, dropout: 0.2, seed: 7 });
  assert.equal(shown.probe.join(' '), probe);
  assert.equal(shown.start.length, 2);
  assert.deepEqual(problems, []);
  assert.deepEqual(again.problems, []);
  await again.context.close();
  await context.close();
});

async function hostPage(csp, file, { width = 1000 } = {}) {
  const host = await startServer({ port: 0, root: site, csp });
  hosts.push(host);
  const context = await env.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  const fetched = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (/\.(wasm|mjs|mhat)$|worker/.test(r.url())) fetched.push(r.url().slice(host.url.length)); });
  await page.addInitScript(() => document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`)));
  await page.goto(`${host.url}${file}`);
  return { page, context, problems, fetched };
}

test('a foreign page: one script tag, a strict CSP with at most worker-src \'self\', one .wasm; the iframe route', { timeout: TIMEOUT * 4 }, async () => {
  for (const csp of [HOST_CSP, `${HOST_CSP}; worker-src 'self'`]) {
    const { page, context, problems, fetched } = await hostPage(csp, 'trained.html');
    await drawn(page, 1000);
    const shown = await section(page);
    assert.equal(shown.mode, 'worker', csp);
    assert.deepEqual(shown.scores.map((s) => s.jobs), checkpoint('induction').headScores().map((s) => s.jobs));
    assert.deepEqual(fetched.filter((f) => f.endsWith('.wasm')), ['lib/mha_trainer.wasm'], 'one .wasm, the trainer\'s: the page that trains does not also fetch the engine\'s');
    assert.ok(fetched.includes('lib/mha-trainer-worker.js') && fetched.includes('lib/checkpoints/induction.mhat'), fetched.join(' '));
    await page.locator('mha-trainer button[data-action="reset"]').click();
    await drawn(page, 0);
    await page.locator('mha-trainer button[data-action="train"]').click();
    await until(page, () => document.querySelector('mha-trainer').step >= 20, null, { what: 'training on the host page' });
    assert.deepEqual(problems, [], csp);
    await context.close();
  }
  // The iframe route renders the trainer from its URL.
  const { page, context, problems } = await openFrame(`${env.url}embed.html?el=trainer&task=reverse&trained&lang=zh`);
  await drawn(page, 400);
  const shown = await section(page);
  assert.deepEqual(shown.scores.map((s) => s.jobs), checkpoint('reverse').headScores().map((s) => s.jobs));
  assert.match(shown.labels[0], /^反对角线：0\.98/);
  assert.deepEqual(problems, []);
  await context.close();
});

async function openFrame(url) {
  const context = await env.browser.newContext({ viewport: { width: 700, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.goto(url);
  return { page, context, problems };
}

test('without a worker the section trains on the page\'s thread and says so: worker="none", and a CSP that refuses workers', { timeout: TIMEOUT * 4 }, async () => {
  const asked = await hostPage(HOST_CSP, 'no-worker.html');
  await drawn(asked.page, 0);
  let shown = await section(asked.page);
  assert.equal(shown.mode, 'page');
  assert.equal(shown.where, 'page');
  assert.ok(shown.fallbackShown, 'the note is visible');
  await asked.page.locator('mha-trainer button[data-action="train"]').click();
  await until(asked.page, () => document.querySelector('mha-trainer').step >= 30, null, { what: 'training on the page\'s thread' });
  assert.deepEqual(asked.problems, []);
  await asked.context.close();

  const refused = await hostPage(`${HOST_CSP}; worker-src 'none'`, 'trained.html');
  await drawn(refused.page, 1000);
  shown = await section(refused.page);
  assert.equal(shown.mode, 'page');
  assert.ok(shown.fallbackShown);
  assert.deepEqual(shown.scores.map((s) => s.jobs), checkpoint('induction').headScores().map((s) => s.jobs));
  assert.match(await refused.page.locator('mha-trainer .where').textContent(), /No Web Worker could start here/);
  await refused.page.locator('mha-trainer button[data-action="reset"]').click();
  await drawn(refused.page, 0);
  await refused.page.locator('mha-trainer button[data-action="train"]').click();
  await until(refused.page, () => document.querySelector('mha-trainer').step >= 10, null, { what: 'training after the worker was refused' });
  // The only complaint is the refused worker itself.
  assert.ok(refused.problems.length > 0 && refused.problems.every((p) => /worker-src/.test(p)), refused.problems.join('\n'));
  await refused.context.close();
});
