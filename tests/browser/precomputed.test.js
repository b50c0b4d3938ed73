// Precomputed attention and the heatmap's author options on pages that are not the docs
// page, under a strict CSP: web/examples/precomputed.html drawing web/examples/attention.json (as
// scripts/export_attention.py wrote it), the `attention` property, refusals in both languages,
// cell-size and label-length, and one batch row for one sentence.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { ARTIFACTS, TIMEOUT, deep, heatmapCells, launch, makeHostSite } from './harness.js';
import { heatmapScales } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { readAttention } from '../../web/src/logic/heatmap/attention-file.js';

const HOST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
const EXAMPLE = JSON.parse(await readFile(new URL('../../web/examples/attention.json', import.meta.url), 'utf8'));

let env;
let site;
let host;
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-precomputed-');
  await writeFile(join(site, 'attention.json'), JSON.stringify(EXAMPLE));
  await writeFile(join(site, 'bad.json'), JSON.stringify({ ...EXAMPLE, data: EXAMPLE.data.map((v, i) => (i === 5 ? 3.5 : v)) }));
  await writeFile(join(site, 'script.json'), '<script>window.__pwned = 1</script>');
  await writeFile(join(site, 'host.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="/favicon.svg">
<script type="module" src="lib/mha-lens.js"></script></head>
<body>
<mha-heatmap id="file" src="attention.json" lang="en"></mha-heatmap>
<mha-heatmap id="bad" src="bad.json" lang="zh"></mha-heatmap>
<mha-heatmap id="script" src="script.json" lang="en"></mha-heatmap>
<mha-heatmap id="missing" src="nope.json" lang="en"></mha-heatmap>
<mha-heatmap id="prop" lang="en"></mha-heatmap>
<mha-heatmap id="sized" tokens="the cat sat on the mat" c="12" h="3" cell-size="30" label-length="2" lang="en"></mha-heatmap>
<mha-heatmap id="two" tokens="the cat sat" b="2" lang="en"></mha-heatmap>
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
  const requests = [];
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource: .*404/.test(m.text())) problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => requests.push(new URL(r.url()).pathname));
  await page.addInitScript(() => {
    window.mhaErrors = [];
    document.addEventListener('mha-error', (event) => window.mhaErrors.push({ id: event.target.id, ...event.detail }));
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(url);
  return { page, context, problems, requests };
}

test('the worked example draws attention.json under the docs page\'s CSP, without the engine', { timeout: TIMEOUT * 3 }, async () => {
  for (const width of [1000, 360]) {
    const { page, context, problems, requests } = await open(`${env.url}examples/precomputed.html`, { width });
    await page.locator('#heads figure.panel[data-h="1"]').waitFor();
    await page.locator('#mean figure.panel').waitFor();
    const attention = readAttention(EXAMPLE);
    const step = { op: 'softmax', shape: attention.shape, data: attention.data };
    const scales = heatmapScales(step, heatmapPanels(step, 2), 'uniform');
    for (const h of [0, 1]) {
      const shown = await heatmapCells(page, ['#heads'], { b: 0, h, rows: 8, cols: 8 });
      assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(attention.data.subarray(h * 64, h * 64 + 64), (v, i) => scales[h].color(v, Math.floor(i / 8))), `head ${h}`);
    }
    const labels = await deep(page, ($, $$) => $$('#heads', 'figure.panel[data-h="0"] text[text-anchor="end"]').map((t) => t.textContent));
    assert.deepEqual(labels, EXAMPLE.tokens);
    assert.equal(await page.locator('#heads .attention-title').textContent(), EXAMPLE.title);
    assert.equal(await page.locator('#mean figure.panel').count(), 1, 'the mean of the two heads');
    assert.ok(!requests.some((path) => path.endsWith('.wasm')), 'no engine for precomputed attention');
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `${overflow}px too wide at ${width}px`);
    await page.screenshot({ path: `${ARTIFACTS}example-precomputed-${width}.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('bad files are refused with a message in the element\'s language, nothing run; the property is checked too', { timeout: TIMEOUT * 3 }, async () => {
  const { page, context, problems } = await open(`${host.url}host.html`);
  await page.locator('#file figure.panel').first().waitFor();
  await page.locator('#bad .element-error').waitFor();
  assert.match(await page.locator('#bad .element-error').textContent(), /^无法绘制这份注意力（bad\.json）：data\[5\] = 3\.5 不在 \[0, 1\] 内/);
  await page.locator('#script .element-error').waitFor();
  assert.match(await page.locator('#script .element-error').textContent(), /script\.json.*This is not JSON/);
  await page.locator('#missing .element-error', { hasText: 'HTTP 404' }).waitFor();
  assert.equal(await page.evaluate(() => window.__pwned ?? null), null);
  // The property: nested arrays [H][Tq][Tk] with the element's tokens; a ragged array refused.
  await page.evaluate(() => {
    const element = document.getElementById('prop');
    element.tokens = ['x', 'y'];
    element.attention = [[[0.9, 0.1], [0.3, 0.7]], [[0.5, 0.5], [1, 0]]];
  });
  await page.locator('#prop figure.panel[data-h="1"]').waitFor();
  const rows = await deep(page, ($, $$) => $$('#prop', 'figure.panel[data-h="1"] text[text-anchor="end"]').map((t) => t.textContent));
  assert.deepEqual(rows, ['x', 'y']);
  await page.evaluate(() => { document.getElementById('prop').attention = [[[0.5, 0.5], [1]]]; });
  await page.locator('#prop .element-error', { hasText: 'not rectangular' }).waitFor();
  const errors = await page.evaluate(() => window.mhaErrors.map((e) => [e.id, e.field]));
  for (const id of ['bad', 'script', 'missing', 'prop']) assert.ok(errors.some(([element, field]) => element === id && field === 'attention'), `${id} fired mha-error`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('cell-size and label-length are the author\'s; one sentence is one batch row unless b says two', { timeout: TIMEOUT * 3 }, async () => {
  const { page, context, problems } = await open(`${host.url}host.html`);
  await page.locator('#sized figure.panel').first().waitFor();
  assert.equal(await page.locator('#sized figure.panel').count(), 3, 'B = 1 (one sentence), H = 3');
  const grid = await deep(page, ($) => {
    const object = $('#sized', 'figure.panel foreignObject');
    return { cell: object.width.baseVal.value / 6, labels: [...$('#sized', 'figure.panel').querySelectorAll('text[text-anchor="end"]')].map((t) => t.textContent) };
  });
  assert.equal(grid.cell, 30);
  assert.deepEqual(grid.labels, ['t…', 'c…', 's…', 'on', 't…', 'm…']);
  await page.locator('#two figure.panel').first().waitFor();
  assert.equal(await page.locator('#two figure.panel').count(), 4, 'b="2": two batch rows of 2 heads');
  // Its own config has seeded weights: the note, without a link (no trained-href on this page).
  assert.equal(await page.locator('#sized .seeded-note').count(), 1);
  assert.equal(await page.locator('#sized .seeded-note a').count(), 0);
  assert.equal(await page.locator('#file .seeded-note').count(), 0, 'precomputed attention is a trained model\'s');
  assert.deepEqual(problems, []);
  await context.close();
});
