// The heatmaps in real Chromium: colour scales with their numbers (on screen and in the
// exports), the seeded-weights note, the average over heads, the grid of small multiples at the
// seed size and at T = 128 (with the batch and head picker, hover, keyboard, hatching and the
// table), and exports of hostile tokens. Expected values come from the engine
// run in Node and the page's own pure modules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, writeFile } from 'node:fs/promises';
import { ARTIFACTS, TIMEOUT, cellCentre, deep, heatmapCells, launch, noProblems, openPage } from './harness.js';
import { heatmapScales, legendNumbers, viridis } from '../../web/src/logic/heatmap/colors.js';
import { averageOverHeads, heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { STRINGS } from '../../web/src/text/translate.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const opts = { timeout: TIMEOUT * 4 };
const EN = STRINGS.en;
const HEATMAP = ['mha-playground', 'mha-heatmap'];
const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };


const legendText = (page) => deep(page, ($) => ['min', 'mid', 'max', 'note'].map((k) => $('mha-playground', 'mha-heatmap', `[data-legend="${k}"]`).textContent));

test('colour scales: relative to uniform by default, per head, fixed 0–1; the legend gives each one\'s numbers', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const run = env.engine.run(CLASSIC);
  const weights = run.step('weights');
  const panels = heatmapPanels(weights, 2);
  const t = (key, params) => EN[key].replace(/\{(\w+)\}/g, (_, name) => params?.[name] ?? '');
  assert.deepEqual(await page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select option').allTextContents(), [EN['hm.scale.uniform'], EN['hm.scale.head'], EN['hm.scale.fixed']]);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select').inputValue(), 'uniform');
  const expectColors = async (kind) => {
    const scales = heatmapScales(weights, panels, kind);
    for (const [p, panel] of panels.entries()) {
      const shown = await heatmapCells(page, HEATMAP, { b: panel.b, h: panel.h, rows: 4, cols: 4 });
      assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(weights.data.subarray(panel.offset, panel.offset + 16), (v, i) => scales[p].color(v, Math.floor(i / 4))), `${kind}, panel ${p}`);
    }
    return scales;
  };
  let scales = await expectColors('uniform');
  const uniformLegend = legendNumbers(scales[0], weights, t);
  assert.deepEqual(await legendText(page), [...uniformLegend.numbers, ''], 'weight 0, 1/Tk, twice uniform: the scale\'s least range');
  assert.equal(uniformLegend.numbers[1], '1/4 = 0.250');
  // Seeded near-uniform weights stay pale relative to uniform, yet still distinct shades.
  const distinct = async () => new Set((await heatmapCells(page, HEATMAP, { b: 0, h: 0, rows: 4, cols: 4 })).cells.map((cell) => cell.color)).size;
  assert.ok(await distinct() >= 12);
  await page.screenshot({ path: `${ARTIFACTS}heatmaps-scale-uniform-en.png` });

  await page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select').selectOption('head');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('scale') === 'head');
  scales = await expectColors('head');
  const ranges = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel .range').map((span) => span.textContent));
  assert.deepEqual(ranges, scales.map((s) => `${s.min.toFixed(3)}–${s.max.toFixed(3)}`), 'each panel says its own range');
  assert.deepEqual((await legendText(page)).slice(0, 3), [scales[0].min.toFixed(3), '', scales[0].max.toFixed(3)], 'the legend: the selected head\'s');

  await page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select').selectOption('fixed');
  scales = await expectColors('fixed');
  assert.deepEqual((await legendText(page)).slice(0, 3), ['0.000', '', '1.000']);
  const cellsNow = (await heatmapCells(page, HEATMAP, { b: 0, h: 0, rows: 4, cols: 4 })).cells.map((cell) => cell.color);
  const channels = (color) => [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16));
  const spread = Math.max(...[0, 1, 2].map((k) => Math.max(...cellsNow.map((c) => channels(c)[k])) - Math.min(...cellsNow.map((c) => channels(c)[k]))));
  assert.ok(spread < 24, `on 0–1 seeded weights are nearly one colour (channels within ${spread})`);
  assert.equal(scales[0].color(1), viridis(1));
  // Scores: shared (0 in the middle) or per head.
  await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').selectOption('scaled');
  assert.deepEqual(await page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select option').allTextContents(), [EN['hm.scale.shared'], EN['hm.scale.head']]);
  const mid = (await legendText(page))[1];
  assert.equal(mid, '0.000');
  // A reload keeps the scale.
  await page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').selectOption('weights');
  await page.waitForTimeout(400); // the URL is written once things are quiet
  await page.waitForFunction(() => new URLSearchParams(location.search).get('view') === null && new URLSearchParams(location.search).get('scale') === 'fixed');
  const again = await openPage(env.browser, env.url, { query: new URL(page.url()).search });
  assert.equal(await again.page.locator('mha-playground section.heatmaps mha-heatmap select.scale-select').inputValue(), 'fixed');
  await again.context.close();
  await noProblems(problems, page);
  await context.close();
});

test('seeded weights say they give near-uniform attention and link the trained section', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const note = page.locator('mha-playground section.heatmaps mha-heatmap .seeded-note');
  assert.match(await note.textContent(), /random weights give near-uniform attention/);
  const link = page.locator('mha-playground section.heatmaps mha-heatmap a.trained-link');
  assert.equal(await link.getAttribute('href'), '#trained');
  assert.equal(await link.textContent(), EN['hm.trainedLink']);
  // The section will live on the docs page: the link goes to it (here a stand-in).
  await page.evaluate(() => {
    const section = document.createElement('section');
    section.id = 'trained';
    section.style.cssText = 'height: 2000px';
    section.textContent = 'What attention learns';
    document.querySelector('main').append(section);
  });
  await link.click();
  // The section is the fragment's target (where it then sits depends on the panels above it,
  // drawn as they come on screen).
  await page.waitForFunction(() => location.hash === '#trained' && document.querySelector(':target')?.id === 'trained');
  await noProblems(problems, page);
  await context.close();
});

test('the average over heads: one panel per batch row, the mean of the heads, said to be PyTorch\'s default', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&mask=causal' });
  await page.locator('mha-playground section.heatmaps mha-heatmap input.average').check();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('avg') === '1');
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 2);
  assert.match(await page.locator('mha-playground section.heatmaps mha-heatmap .average-note').textContent(), /average_attn_weights=True/);
  const run = env.engine.run({ ...CLASSIC, mask: 'causal' });
  const mean = averageOverHeads(run.step('weights'));
  const masked = run.step('masked');
  const isMasked = (i) => masked.data[(Math.floor(i / 16) * 2) * 16 + (i % 16)] === -Infinity;
  const scales = heatmapScales(mean, heatmapPanels(mean, 1), 'uniform', isMasked);
  for (const b of [0, 1]) {
    const shown = await heatmapCells(page, HEATMAP, { b, h: 0, rows: 4, cols: 4 });
    assert.deepEqual(shown.cells.map((cell) => cell.hatched), Array.from({ length: 16 }, (_, i) => isMasked(b * 16 + i)));
    assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(mean.data.subarray(b * 16, b * 16 + 16), (v, i) => (isMasked(b * 16 + i) ? '#e8e8e8' : scales[b].color(v, Math.floor(i / 4)))));
  }
  await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view summary').click();
  await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').first().waitFor();
  const table = await deep(page, ($, $$) => $$(...['mha-playground', 'mha-heatmap'], '.table-view td').map((td) => Number(td.dataset.value)));
  assert.deepEqual(table.map(Math.fround), Array.from(mean.data.subarray(0, 16)));
  await noProblems(problems, page);
  await context.close();
});

test('the grid of small multiples fills the width, with full-length labels, on a desktop and on a phone', opts, async () => {
  const boxes = (page) => deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel').map((figure) => {
    const box = figure.getBoundingClientRect();
    return { top: Math.round(box.top), left: box.left, right: box.right };
  }));
  for (const [width, lang, perRow] of [[1280, 'en', 4], [1280, 'zh', 4], [360, 'en', 2], [360, 'zh', 2]]) {
    const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=${lang}`, width, height: width > 400 ? 900 : 740 });
    const shown = await boxes(page);
    const firstRow = shown.filter((box) => box.top === shown[0].top);
    assert.equal(firstRow.length, perRow, `${width}px ${lang}: ${perRow} heatmaps side by side`);
    const host = await page.locator('mha-playground section.heatmaps mha-heatmap').evaluate((node) => node.getBoundingClientRect().toJSON());
    assert.ok(Math.max(...shown.map((box) => box.right)) <= host.right + 1, 'inside the element');
    const rows = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel[data-b="0"][data-h="0"] text[text-anchor="end"]').map((t) => t.textContent));
    assert.deepEqual(rows, lang === 'en' ? ['I', 'love', 'deep', 'learning'] : ['我', '爱', '深度', '学习'], 'full-length labels');
    await page.locator('mha-playground section.heatmaps mha-heatmap').screenshot({ path: `${ARTIFACTS}heatmaps-seed-${lang}-${width}.png` });
    await noProblems(problems, page);
    await context.close();
  }
});

test('walkthrough pictures keep their row labels legible at 360 px', opts, async () => {
  for (const lang of ['en', 'zh']) {
    const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=${lang}&step=q_split`, width: 360, height: 740 });
    const sizes = await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'text.row-label').map((text) => text.getBoundingClientRect().height));
    assert.ok(sizes.length >= 4, `${sizes.length} row labels`);
    assert.ok(Math.min(...sizes) >= 9, `${lang}: row labels ${Math.min(...sizes).toFixed(1)} px tall on screen`);
    await page.locator('mha-walkthrough').screenshot({ path: `${ARTIFACTS}walkthrough-q_split-${lang}-360.png` });
    await noProblems(problems, page);
    await context.close();
  }
});

test('T = 128, C = 768, H = 12, B = 2: one batch row of small multiples, a picker for the rest; hover, keys, hatch, table', opts, async () => {
  const T = 128;
  const tokens = Array.from({ length: T }, (_, i) => `w${i}`);
  const config = { B: 2, T, C: 768, H: 12, mask: 'causal', seed: 4 };
  for (const lang of ['en', 'zh']) {
    const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=${lang}&tokens=${tokens.join('+')}&c=768&h=12&mask=causal&seed=4` });
    await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-h="11"]').waitFor();
    assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 12, 'batch row 0\'s twelve heads');
    assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-b="1"]').count(), 0);
    assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap .picker').count(), 1, 'not every panel is drawn: a picker');
    await page.locator('mha-playground section.heatmaps mha-heatmap').screenshot({ path: `${ARTIFACTS}heatmaps-T128-${lang}-1280.png` });
    if (lang === 'zh') {
      await noProblems(problems, page);
      await context.close();
      continue;
    }
    // Batch row 1, head 5, from the picker.
    await page.locator('mha-playground section.heatmaps mha-heatmap select.pick-batch').selectOption('1');
    await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-b="1"][data-h="0"]').waitFor();
    await page.locator('mha-playground section.heatmaps mha-heatmap select.pick-head').selectOption('5');
    await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-b="1"][data-h="5"][aria-current="true"]').waitFor();
    await page.waitForFunction(() => new URLSearchParams(location.search).get('batch') === '1' && new URLSearchParams(location.search).get('head') === '5');
    const run = env.engine.run(config);
    const weights = run.step('weights');
    const masked = run.step('masked');
    const isMasked = (i) => masked.data[i] === -Infinity;
    const drawn = heatmapPanels(weights, 12).filter((p) => p.b === 1);
    const scale = heatmapScales(weights, drawn, 'uniform', isMasked)[5];
    const shown = await heatmapCells(page, HEATMAP, { b: 1, h: 5, rows: T, cols: T });
    assert.deepEqual(shown.canvas, [T, T], 'one canvas pixel per cell');
    const offset = (12 + 5) * T * T;
    for (const cell of shown.cells) {
      const i = offset + cell.r * T + cell.c;
      if (cell.hatched !== isMasked(i)) assert.fail(`hatch at (${cell.r},${cell.c})`);
      if (cell.color !== (isMasked(i) ? '#e8e8e8' : scale.color(weights.data[i], cell.r))) assert.fail(`colour at (${cell.r},${cell.c})`);
    }
    // Hover and keyboard read exact values.
    const centre = await cellCentre(page, HEATMAP, { b: 1, h: 5, r: 90, c: 40, cols: T });
    await page.mouse.move(centre.x, centre.y);
    await page.locator('mha-playground section.heatmaps mha-heatmap .readout', { hasText: `query “w90” → key “w40”: ${weights.data[offset + 90 * T + 40].toFixed(4)}` }).waitFor();
    await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-b="1"][data-h="5"]').focus();
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowDown');
    await page.keyboard.press('ArrowRight');
    await page.locator('mha-playground section.heatmaps mha-heatmap .readout', { hasText: `query “w2” → key “w1”: ${weights.data[offset + 2 * T + 1].toFixed(4)}` }).waitFor();
    // The table view of the selected head.
    await page.locator('mha-playground section.heatmaps mha-heatmap details.table-view summary').click();
    await page.locator('mha-playground section.heatmaps mha-heatmap .table-view td').first().waitFor();
    const table = await deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', '.table-view td').map((td) => Number(td.dataset.value)));
    assert.deepEqual(table.map(Math.fround), Array.from(weights.data.subarray(offset, offset + T * T)));
    await noProblems(problems, page);
    await context.close();
  }
});

test('every export holds with hostile tokens: U+0001, U+FFFE, a lone surrogate, markup', opts, async () => {
  // Such a token made the SVG not well-formed, the PNG button throw and the
  // parse of the broken SVG log CSP violations.
  const tokens = ['a\u0001b', 'x\uFFFEy', 'lone\uD800', '<b>&amp;</b>'];
  const query = new URLSearchParams({ tokens: tokens.join(' '), lang: 'en', mask: 'causal' });
  const { page, context, problems } = await openPage(env.browser, env.url, { query: `?${query}` });
  const grab = async (selector) => {
    const [download] = await Promise.all([page.waitForEvent('download'), page.locator(selector).click()]);
    return readFile(await download.path());
  };
  const svgText = (await grab('mha-playground section.heatmaps mha-heatmap button[data-export="svg"]')).toString('utf8');
  const parsed = await page.evaluate((text) => {
    const doc = new DOMParser().parseFromString(text, 'image/svg+xml');
    return { error: doc.querySelector('parsererror')?.textContent ?? null, labels: [...doc.querySelectorAll('svg svg text[text-anchor="end"]')].map((t) => t.textContent),
      legend: [...doc.querySelectorAll('g.legend text')].map((t) => t.textContent), cells: doc.querySelectorAll('rect[data-value]').length };
  }, svgText);
  assert.equal(parsed.error, null, 'well-formed XML');
  assert.deepEqual(parsed.labels, ['a\uFFFDb', 'x\uFFFDy', 'lone\uFFFD', '<b>&amp;</b>'], 'what XML cannot hold becomes U+FFFD; markup stays text');
  assert.equal(parsed.cells, 16);
  assert.ok(parsed.legend.some((text) => text.includes('1/')), `the legend with its numbers: ${parsed.legend}`);
  await writeFile(`${ARTIFACTS}export-hostile.svg`, svgText);
  const png = await grab('mha-playground section.heatmaps mha-heatmap button[data-export="png"]');
  assert.deepEqual([...png.subarray(0, 4)], [0x89, 0x50, 0x4e, 0x47], 'a PNG');
  await writeFile(`${ARTIFACTS}export-hostile.png`, png);
  const json = JSON.parse((await grab('mha-playground button[data-export="json"]')).toString('utf8'));
  // (A lone surrogate cannot travel in a URL: the query brought it as U+FFFD already.)
  assert.deepEqual(json.tokens, await page.evaluate(() => document.getElementById('playground').labels), 'JSON holds every character (escaped)');
  assert.equal(json.tokens[0], 'a\u0001b');
  await page.locator('mha-playground button[data-action="embed"]').click();
  assert.match(await page.locator('mha-playground #embed-html').inputValue(), /&lt;b&gt;&amp;amp;&lt;\/b&gt;/);
  await noProblems(problems, page);
  await context.close();
});

test('a URL for 1,200 tokens stays under the limit and opens the same run, saying the labels were cut', opts, async () => {
  const tokens = Array.from({ length: 1200 }, (_, i) => `词${i}`);
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=zh&b=1&h=1' });
  await page.locator('mha-playground input[name="tokens"]').fill(tokens.join(' '));
  await page.locator('mha-playground .summary-line', { hasText: 'T = 1200' }).waitFor();
  await page.waitForFunction(() => /[?&]t=1200\b/.test(location.search));
  const url = new URL(page.url());
  assert.ok(url.pathname.length + url.search.length + url.hash.length <= 4000, `${url.href.length} characters`);
  const reopened = await openPage(env.browser, env.url, { query: `${url.search}${url.hash}`, locale: 'zh-CN' });
  await reopened.page.locator('mha-playground .summary-line', { hasText: 'T = 1200' }).waitFor();
  const notice = await reopened.page.locator('mha-playground .tokens-notice').textContent();
  assert.match(notice, /1200/);
  const given = Number(/前 (\d+) 个/.exec(notice)[1]);
  const labels = (await reopened.page.locator('mha-playground input[name="tokens"]').inputValue()).split(' ');
  assert.deepEqual(labels.slice(0, given), tokens.slice(0, given));
  assert.equal(labels[given], `t${given}`);
  await noProblems(problems, page);
  await noProblems(reopened.problems, reopened.page);
  await context.close();
  await reopened.context.close();
});

test('T = 128 on a 360 px phone: the small multiples fit, in English and Chinese', opts, async () => {
  const tokens = Array.from({ length: 128 }, (_, i) => `w${i}`).join('+');
  for (const lang of ['en', 'zh']) {
    const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=${lang}&tokens=${tokens}&c=768&h=12&mask=causal`, width: 360, height: 740 });
    await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel[data-h="11"]').waitFor();
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
    assert.ok(overflow <= 1, `page is ${overflow}px wider than the screen`);
    const widths = await deep(page, ($, $$) => [$('mha-playground', 'mha-heatmap').getBoundingClientRect().right,
      Math.max(...$$('mha-playground', 'mha-heatmap', 'figure.panel').map((figure) => figure.getBoundingClientRect().right))]);
    assert.ok(widths[1] <= widths[0] + 1, `panels end at ${widths[1]}px, the element at ${widths[0]}px`);
    await page.locator('mha-playground section.heatmaps mha-heatmap').screenshot({ path: `${ARTIFACTS}heatmaps-T128-${lang}-360.png` });
    await noProblems(problems, page);
    await context.close();
  }
});
