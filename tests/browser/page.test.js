// The docs page in real headless Chromium, served by scripts/serve.js with its strict CSP. Every
// expected value comes from the engine run here in Node with the same config, never from the page.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { ARTIFACTS, TIMEOUT, cellCentre, deep, heatmapCells, launch, noProblems, openPage, stepTitleIn } from './harness.js';
import { heatmapScales, scaleFor } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { shapeText } from '../../web/src/logic/format.js';
import { STRINGS } from '../../web/src/text/translate.js';
import { DEFAULT_TOKENS, decodeState } from '../../web/src/logic/page/page-state.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };
const opts = { timeout: TIMEOUT * 3 };


/** The walkthrough as the page shows it now. */
const shownStep = (page) => deep(page, ($, $$) => ({
  id: $('mha-playground', 'mha-walkthrough', 'h3')?.dataset.step,
  shape: $('mha-playground', 'mha-walkthrough', '.shape-text')?.textContent,
  formula: $('mha-playground', 'mha-walkthrough', '.shape-formula')?.textContent,
  chips: $$('mha-playground', 'mha-walkthrough', '.chips .chip').map((chip) => chip.textContent),
  values: $('mha-playground', 'mha-walkthrough', '[data-answer="values"]')?.textContent,
  count: $('mha-playground', 'mha-walkthrough', '[data-answer="count"]')?.textContent,
  axes: $('mha-playground', 'mha-walkthrough', '[data-answer="axes"]')?.textContent,
  math: Boolean($('mha-playground', 'mha-walkthrough', '.formula math')),
}));

// The panels below the heatmaps (lessons, mistakes, self-test) are drawn when the page is idle
// after a run (mha-playground's #updatePanels); the trainer section loading beside them can push
// that back by up to the 2 s idle timeout.
const panelsDrawn = (page) => page.locator('mha-playground [data-mistake="softmaxOverQueries"] [data-side="right"] td[data-value]').first().waitFor({ state: 'attached' });

test('the walkthrough opens on the classic example and every step matches the engine', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url);
  const run = env.engine.run(CLASSIC);
  const list = await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', '.steps button').map((b) => [b.dataset.id, b.querySelector('.shape').textContent]));
  assert.deepEqual(list, run.steps.map((step) => [step.id, shapeText(step.shape)]));
  for (const [i, step] of run.steps.entries()) {
    const shown = await shownStep(page);
    assert.equal(shown.id, step.id);
    assert.equal(shown.shape, shapeText(step.shape));
    assert.equal(shown.formula, step.shapeFormula);
    assert.deepEqual(shown.chips, step.axes.map((axis, a) => `${axis}=${step.shape[a]}`));
    assert.ok(shown.values.startsWith(step.changesValues ? 'yes' : 'no'), `${step.id}: ${shown.values}`);
    assert.ok(shown.axes.includes(`${step.axes.at(-2)}=${step.shape.at(-2)}`) && shown.axes.includes(`${step.axes.at(-1)}=${step.shape.at(-1)}`));
    assert.ok(shown.math, 'the formula is MathML from KaTeX');
    assert.doesNotMatch(await page.locator('mha-walkthrough .body').textContent(), /\bnull\b|undefined/, `${step.id}: no stray text`);
    if (i === 0) assert.match(shown.count, new RegExp(`${step.numel}`));
    if (i === 7) await page.screenshot({ path: `${ARTIFACTS}walkthrough-en-desktop.png`, fullPage: false });
    if (i < run.steps.length - 1) {
      await page.locator('mha-walkthrough button[data-action="next"]').click();
      await page.locator(`mha-walkthrough h3[data-step="${run.steps[i + 1].id}"]`).waitFor();
    }
  }
  // Memory layout of a transpose: the strides the engine reports, marked as a view.
  await page.locator('mha-walkthrough .steps button[data-id="q_heads"]').click();
  await page.locator('mha-walkthrough h3[data-step="q_heads"]').waitFor();
  const strides = await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'tr[data-row="strides"] td').map((td) => Number(td.textContent)));
  assert.deepEqual(strides, run.step('q_heads').strides);
  assert.match(await page.locator('mha-walkthrough details.layout summary').textContent(), /strided view/);
  await noProblems(problems, page);
  await context.close();
});

test('heatmaps: B·H of them with tokens, rows of weights sum to 1, values and masks are the engine\'s', opts, async () => {
  const query = '?tokens=我+爱+深度学习+模型+！&b=2&c=12&h=4&hkv=2&mask=causal&key-lengths=5+3';
  const config = { B: 2, T: 5, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: [5, 3] };
  const { page, context, problems } = await openPage(env.browser, env.url, { query });
  const run = env.engine.run(config);
  const weights = run.step('weights');
  const masked = run.step('masked');
  const HEATMAP = ['mha-playground', 'mha-heatmap'];
  const panels = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel').map((figure) => ({
    b: Number(figure.dataset.b),
    h: Number(figure.dataset.h),
    rows: [...figure.querySelectorAll('text[text-anchor="end"]')].map((t) => t.textContent),
  })));
  assert.equal(panels.length, config.B * config.H);
  const groups = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.group.shared').map((g) => g.querySelectorAll('figure.panel').length));
  assert.deepEqual(groups, [2, 2, 2, 2], 'GQA: two query heads per shared K/V head box');
  const T = 5;
  // The default scale of weights: relative to each row's uniform weight, shared by the panels drawn.
  const isMasked = (i) => masked.data[i] === -Infinity;
  const scales = heatmapScales(weights, heatmapPanels(weights, config.Hkv), 'uniform', isMasked);
  for (const panel of panels) {
    const scale = scales[panel.b * config.H + panel.h];
    assert.deepEqual(panel.rows, ['我', '爱', '深度学习', '模型', '！']);
    // Every cell is drawn in the colour of the engine's weight at that (query, key), and exactly
    // the engine's masked cells are hatched.
    const shown = await heatmapCells(page, HEATMAP, { b: panel.b, h: panel.h, rows: T, cols: T });
    assert.equal(shown.cells.length, T * T);
    for (const cell of shown.cells) {
      const i = ((panel.b * config.H + panel.h) * T + cell.r) * T + cell.c;
      const isMasked = masked.data[i] === -Infinity;
      assert.equal(cell.hatched, isMasked, `mask at b${panel.b} h${panel.h} (${cell.r},${cell.c})`);
      assert.equal(cell.color, isMasked ? '#e8e8e8' : scale.color(weights.data[i], cell.r), `colour at b${panel.b} h${panel.h} (${cell.r},${cell.c})`);
    }
  }
  // The table view holds the selected head's exact values: the engine's, and each row sums to 1.
  await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view summary').click();
  await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').first().waitFor();
  const table = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view tbody tr').map((tr) => [...tr.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
  assert.deepEqual(table.flat().map(Math.fround), Array.from(weights.data.subarray(0, T * T)), 'b0 h0, from the engine');
  for (const [r, row] of table.entries()) {
    const sum = row.reduce((a, v) => a + v, 0);
    assert.ok(Math.abs(sum - 1) < 1e-5, `row ${r} sums to ${sum}`);
  }
  // Masked scores read −∞ in the table view, which stays open for the other step.
  await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').selectOption('masked');
  await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td', { hasText: '-∞' }).first().waitFor();
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view').getAttribute('open'), '');
  const cells = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view td').map((td) => td.textContent));
  assert.equal(cells.filter((text) => text.startsWith('-∞')).length, Array.from(masked.data.subarray(0, T * T)).filter((v) => v === -Infinity).length);
  await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').selectOption('weights');
  await page.locator('mha-playground section.block:nth-of-type(4)').screenshot({ path: `${ARTIFACTS}heatmaps-gqa-en.png` });
  // Hover: the pointer over a cell reads its exact value.
  const centre = await cellCentre(page, HEATMAP, { b: 0, h: 1, r: 2, c: 1, cols: T });
  await page.mouse.move(centre.x, centre.y);
  await page.locator('mha-playground section.heatmaps mha-heatmap .readout', { hasText: weights.data[((0 * config.H + 1) * T + 2) * T + 1].toFixed(4) }).waitFor();
  assert.match(await page.locator('mha-playground section.heatmaps mha-heatmap .readout').textContent(), /query “深度学习” → key “爱”/);
  // Keyboard: focus a heatmap, move with the arrows, read the exact value.
  const panel = page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-b="1"][data-h="2"]');
  await panel.focus();
  await page.keyboard.press('ArrowDown');
  await page.keyboard.press('ArrowRight');
  const expected = weights.data[((1 * config.H + 2) * T + 1) * T + 1].toFixed(4);
  await page.locator('mha-playground section.heatmaps mha-heatmap .readout', { hasText: expected }).waitFor();
  assert.match(await page.locator('mha-playground section.heatmaps mha-heatmap .readout').textContent(), /“爱” → key “爱”/);
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('head') === '2');
  assert.equal(new URLSearchParams(new URL(page.url()).search).get('batch'), '1');
  await noProblems(problems, page);
  await context.close();
});

test('a T=128 heatmap: one canvas pixel per cell, exact values on hover and in the table, repainted in place for a new seed', opts, async () => {
  const T = 128;
  const tokens = Array.from({ length: T }, (_, i) => `w${i}`);
  const config = { B: 1, T, C: 768, H: 12, mask: 'causal', seed: 5 };
  const { page, context, problems } = await openPage(env.browser, env.url, { query: `?tokens=${tokens.join('+')}&b=1&c=768&h=12&mask=causal&seed=5&head=7` });
  const HEATMAP = ['mha-playground', 'mha-heatmap'];
  let run = env.engine.run(config);
  await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-h="7"]').waitFor();
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 12, 'all twelve heads, as small multiples');
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[aria-current="true"]').getAttribute('data-h'), '7');
  const check = async (weights, masked, label) => {
    const shown = await heatmapCells(page, HEATMAP, { b: 0, h: 7, rows: T, cols: T });
    assert.deepEqual(shown.canvas, [T, T], 'one pixel per cell, not one element per cell');
    const isMasked = (i) => masked.data[i] === -Infinity;
    const scale = heatmapScales(weights, heatmapPanels(weights, 12), 'uniform', isMasked)[7];
    const offset = 7 * T * T;
    for (const cell of shown.cells) {
      const i = offset + cell.r * T + cell.c;
      if (cell.hatched !== isMasked(i)) assert.fail(`${label}: mask at (${cell.r},${cell.c})`);
      const expected = isMasked(i) ? '#e8e8e8' : scale.color(weights.data[i], cell.r);
      if (cell.color !== expected) assert.fail(`${label}: colour at (${cell.r},${cell.c}) is ${cell.color}, expected ${expected}`);
    }
  };
  await check(run.step('weights'), run.step('masked'), 'seed 5');
  // Hover reads the exact value of the cell under the pointer, however small it is drawn.
  for (const [r, c] of [[100, 37], [127, 127], [5, 0]]) {
    const centre = await cellCentre(page, HEATMAP, { b: 0, h: 7, r, c, cols: T });
    await page.mouse.move(centre.x, centre.y);
    const value = run.step('weights').data[(7 * T + r) * T + c].toFixed(4);
    await page.locator('mha-playground section.heatmaps mha-heatmap .readout', { hasText: `query “w${r}” → key “w${c}”` }).waitFor();
    assert.match(await page.locator('mha-playground section.heatmaps mha-heatmap .readout').textContent(), new RegExp(`${value}$`), `(${r}, ${c})`);
    const [tip, box] = await deep(page, ($) => [$('mha-playground', 'mha-heatmap', '.tip'), $('mha-playground', 'mha-heatmap', '.hm')].map((node) => node.getBoundingClientRect().toJSON()));
    assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap .tip').textContent(), value, 'the tip shows the value too');
    assert.ok(tip.left >= box.left && tip.right <= box.right, `the tip (${tip.left}…${tip.right}) stays inside the heatmaps (${box.left}…${box.right})`);
    assert.ok(Math.abs(tip.left - (centre.x + 12)) < 2 || Math.abs(tip.right - (centre.x - 12)) < 2, `the tip (${tip.left}…${tip.right}) sits beside the pointer (${centre.x})`);
  }
  // The table's 16 384 cells are made when it is opened, with the engine's values.
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').count(), 0, 'not built while closed');
  await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view summary').click();
  await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').first().waitFor();
  const table = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view td').map((td) => Number(td.dataset.value)));
  assert.deepEqual(table.map(Math.fround), Array.from(run.step('weights').data.subarray(7 * T * T, 8 * T * T)));

  // A new seed: the same elements, new numbers (in the pixels, the open table and the readout).
  await deep(page, ($) => { $('mha-playground', 'mha-heatmap', 'figure.panel').dataset.probe = 'kept'; });
  await page.locator('mha-playground form.controls input[name="seed"]').fill('6');
  run = env.engine.run({ ...config, seed: 6 });
  const first = run.step('weights').data[7 * T * T + T].toFixed(4); // row 1, column 0
  await page.waitForFunction((text) => {
    const root = document.querySelector('mha-playground').shadowRoot.querySelector('mha-heatmap').shadowRoot;
    return root.querySelectorAll('.table-view tbody tr')[1]?.querySelector('td')?.textContent === text;
  }, first);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-probe="kept"]').count(), 1, 'the panel was repainted, not rebuilt');
  await check(run.step('weights'), run.step('masked'), 'seed 6');
  const table6 = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view td').map((td) => Number(td.dataset.value)));
  assert.deepEqual(table6.map(Math.fround), Array.from(run.step('weights').data.subarray(7 * T * T, 8 * T * T)));
  await noProblems(problems, page);
  await context.close();
});

test('a new seed changes the numbers in place: same elements, the new run\'s values, the reader\'s answers and open tables kept', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?step=scores' });
  // Paths through the shadow roots to elements that a new seed must not replace.
  const kept = [['mha-walkthrough', '.steps ol'], ['mha-walkthrough', 'figure.picture svg'], ['[data-mistake="softmaxOverQueries"] [data-side="right"] table'],
    ['[data-card="params"]'], ['mha-shapes', 'ol'], ['li[data-question="D"] input']];
  const mark = (value) => deep(page, ($, $$, { kept, value }) => kept.map((path) => {
    const node = $('mha-playground', ...path);
    if (value) node.mhaProbe = value; // a property: patching rewrites attributes, not properties
    return node.mhaProbe ?? null;
  }), { kept, value });
  await panelsDrawn(page);
  // Every kept element is there before it is marked (on a busy machine a panel may draw a frame late).
  const present = () => deep(page, ($, $$, { kept }) => kept.every((path) => $('mha-playground', ...path)), { kept });
  for (let i = 0; i < 200 && !(await present()); i++) await page.waitForTimeout(50);
  await mark('kept');
  await page.locator('mha-walkthrough details.layout summary').click();
  await page.locator('mha-playground li[data-question="D"] input').fill('4');
  // On screen the mistakes are patched in place (off screen they are swapped, as nothing is laid
  // out): with them on screen, the seed is typed without scrolling to it.
  await page.locator('mha-playground section.mistakes').scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  await page.evaluate(() => {
    const seed = document.querySelector('mha-playground').shadowRoot.querySelector('input[name="seed"]');
    seed.value = '7';
    seed.dispatchEvent(new Event('input', { bubbles: true }));
  });
  const run = env.engine.run({ ...CLASSIC, seed: 7 });
  const rightValues = () => deep(page, ($, $$) => $$('mha-playground', '[data-mistake="softmaxOverQueries"] [data-side="right"] td[data-value]').map((td) => Number(td.dataset.value)));
  const expected = Array.from(run.step('weights').data.subarray(0, 16));
  for (let i = 0; i < 100 && JSON.stringify((await rightValues()).map(Math.fround)) !== JSON.stringify(expected); i++) await page.waitForTimeout(50);
  assert.deepEqual((await rightValues()).map(Math.fround), expected, 'the mistakes show the new run');
  const scores = run.step('scores');
  const fills = await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'figure.picture svg g rect').map((rect) => rect.getAttribute('fill')));
  assert.deepEqual(fills, Array.from(scores.data, (v) => scaleFor(scores).color(v)), 'the walkthrough\'s picture shows the new scores');
  assert.deepEqual(await mark(null), kept.map(() => 'kept'), 'the same elements');
  assert.equal(await page.locator('mha-walkthrough details.layout').getAttribute('open'), '', 'the open memory-layout table stays open');
  assert.equal(await page.locator('mha-playground li[data-question="D"] input').inputValue(), '4', 'the same questions keep the reader\'s answer');
  // Other shapes: new questions (the answer goes), new lessons.
  // The panels below the heatmaps are drawn one per task after the frame: wait for the last.
  const drawn = page.evaluate(() => new Promise((resolve) => document.querySelector('mha-playground').addEventListener('mha-panels', resolve, { once: true })));
  await page.locator('mha-playground input[name="C"]').fill('16');
  await drawn;
  await page.locator('mha-playground [data-card="params"] tr[data-h="16"]').waitFor({ state: 'attached' }); // maybe off screen, so not rendered
  assert.equal(await page.locator('mha-playground li[data-question="D"] input').inputValue(), '');
  // Stepping on (animated) and back (patched), the memory layout the reader opened stays open.
  await page.locator('mha-walkthrough button[data-action="next"]').click();
  await page.locator('mha-walkthrough h3[data-step="scaled"]').waitFor();
  assert.equal(await page.locator('mha-walkthrough details.layout').getAttribute('open'), '', 'open on the next step');
  await page.locator('mha-walkthrough button[data-action="prev"]').click();
  await page.locator('mha-walkthrough h3[data-step="scores"]').waitFor();
  assert.equal(await page.locator('mha-walkthrough details.layout').getAttribute('open'), '', 'and on the previous one');
  assert.equal(await deep(page, ($) => $('mha-playground', '[data-card="params"]').mhaProbe ?? null), null, 'new lessons for other shapes');
  await noProblems(problems, page);
  await context.close();
});

test('typing in a control while scrolled far down leaves every section drawn when it comes on screen', opts, async () => {
  // With content-visibility: auto on every section, Chromium left the controls' and the
  // walkthrough's content without boxes (drawn empty) after this sequence.
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?step=scores' });
  await page.locator('mha-playground section.mistakes').scrollIntoViewIfNeeded();
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
  const allDrawn = async (when) => {
    const sections = await page.locator('mha-playground section.block').count();
    for (let i = 0; i < sections; i++) {
      const section = page.locator('mha-playground section.block').nth(i);
      await section.scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const drawn = await section.evaluate((node) => {
        // The section's parts, and the first level inside the elements' shadow roots.
        const parts = [...node.children].flatMap((child) => [child, ...(child.shadowRoot ? [...child.shadowRoot.children] : [])]);
        return { id: node.getAttribute('aria-labelledby'), empty: parts.filter((part) => part.getBoundingClientRect().height === 0).map((part) => part.localName + (part.className ? `.${part.className}` : '')) };
      });
      // Empty by design: no error, no warnings, the embed box until asked for.
      assert.deepEqual(drawn.empty.filter((name) => !/^(p\.error|ul\.warnings|div\.embed|p\.stale-note|p\.tokens-notice|p\.note torch-status|slot)/.test(name)), [], `${when}: section ${drawn.id} has parts with no height`);
    }
  };
  await page.locator('mha-playground input[name="C"]').fill('16');
  await page.locator('mha-playground .summary-line', { hasText: 'D = 8' }).waitFor({ state: 'attached' });
  await allDrawn('after typing C');
  // The same from the top of the page into the quiz, far below.
  await page.evaluate(() => scrollTo(0, 0));
  await page.locator('mha-playground li[data-question="D"] input').fill('8');
  await page.locator('mha-playground li[data-question="D"] button[data-action="check"]').click();
  await page.locator('mha-playground li[data-question="D"] .verdict[data-ok="true"]').waitFor();
  await allDrawn('after answering in the quiz');
  assert.ok(await page.locator('mha-walkthrough button[data-action="next"]').isVisible(), 'the walkthrough can be used');
  await noProblems(problems, page);
  await context.close();
});

test('arrow keys and the play button step through the walkthrough', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url);
  const ids = env.engine.run(CLASSIC).steps.map((s) => s.id);
  await page.locator('mha-walkthrough .steps button[data-id="x"]').focus();
  await page.keyboard.press('ArrowRight');
  await page.locator(`mha-walkthrough h3[data-step="${ids[1]}"]`).waitFor();
  await page.keyboard.press('ArrowDown');
  await page.locator(`mha-walkthrough h3[data-step="${ids[2]}"]`).waitFor();
  await page.keyboard.press('ArrowLeft');
  await page.locator(`mha-walkthrough h3[data-step="${ids[1]}"]`).waitFor();
  // With nothing focused, the page's arrow keys still step.
  await page.evaluate(() => document.activeElement?.blur?.() ?? (document.activeElement.shadowRoot?.activeElement?.blur()));
  await page.evaluate(() => { const root = document.querySelector('mha-playground').shadowRoot; root.querySelector('mha-walkthrough').shadowRoot.activeElement?.blur(); });
  await page.keyboard.press('ArrowRight');
  await page.locator(`mha-walkthrough h3[data-step="${ids[2]}"]`).waitFor();
  await page.waitForFunction((id) => new URLSearchParams(location.search).get('step') === id, ids[2]);
  // Tab reaches the step controls with a visible focus ring.
  const outline = await page.locator('mha-walkthrough button[data-action="next"]').evaluate((b) => { b.focus(); return getComputedStyle(b).outlineStyle; });
  assert.notEqual(outline, 'none');
  await page.locator('mha-walkthrough button[data-action="play"]').click();
  await page.locator(`mha-walkthrough h3[data-step="${ids[3]}"]`).waitFor({ timeout: TIMEOUT });
  await page.locator('mha-walkthrough button[data-action="pause"]').click();
  await noProblems(problems, page);
  await context.close();
});

test('steps animate, unless the reader prefers reduced motion', opts, async () => {
  const count = async (page) => {
    await page.locator('mha-walkthrough button[data-action="next"]').click();
    return deep(page, ($) => $('mha-playground', 'mha-walkthrough').shadowRoot.getAnimations().length);
  };
  const moving = await openPage(env.browser, env.url, { query: '?step=q_split' });
  assert.ok(await count(moving.page) > 0, 'the transpose moves cells');
  await moving.context.close();
  const still = await openPage(env.browser, env.url, { query: '?step=q_split', reducedMotion: 'reduce' });
  assert.equal(await count(still.page), 0);
  await noProblems(still.problems, still.page);
  await still.context.close();
});

test('an invalid config shows the engine\'s message next to its control and the last run stays', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?step=q_heads' });
  const before = await shownStep(page);
  await page.locator('mha-playground input[name="H"]').fill('3');
  let expected;
  try { env.engine.run({ ...CLASSIC, H: 3 }); } catch (error) { expected = error; }
  assert.equal(expected.field, 'H');
  await page.locator('mha-playground #error-H', { hasText: expected.message }).waitFor();
  assert.equal(await page.locator('mha-playground input[name="H"]').getAttribute('aria-invalid'), 'true');
  assert.deepEqual(await shownStep(page), before, 'the last valid walkthrough stays');
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 4);
  await page.screenshot({ path: `${ARTIFACTS}error-en-desktop.png` });
  // Padding lengths that do not fit: the message sits by the key-lengths box.
  await page.locator('mha-playground input[name="H"]').fill('4');
  await page.locator('mha-walkthrough .shape-text', { hasText: shapeText(env.engine.run({ ...CLASSIC, H: 4 }).step('q_heads').shape) }).waitFor();
  assert.equal(await page.locator('mha-playground #error-H').textContent(), '');
  await page.locator('mha-playground input[name="keyLengths"]').fill('4 9');
  try { env.engine.run({ ...CLASSIC, H: 4, keyLengths: [4, 9] }); } catch (error) { expected = error; }
  await page.locator('mha-playground #error-keyLengths', { hasText: expected.message }).waitFor();
  await page.locator('mha-playground input[name="keyLengths"]').fill('');
  await page.locator('mha-playground #error-keyLengths:empty').waitFor({ state: 'attached' });
  await noProblems(problems, page);
  await context.close();
});

test('language: follows the browser, switches, is remembered, and covers the page', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { locale: 'zh-CN' });
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'zh-CN');
  assert.equal(await page.locator('mha-playground #h-walkthrough').textContent(), STRINGS.zh['wt.title']);
  assert.equal(await page.locator('mha-playground input[name="tokens"]').inputValue(), DEFAULT_TOKENS.zh);
  assert.equal(await page.locator('mha-walkthrough h3').textContent(), `1. ${stepTitleIn('x', 'zh')}`);
  await page.screenshot({ path: `${ARTIFACTS}page-zh-desktop.png`, fullPage: true });
  await page.locator('button[data-lang="en"]').click();
  await page.locator('mha-playground #h-walkthrough', { hasText: STRINGS.en['wt.title'] }).waitFor();
  assert.equal(await page.locator('header [data-i18n="page.tagline"]').textContent(), STRINGS.en['page.tagline']);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select option:checked').textContent(), stepTitleIn('weights', 'en'));
  // A new visit in the same browser (no lang in the URL) remembers English.
  const again = await openPage(env.browser, env.url, { context });
  assert.equal(await again.page.evaluate(() => document.documentElement.lang), 'en');
  // No English word left on the Chinese page outside code, symbols and token names.
  await again.page.locator('button[data-lang="zh"]').click();
  await again.page.locator('mha-playground #h-walkthrough', { hasText: STRINGS.zh['wt.title'] }).waitFor();
  const latinWords = await deep(again.page, ($) => {
    const words = [];
    const walk = (root) => {
      for (const node of root.querySelectorAll('*')) {
        if (node.shadowRoot) walk(node.shadowRoot);
        if (node.closest('code, .mono, math, svg, .chip, .shape, option[value], table, .id, .numbers, .formula, .formula-line, input, noscript, [lang="en"]')) continue;
        for (const child of node.childNodes) if (child.nodeType === 3) words.push(...(child.textContent.match(/\b[a-z]{5,}\b/gi) ?? []));
      }
    };
    walk(document.body);
    return words;
  });
  // Names that stay Latin in Chinese text: the tensors' ids, the key name, the technologies.
  // API names in the PyTorch panel stay as PyTorch writes them (nn.MultiheadAttention, nn.Linear,
  // state dict, out_proj.weight, transpose, Hugging Face). The trainer section names the model
  // and the technique as Chinese texts do (Transformer, dropout, Web Worker) and the script that
  // made its checkpoints (scripts/make_checkpoints.js); the algorithms panel names FlashAttention
  // and the real models whose shapes it works through (Mistral, Llama).
  const allowed = new Set(['softmax', 'float32', 'scores', 'weights', 'Enter', 'xtensor', 'WebAssembly', 'script', 'iframe',
    'PyTorch', 'MultiheadAttention', 'Linear', 'weight', 'state', 'State', 'transpose', 'Hugging',
    'Transformer', 'dropout', 'Dropout', 'Worker', 'scripts', 'FlashAttention', 'Mistral', 'Llama']);
  assert.deepEqual(latinWords.filter((w) => !allowed.has(w) && !/^(mha|lens)$/i.test(w)), []);
  // The engine's own message, in Chinese, next to the control at fault.
  let expected;
  try { env.engine.run({ ...CLASSIC, H: 3 }); } catch (error) { expected = error; }
  const chinese = expected.messageIn('zh');
  assert.notEqual(chinese, expected.message);
  await again.page.locator('mha-playground input[name="H"]').fill('3');
  await again.page.locator('mha-playground #error-H', { hasText: chinese }).waitFor();
  await noProblems(problems, page);
  await noProblems(again.problems, again.page);
  await context.close();
});

test('the URL holds the whole view and a link reopens it', opts, async () => {
  const query = '?tokens=a+b+c&b=1&tk=5&c=12&h=4&hkv=1&mask=causal&bias=0&seed=9&step=k_t&view=scaled&batch=0&head=3&lang=en';
  const { page, context, problems } = await openPage(env.browser, env.url, { query });
  assert.equal((await shownStep(page)).id, 'k_t');
  assert.equal(await page.locator('mha-playground input[name="C"]').inputValue(), '12');
  assert.equal(await page.locator('mha-playground input[name="Tk"]').inputValue(), '5');
  assert.equal(await page.locator('mha-playground input[name="bias"]').isChecked(), false);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').inputValue(), 'scaled');
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[aria-current="true"]').getAttribute('data-h'), '3');
  const run = env.engine.run({ B: 1, T: 3, Tk: 5, C: 12, H: 4, Hkv: 1, mask: 'causal', bias: false, seed: 9 });
  assert.equal((await shownStep(page)).shape, shapeText(run.step('k_t').shape));
  await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view summary').click();
  await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').first().waitFor();
  const values = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view td').map((td) => Number(td.dataset.value)));
  assert.deepEqual(values.map(Math.fround), Array.from(run.step('scaled').data.subarray(3 * 15, 4 * 15)), 'the selected head 3, in the table view');
  const scaled = scaleFor(run.step('scaled'));
  const shown = await heatmapCells(page, ['mha-playground', 'mha-heatmap'], { b: 0, h: 3, rows: 3, cols: 5 });
  assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(run.step('scaled').data.subarray(3 * 15, 4 * 15), (v) => scaled.color(v)), 'and drawn in its colours');
  assert.deepEqual(decodeState(new URL(page.url()).search), decodeState(query), 'the page writes back what it read');
  // A change goes into the URL, and that URL opens the same view.
  await page.locator('mha-playground form.controls input[name="seed"]').fill('10');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '10');
  await page.locator('mha-walkthrough button[data-action="next"]').click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('step') === 'scores');
  const link = new URL(page.url()).search;
  const reopened = await openPage(env.browser, env.url, { query: link });
  assert.equal((await shownStep(reopened.page)).id, 'scores');
  assert.equal(await reopened.page.locator('mha-playground form.controls input[name="seed"]').inputValue(), '10');
  await noProblems(problems, page);
  await noProblems(reopened.problems, reopened.page);
  await context.close();
  await reopened.context.close();
});

test('exports download a valid PNG, SVG and JSON of the current view', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?head=1&mask=causal' });
  const run = env.engine.run({ ...CLASSIC, mask: 'causal' });
  const grab = async (selector) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
    return { name: download.suggestedFilename(), bytes: await readFile(await download.path()) };
  };
  const png = await grab('mha-playground section.heatmaps mha-heatmap button[data-export="png"]');
  assert.deepEqual([...png.bytes.subarray(0, 8)], [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);
  assert.ok(png.bytes.readUInt32BE(16) > 50 && png.bytes.readUInt32BE(20) > 50, 'a real image size');
  assert.match(png.name, /weights-b0-h1\.png$/);
  await writeFile(`${ARTIFACTS}export-weights-b0-h1.png`, png.bytes);
  const svgFile = await grab('mha-playground section.heatmaps mha-heatmap button[data-export="svg"]');
  const svgText = svgFile.bytes.toString('utf8');
  assert.match(svgText, /^<\?xml/);
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: Boolean(doc.querySelector('parsererror')), values: [...doc.querySelectorAll('rect[data-value]')].map((r) => Number(r.getAttribute('data-value'))) };
  }, svgText);
  assert.equal(parsed.error, false);
  assert.deepEqual(parsed.values.map(Math.fround), Array.from(run.step('weights').data.subarray(16, 32)), 'head 1 of batch 0');
  const json = JSON.parse((await grab('mha-playground button[data-export="json"]')).bytes.toString('utf8'));
  assert.deepEqual(json.steps.map((s) => s.id), run.steps.map((s) => s.id));
  assert.deepEqual(json.steps.find((s) => s.id === 'masked').data.slice(0, 4), Array.from(run.step('masked').data.subarray(0, 4), (v) => (Number.isFinite(v) ? v : String(v))));
  assert.equal(json.summary.parameterCount, run.summary.parameterCount);
  await noProblems(problems, page);
  await context.close();
});

test('the mistakes panel shows real wrong versions and the self-test checks answers', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url);
  const run = env.engine.run(CLASSIC);
  await panelsDrawn(page);
  const sums = await deep(page, ($, $$) => ({
    wrongCols: $$('mha-playground', '[data-mistake="softmaxOverQueries"] [data-side="wrong"] td[data-colsum]').map((td) => Number(td.dataset.colsum)),
    wrongRows: $$('mha-playground', '[data-mistake="softmaxOverQueries"] [data-side="wrong"] td[data-rowsum]').map((td) => Number(td.dataset.rowsum)),
    rightRows: $$('mha-playground', '[data-mistake="softmaxOverQueries"] [data-side="right"] td[data-rowsum]').map((td) => Number(td.dataset.rowsum)),
    rightValues: $$('mha-playground', '[data-mistake="softmaxOverQueries"] [data-side="right"] td[data-value]').map((td) => Number(td.dataset.value)),
  }));
  assert.equal(sums.wrongCols.length, 4);
  for (const s of [...sums.wrongCols, ...sums.rightRows]) assert.ok(Math.abs(s - 1) < 1e-5);
  assert.ok(sums.wrongRows.some((s) => Math.abs(s - 1) > 1e-3));
  assert.deepEqual(sums.rightValues.map(Math.fround), Array.from(run.step('weights').data.subarray(0, 16)));
  assert.equal(await page.locator('[data-mistake="noTranspose"] [data-result="silent"]').count(), 1, 'T = D = 4 hides it');
  // The lessons' numbers are the engine's: KV cache for MHA and MQA, scores size at this T.
  const kv = await deep(page, ($, $$) => $$('mha-playground', '[data-card="kv"] td[data-bytes]').map((td) => Number(td.dataset.bytes)));
  assert.deepEqual(kv, [env.engine.run({ ...CLASSIC, Hkv: 2 }).summary.kvCacheBytesPerToken, env.engine.run({ ...CLASSIC, Hkv: 1 }).summary.kvCacheBytesPerToken]);
  const growthRow = await page.locator('mha-playground [data-card="growth"] tr[data-t="4"] td').allTextContents();
  assert.equal(growthRow[1], run.step('scores').numel.toLocaleString('en-US'));
  assert.equal(growthRow[2], run.summary.flops.toLocaleString('en-US'));
  assert.equal(await page.locator('mha-playground [data-card="params"] tr[data-h="4"] td').nth(2).textContent(), env.engine.run({ ...CLASSIC, H: 4 }).summary.parameterCount.toLocaleString('en-US'));
  assert.equal(await page.locator('[data-warning="equal.transposeK"]').count(), 1);
  // Five tokens: T ≠ D, the same mistake is a shape error, and the warning goes away.
  await page.locator('mha-playground input[name="tokens"]').fill('one two three four five');
  await page.locator('[data-mistake="noTranspose"] [data-result="shape-error"]').waitFor();
  assert.equal(await page.locator('[data-warning="equal.transposeK"]').count(), 0);
  const run5 = env.engine.run({ ...CLASSIC, T: 5 });
  const answers = { D: run5.summary.D, scores: `[${run5.step('scores').shape.join(', ')}]`, q_heads: run5.step('q_heads').shape.join('×'), weights: run5.step('weights').numel, params: run5.summary.parameterCount };
  for (const [id, answer] of Object.entries(answers)) {
    await page.locator(`mha-playground li[data-question="${id}"] input`).fill(String(answer));
    await page.locator(`mha-playground li[data-question="${id}"] button[data-action="check"]`).click();
    await page.locator(`mha-playground li[data-question="${id}"] .verdict[data-ok="true"]`).waitFor();
  }
  await page.locator('mha-playground li[data-question="scores"] input').fill('[2,2,4,4]');
  await page.locator('mha-playground li[data-question="scores"] input').press('Enter');
  await page.locator('mha-playground li[data-question="scores"] .verdict[data-ok="false"]').waitFor();
  await page.locator('mha-playground section.mistakes').screenshot({ path: `${ARTIFACTS}mistakes-en.png` });
  await noProblems(problems, page);
  await context.close();
});

for (const lang of ['zh', 'en']) {
  test(`a 360 px phone (${lang}): nothing overflows sideways`, opts, async () => {
    const { page, context, problems } = await openPage(env.browser, env.url, { width: 360, height: 740, query: `?lang=${lang}&step=q_heads&mask=causal` });
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `page is ${overflow}px wider than the screen`);
    // Sections are drawn when they come on screen (content-visibility: auto) and clip what would
    // stick out: bring each one on screen and check that its own content fits it.
    const sections = await page.locator('mha-playground section.block').count();
    for (let i = 0; i < sections; i++) {
      const section = page.locator('mha-playground section.block').nth(i);
      await section.scrollIntoViewIfNeeded();
      await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => requestAnimationFrame(resolve))));
      const [scrollWidth, clientWidth, id] = await section.evaluate((node) => [node.scrollWidth, node.clientWidth, node.getAttribute('aria-labelledby')]);
      assert.ok(scrollWidth - clientWidth <= 1, `section ${id} holds content ${scrollWidth - clientWidth}px wider than itself`);
    }
    await page.screenshot({ path: `${ARTIFACTS}page-${lang}-360.png`, fullPage: true });
    await page.locator('mha-walkthrough').screenshot({ path: `${ARTIFACTS}walkthrough-${lang}-360.png` });
    await page.locator('mha-playground section.heatmaps mha-heatmap').screenshot({ path: `${ARTIFACTS}heatmaps-${lang}-360.png` });
    await noProblems(problems, page);
    await context.close();
  });
}
