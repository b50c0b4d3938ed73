// The embeddable elements on a host page that is not the docs page: a temporary site with the
// bundle and .wasm under lib/ and the host two folders away, served by scripts/serve.js with the
// strict CSP a host may set (HOST_CSP). Expected values come from the engine run here in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { ARTIFACTS, TIMEOUT, deep, heatmapCells, launch, makeHostSite } from './harness.js';
import { heatmapScales } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';

const XSS = '<img src=x onerror=alert(1)>';
// The policy a careful tutorial site may send: no inline script or style, no eval, nothing but
// its own origin. The widgets must work under it unchanged.
const HOST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

let env;
let site;
let host;
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-host-');
  await mkdir(join(site, 'pages', 'deep'), { recursive: true });
  await writeFile(join(site, 'pages', 'deep', 'host.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title>
<link rel="icon" href="/favicon.svg">
<script type="module" src="../../lib/mha-lens.js"></script></head>
<body>
<p>A tutorial paragraph.</p>
<mha-walkthrough id="walk" c="12" h="3" tokens="a b c"></mha-walkthrough>
<mha-heatmap id="follower" for="walk"></mha-heatmap>
<mha-shapes id="shapes" b="1" c="8" h="4"></mha-shapes>
<mha-heatmap id="bad" c="10" h="4"></mha-heatmap>
<mha-heatmap id="xss" tokens="${XSS.replace(/</g, '&lt;').replace(/>/g, '&gt;')} b"></mha-heatmap>
<mha-playground id="playground" lang="zh" c="12" h="4" hkv="1" theme="dark"></mha-playground>
</body></html>`);
  host = await startServer({ port: 0, root: site, csp: HOST_CSP });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  host?.server.close();
  if (site) await rm(site, { recursive: true, force: true });
});

async function open(url, { width = 1000 } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  const wasm = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss(); });
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  await page.addInitScript(() => {
    window.mhaErrors = [];
    document.addEventListener('mha-error', (event) => window.mhaErrors.push({ id: event.target.id, ...event.detail }));
    // mha-run does not bubble: heard on the way down (capture) for the elements of the host page.
    window.mhaRuns = [];
    document.addEventListener('mha-run', (event) => window.mhaRuns.push(event.target.id), true);
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(url);
  return { page, context, problems, wasm };
}

test('every element renders on a foreign page, one engine, the wasm found next to the bundle', { timeout: TIMEOUT * 3 }, async () => {
  const { page, context, problems, wasm } = await open(`${host.url}pages/deep/host.html`);
  await page.locator('#follower figure.panel').first().waitFor();
  await page.locator('#walk h3').waitFor();
  await page.locator('#shapes .chip').first().waitFor();
  await page.locator('#xss figure.panel').first().waitFor();
  await page.locator('#playground mha-walkthrough h3').waitFor();
  assert.equal(await page.locator('#playground mha-heatmap figure.panel').count(), 8, 'the playground runs its attributes: B=2, H=4 (MQA)');
  assert.equal(await page.locator('#playground #h-walkthrough').textContent(), '逐步讲解');
  // tokens="a b c" is one sentence and no b: one batch row.
  const run = env.engine.run({ B: 1, T: 3, C: 12, H: 3 });
  assert.equal(await page.locator('#follower figure.panel').count(), run.summary.B * run.summary.H, 'the follower shows the stepper\'s run');
  const follower = await heatmapCells(page, ['#follower'], { b: 0, h: 2, rows: 3, cols: 3 });
  const weights = run.step('weights');
  const scale = heatmapScales(weights, heatmapPanels(weights, 3), 'uniform')[2];
  assert.deepEqual(follower.cells.map((cell) => cell.color), Array.from(weights.data.subarray(2 * 9, 3 * 9), (v, i) => scale.color(v, Math.floor(i / 3))));
  assert.deepEqual(wasm, [`${host.url}lib/mha_engine.wasm`], 'fetched once, from beside the bundle');

  // The bad element shows the engine's own message and fires mha-error; its siblings still work.
  let expected;
  try { env.engine.run({ B: 2, T: 4, C: 10, H: 4 }); } catch (error) { expected = error; }
  await page.locator('#bad .element-error', { hasText: expected.message }).waitFor();
  const errors = await page.evaluate(() => window.mhaErrors);
  assert.deepEqual(errors.map((e) => [e.id, e.field]), [['bad', 'H']]);

  // The XSS probe is a token label, shown as text; nothing ran.
  const labels = await deep(page, ($, $$) => $$('#xss', 'figure.panel[data-b="0"][data-h="0"] text[text-anchor="end"]').map((t) => t.textContent));
  assert.deepEqual(labels, ['<img', 'src=x', 'onerror=alert(1…', 'b'], 'one token per word, shown as literal text (labels up to 16 characters)');
  const readout = await page.evaluate(() => document.querySelector('#xss').shadowRoot.querySelectorAll('img').length);
  assert.equal(readout, 0);
  await page.locator('#xss details.table-view summary').click();
  const headers = await deep(page, ($, $$) => $$('#xss', 'thead th').slice(1).map((th) => th.textContent));
  assert.equal(headers.join(' '), `${XSS} b`);

  // Attributes update the view, and the follower follows.
  await page.evaluate(() => { const walk = document.getElementById('walk'); walk.setAttribute('c', '16'); walk.setAttribute('h', '4'); });
  await page.waitForFunction(() => document.getElementById('follower').shadowRoot.querySelectorAll('figure.panel').length === 4);
  await page.locator('#walk .steps button[data-id="q_heads"]').click();
  assert.equal(await page.locator('#walk .shape-text').textContent(), '[1,4,3,4]');
  // A heatmap step chosen in the stepper is shown by its follower.
  await page.locator('#walk .steps button[data-id="scaled"]').click();
  await page.waitForFunction(() => document.getElementById('follower').getAttribute('step') === 'scaled');
  assert.equal(await page.locator('#follower select.step-select').inputValue(), 'scaled');
  assert.equal(wasm.length, 1, 'still one engine');
  await page.screenshot({ path: `${ARTIFACTS}widgets-host.png`, fullPage: true });
  assert.deepEqual(problems, []);
  await context.close();
});

test('an element announces each new run once (mha-run), whatever its source', { timeout: TIMEOUT * 2 }, async () => {
  const { page, context, problems } = await open(`${host.url}pages/deep/host.html`);
  await page.locator('#walk h3').waitFor();
  await page.locator('#follower figure.panel').first().waitFor();
  await page.locator('#shapes .chip').first().waitFor();
  const runs = () => page.evaluate(() => Object.fromEntries(['walk', 'follower', 'shapes'].map((id) => [id, window.mhaRuns.filter((x) => x === id).length])));
  assert.deepEqual(await runs(), { walk: 1, follower: 1, shapes: 1 }, 'its own config, and the run it follows');
  // A new config: one more run each for the stepper and its follower.
  await page.evaluate(() => document.getElementById('walk').setAttribute('seed', '5'));
  await page.waitForFunction(() => window.mhaRuns.filter((x) => x === 'follower').length === 2);
  assert.deepEqual(await runs(), { walk: 2, follower: 2, shapes: 1 });
  // An invalid config is no run.
  await page.evaluate(() => document.getElementById('walk').setAttribute('c', '10'));
  await page.locator('#walk .element-error').waitFor();
  // A run handed in through the property: announced once, and followed.
  await page.evaluate(() => { document.getElementById('walk').run = document.getElementById('shapes').run; });
  await page.waitForFunction(() => window.mhaRuns.filter((x) => x === 'follower').length === 3);
  assert.deepEqual(await runs(), { walk: 3, follower: 3, shapes: 1 });
  assert.deepEqual(problems, []);
  await context.close();
});

test('the iframe route renders one element from its URL, tokens as text', { timeout: TIMEOUT * 2 }, async () => {
  const query = new URLSearchParams({ el: 'heatmap', b: '1', c: '8', h: '4', mask: 'causal', tokens: `${XSS} 爱 深度`, lang: 'zh', onload: 'alert(2)' });
  const { page, context, problems } = await open(`${env.url}embed.html?${query}`);
  await page.locator('mha-heatmap figure.panel').first().waitFor();
  assert.equal(await page.locator('mha-heatmap figure.panel').count(), 4);
  assert.equal(await page.evaluate(() => document.querySelector('mha-heatmap').hasAttribute('onload')), false);
  assert.equal(await page.locator('mha-heatmap h4').count(), 0, 'one batch row: no batch heading');
  assert.equal(await page.locator('mha-heatmap figcaption').first().textContent(), '头 0');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the docs page\'s embed code works when pasted into another page', { timeout: TIMEOUT * 3 }, async () => {
  const docs = await open(`${env.url}?c=12&h=4&hkv=2&mask=causal&view=masked&head=3&lang=en`);
  await docs.page.locator('mha-walkthrough h3').waitFor();
  await docs.page.locator('mha-playground button[data-action="embed"]').click();
  const snippet = await docs.page.locator('mha-playground #embed-html').inputValue();
  assert.match(snippet, new RegExp(`src="${env.url}dist/mha-lens.js"`));
  await docs.context.close();
  const body = snippet.replace(/src="[^"]+"/, 'src="../../lib/mha-lens.js"');
  await writeFile(join(site, 'pages', 'deep', 'pasted.html'), `<!doctype html><html><head><meta charset="utf-8"><link rel="icon" href="/favicon.svg"><title>pasted</title></head><body>\n${body}\n</body></html>`);
  const { page, context, problems } = await open(`${host.url}pages/deep/pasted.html`);
  await page.locator('mha-heatmap figure.panel[aria-current="true"]').waitFor();
  assert.equal(await page.locator('mha-heatmap figure.panel').count(), 8);
  assert.equal(await page.locator('mha-heatmap figure.panel[aria-current="true"]').getAttribute('data-h'), '3');
  assert.equal(await page.locator('mha-heatmap select.step-select').inputValue(), 'masked');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the Chinese tutorial example renders every element', { timeout: TIMEOUT * 2 }, async () => {
  for (const width of [1000, 360]) {
    const { page, context, problems, wasm } = await open(`${env.url}examples/tutorial-zh.html`, { width });
    await page.locator('mha-walkthrough[step="k_shared"] h3').waitFor();
    await page.locator('mha-heatmap[mask="causal"] figure.panel').waitFor();
    await page.locator('mha-heatmap[for="split"] figure.panel').first().waitFor();
    await page.locator('mha-shapes .chip').first().waitFor();
    assert.equal(await page.locator('mha-heatmap[mask="causal"] figure.panel').count(), 1, 'only the chosen head');
    assert.equal(wasm.length, 1);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${overflow}px too wide at ${width}px`);
    await page.screenshot({ path: `${ARTIFACTS}example-tutorial-zh-${width}.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  }
});
