// What a link or a file can make the page draw is bounded: a trainer layer past the trainer's in
// the URL, attention files of 65,536 tiny heads, of one long axis or of one huge head. Each once
// froze the page for seconds to minutes (or left the element loading forever); now each draws a
// bounded number of panels and picker choices, or is refused with its sizes and an mha-error.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { TIMEOUT, deep, launch, makeHostSite, openPage } from './harness.js';

let env;
let site;
let host;
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-bounds-');
  await writeFile(join(site, 'long.json'), JSON.stringify({ shape: [1, 1, 150000, 2], data: new Array(300000).fill(0.5), keyTokens: ['a', 'b'] }));
  await writeFile(join(site, 'big.json'), ' '.repeat(40 * 2 ** 20));  // 40 MiB: past the 32 MiB read
  await writeFile(join(site, 'huge.json'), JSON.stringify({ shape: [1, 1, 2048, 2048], data: new Array(2048 * 2048).fill(0) }));
  await writeFile(join(site, 'host.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="/favicon.svg">
<script type="module" src="lib/mha-lens.js"></script></head>
<body>
<mha-heatmap id="tiny" lang="en"></mha-heatmap>
<mha-heatmap id="long" src="long.json" lang="en"></mha-heatmap>
<mha-heatmap id="huge" src="huge.json" lang="zh"></mha-heatmap>
<mha-heatmap id="big" src="big.json" lang="en"></mha-heatmap>
</body></html>`);
  host = await startServer({ port: 0, root: site });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  host?.server.close();
  if (site) await rm(site, { recursive: true, force: true });
});

test('attention of 65,536 heads draws one panel and a number field; a long axis or a huge head is refused by its sizes', { timeout: TIMEOUT * 3 }, async () => {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.addInitScript(() => {
    window.mhaErrors = [];
    document.addEventListener('mha-error', (event) => window.mhaErrors.push({ id: event.target.id, message: event.detail?.message ?? String(event.detail?.error?.message) }));
    window.longTasks = [];
    new PerformanceObserver((list) => window.longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({ type: 'longtask', buffered: true });
  });
  await page.goto(`${host.url}host.html`);
  await page.waitForFunction(() => customElements.get('mha-heatmap'));
  const started = Date.now();
  // Made in the page: sending 262,144 numbers through the driver would take longer than drawing them.
  await page.evaluate(() => { document.getElementById('tiny').attention = { shape: [65536, 1, 2, 2], data: new Array(65536 * 4).fill(0.5), tokens: ['a', 'b'] }; });
  await page.waitForFunction(() => document.getElementById('tiny').shadowRoot.querySelector('figure.panel'));
  const tinyShown = await deep(page, ($, $$) => ({
    panels: $$('#tiny', 'figure.panel').length,
    picker: $('#tiny', '.pick-batch')?.tagName,
    options: $$('#tiny', 'option').length,
  }));
  console.log(`65,536 heads drawn ${Date.now() - started} ms after the property was set`);
  assert.deepEqual(tinyShown, { panels: 1, picker: 'INPUT', options: tinyShown.options });
  assert.ok(tinyShown.options < 20, `${tinyShown.options} options`);
  // The number field picks another batch row.
  await page.locator('#tiny').locator('.pick-batch').fill('65535');
  await page.locator('#tiny').locator('.pick-batch').dispatchEvent('change');
  await page.waitForFunction(() => document.getElementById('tiny').getAttribute('batch') === '65535');
  assert.equal(await deep(page, ($, $$) => $$('#tiny', 'figure.panel').map((figure) => figure.dataset.b).join()), '65535');

  await page.waitForFunction(() => window.mhaErrors.length >= 3);
  const errors = await page.evaluate(() => window.mhaErrors);
  assert.match(errors.find((e) => e.id === 'long').message, /150000 × 2 cells/);
  assert.match(errors.find((e) => e.id === 'huge').message, /2048 × 2048/);
  assert.match(errors.find((e) => e.id === 'big').message, /at most 32(\.0)? MiB is read/);
  const loading = await deep(page, ($) => ['long', 'huge', 'big'].map((id) => $(`#${id}`).shadowRoot.textContent).join(' | '));
  assert.doesNotMatch(loading, /Loading/);
  const longest = Math.max(0, ...(await page.evaluate(() => window.longTasks)));
  console.log(`longest task on the page: ${longest.toFixed(0)} ms`);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a trained-block layer far past the trainer\'s in the URL is its last layer, with one option per layer', { timeout: TIMEOUT * 3 }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?tr-block=10000000' });
  const picker = await deep(page, ($) => {
    const select = $('mha-playground', '#block-layer');
    return select && { options: select.options.length, value: select.value };
  });
  assert.ok(picker, 'the layer picker is on the page');
  assert.ok(picker.options <= 4, `${picker.options} options`);
  assert.equal(Number(picker.value), picker.options - 1);
  assert.deepEqual(problems, []);
  await context.close();
});

test('a missing or truncated checkpoint is named as such, and the trainer trains and resets from step 0', { timeout: TIMEOUT * 4 }, async () => {
  for (const [what, fulfil] of [['404', (route) => route.fulfill({ status: 404, body: 'not here' })],
    ['truncated', async (route) => {
      const response = await route.fetch();
      const body = await response.body();
      await route.fulfill({ response, body: body.subarray(0, 100) });
    }]]) {
    const context = await env.browser.newContext({ viewport: { width: 1280, height: 900 } });
    await context.route('**/checkpoints/*.mhat', fulfil);
    const { page } = await openPage(env.browser, env.url, { context });
    const trainer = page.locator('mha-trainer');
    await page.waitForFunction(() => /checkpoint/i.test(document.querySelector('mha-trainer')?.shadowRoot?.querySelector('.error')?.textContent ?? ''));
    const error = await trainer.locator('.error').first().textContent();
    assert.doesNotMatch(error, /mha_engine\.wasm/, `${what}: ${error}`);
    assert.match(error, what === '404' ? /HTTP 404/ : /damaged/, `${what}: ${error}`);
    await trainer.locator('button[data-action="step"]').click();
    await page.waitForFunction(() => document.querySelector('mha-trainer').step >= 1);
    await trainer.locator('button[data-action="reset"]').click();
    await page.waitForFunction(() => document.querySelector('mha-trainer').step === 0);
    await context.close();
  }
});
