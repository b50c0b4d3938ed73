// The docs page's "attention real models run" panel in real Chromium: the tiled mode
// steps through the tiles of one (batch, head) in the pass's order with the rows' m, ℓ and
// correction the engine computes, skipped tiles said as such, block sizes as controls, the
// memory of both passes; the incremental mode steps through decoding with the cache's measured
// bytes; both in Chinese too. Expected values come from the engine run here in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';

import { formatCount, formatValue } from '../../web/src/logic/format.js';
import { STRINGS, translator } from '../../web/src/text/translate.js';
import { ARTIFACTS, TIMEOUT, deep, launch, openPage, stepTitleIn } from './harness.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const opts = { timeout: TIMEOUT * 3 };
const CAUSAL = { B: 2, T: 4, C: 8, H: 2, mask: 'causal' };
const panel = 'mha-playground section.algorithms';

// The rows of the tile table as the page shows them.
const rowValues = (page) => deep(page, ($, $$) => $$('mha-playground', 'section.algorithms table.alg-rows tr[data-row]').map((tr) =>
  [...tr.querySelectorAll('td')].map((td) => td.textContent)));

test('tiled: the tiles in the pass\'s order, each row\'s m, ℓ and correction the engine\'s; skipped tiles said; block sizes', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&mask=causal&head=1' });
  await page.locator(panel).scrollIntoViewIfNeeded();
  await page.locator(`${panel} .alg-tile-at`).waitFor();
  const t = translator('en');
  const run = env.engine.run({ ...CAUSAL, algorithm: 'tiled', blockQ: 2, blockK: 2 });
  const tiles = run.tiles({ batch: 0 });
  assert.equal(tiles.length, 4);
  for (const [n, tile] of tiles.entries()) {
    const text = t(tile.skipped ? 'alg.tileSkipped' : 'alg.tileAt', { n: n + 1, count: tiles.length, i: tile.i, j: tile.j,
      r0: tile.rows[0], r1: tile.rows[1] - 1, c0: tile.cols[0], c1: tile.cols[1] - 1 });
    assert.equal(await page.locator(`${panel} .alg-tile-at`).textContent(), text);
    const values = run.tile(tile.i, tile.j, { batch: 0, head: 1 });
    const expected = Array.from({ length: tile.rows[1] - tile.rows[0] }, (_, k) =>
      ['maxBefore', 'max', 'correction', 'sumBefore', 'sum'].map((name) => formatValue(values[name][k])));
    assert.deepEqual(await rowValues(page), expected, `tile ${n}`);
    if (n < tiles.length - 1) await page.locator(`${panel} button[data-action="next"]`).click();
  }
  assert.ok(await page.locator(`${panel} button[data-action="next"]`).isDisabled(), 'the last tile has no next');
  assert.match(await page.locator(`${panel} .alg-counts`).textContent(), /16 in all, 12 computed, 4 skipped by the mask/);
  const diff = Number(/at most (\S+)\./.exec(await page.locator(`${panel} .alg-equal`).textContent())[1]);
  assert.ok(diff <= 1e-5, `tiled ≈ naive: ${diff}`);
  // The memory table is the engine's model for this config.
  const memory = env.engine.memory({ ...CAUSAL, blockQ: 2, blockK: 2 });
  assert.equal(await page.locator(`${panel} table.alg-memory tr[data-algorithm="tiled"] td`).first().textContent(), `${memory.tiled.scores} B`);
  assert.equal(await page.locator(`${panel} svg.curve polyline`).count(), 2);
  // A bigger block: one tile per row block, the grid redrawn.
  await page.locator(`${panel} #alg-blockK`).fill('4');
  await page.locator(`${panel} #alg-blockK`).dispatchEvent('change');
  await page.locator(`${panel} .alg-tile-at`, { hasText: 'Tile 1 of 2' }).waitFor();
  assert.equal(await page.locator(`${panel} svg.grid rect[data-tile]`).count(), 2);
  // Play animates the tiles to the last one, then stops.
  await page.locator(`${panel} button[data-action="play"]`).click();
  await page.locator(`${panel} .alg-tile-at`, { hasText: 'Tile 2 of 2' }).waitFor();
  await page.locator(`${panel} button[data-action="play"][aria-pressed="false"]`).waitFor();
  await page.locator(panel).screenshot({ path: `${ARTIFACTS}algorithms-tiled-en.png` });
  // The walkthrough above takes the tiled run, from its first tile step.
  await page.locator(`${panel} button[data-action="walk"]`).click();
  await page.locator('mha-walkthrough h3[data-step="tile_scores"]').waitFor();
  assert.equal(await page.locator('mha-walkthrough .steps button[data-id]').count(), env.engine.run({ ...CAUSAL, algorithm: 'tiled', blockQ: 2, blockK: 4 }).steps.length);
  assert.deepEqual(problems, []);
  await context.close();
});

test('incremental: decoding token by token, the cache measured beside the formula; no causal mask, a note', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=zh&mask=causal' });
  await page.locator(panel).scrollIntoViewIfNeeded();
  await page.locator(`${panel} button[data-mode="incremental"]`).click();
  await page.locator(`${panel} .alg-token-at`).waitFor();
  const zh = translator('zh');
  const run = env.engine.run({ ...CAUSAL, algorithm: 'incremental' });
  const bytes = run.cacheBytes();
  for (let step = 0; step < 4; step++) {
    const b = bytes[step];
    assert.equal(await page.locator(`${panel} .alg-cache-bytes`).textContent(), zh('alg.cacheBytes', {
      shape: `[${b.shape.join(',')}]`, measured: formatCount(b.bytes), formula: formatCount(b.formulaBytes), B: 2, tokens: b.tokens, Hkv: 2, D: 4 }));
    assert.equal(await page.locator(`${panel} svg.grid rect[data-cell]:not([data-masked])`).count(), ((step + 1) * (step + 2)) / 2, 'one new row of weights per step');
    if (step < 3) await page.locator(`${panel} button[data-action="token-next"]`).click();
  }
  const diff = Number(/(\S+)。$/.exec(await page.locator(`${panel} .alg-equal`).textContent())[1]);
  assert.ok(diff <= 1e-5, `incremental ≈ naive: ${diff}`);
  assert.equal(await page.locator(`${panel} table.alg-kv tr[data-layout]`).count(), 2, 'MHA and MQA for H = 2');
  assert.equal(await page.locator(`${panel} h2`).textContent(), STRINGS.zh['alg.title']);
  await page.locator(panel).screenshot({ path: `${ARTIFACTS}algorithms-incremental-zh.png` });
  // Without a causal mask there is nothing to decode: the panel says what to choose.
  await page.locator('mha-playground select[name="mask"]').selectOption('none');
  await page.locator(`${panel} .alg-needs-causal`).waitFor();
  assert.deepEqual(problems, []);
  await context.close();
});

test('the walkthrough walks the tiled and the decoding passes step by step, each formula rendered', opts, async () => {
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  await page.goto(`${env.url}embed.html?el=walkthrough&c=8&h=2&tokens=a+b+c+d&mask=causal&lang=en`);
  await page.locator('mha-walkthrough h3').waitFor();
  for (const algorithm of ['tiled', 'incremental']) {
    const config = { B: 1, T: 4, C: 8, H: 2, mask: 'causal', algorithm };
    const ids = env.engine.run(config).steps.map((s) => s.id);
    await page.evaluate((config) => { document.querySelector('mha-walkthrough').config = { ...config, tokens: ['a', 'b', 'c', 'd'] }; }, config);
    await page.locator(`mha-walkthrough .steps button[data-id="${ids.at(-1)}"]`).waitFor();
    for (const [i, id] of ids.entries()) {
      await page.evaluate((id) => { document.querySelector('mha-walkthrough').stepId = id; }, id);
      const h3 = page.locator(`mha-walkthrough h3[data-step="${id}"]`);
      await h3.waitFor();
      assert.equal(await h3.textContent(), `${i + 1}. ${stepTitleIn(id, 'en')}`);
      assert.ok(await page.locator('mha-walkthrough .formula math').count() > 0, `${id}: the formula is rendered MathML, not LaTeX text`);
    }
  }
  assert.deepEqual(problems, []);
  await context.close();
});
