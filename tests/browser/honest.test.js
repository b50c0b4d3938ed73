// Pictures and sentences that must not say more than the numbers, in real Chromium: the note over
// the heatmaps says what is seeded and what is trained; near-uniform weights look pale on a scale
// with a stated least range, and a trainer head's maps share one scale; each head card shows its
// own head; the K-cache step, the head split and Kᵀ read as they are drawn; the shape chain has
// the K/V path with Hkv; the 1/√D lesson says why its two numbers differ and gives its bars axes;
// the memory table leads with a size where tiling matters; the decoding map has a scale, labels and
// a legend. Expected values come from the engine run in Node and the page's pure modules.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARTIFACTS, TIMEOUT, deep, heatmapCells, launch, noProblems, openPage } from './harness.js';
import { heatmapScales, legendNumbers } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { meanVariance, scalingPoint, scalingProbe } from '../../web/src/logic/lessons/scaling.js';
import { formatValue } from '../../web/src/logic/format.js';
import { STRINGS, translator } from '../../web/src/text/translate.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const opts = { timeout: TIMEOUT * 4 };
const EN = STRINGS.en;
const ZH = STRINGS.zh;
const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };
const NOTE = 'mha-playground section.heatmaps mha-heatmap .origin-note';

test('the note over the heatmaps says what is true of X and of the weights: seeded, pasted, or the trained block', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const note = page.locator(NOTE);
  assert.equal(await note.getAttribute('data-origin'), 'seeded');
  assert.match(await note.textContent(), /^X and the weights here are random \(seeded\)/);
  // The trained model's block: its own X and trained weights, never "random".
  await page.locator('mha-playground #block-use').check();
  await page.locator(`${NOTE}[data-origin="trained"]`).waitFor();
  const text = await note.textContent();
  assert.match(text, /^The trained model's layer 0 at step \d+: its trained weights over its own input X/);
  assert.doesNotMatch(text, /random/);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap .seeded-note').count(), 0);
  await page.locator('mha-playground section.heatmaps').screenshot({ path: `${ARTIFACTS}honest-origin-trained-en.png` });
  // Back to the seeded run, then pasted weights: X is still seeded, and the note says so.
  await page.locator('mha-playground #block-use').uncheck();
  await page.locator(`${NOTE}[data-origin="seeded"]`).waitFor();
  const C = 8;
  const rows = (seed, n) => Array.from({ length: n }, (_, r) => Array.from({ length: C }, (_, c) => Math.sin(seed * 31 + (r * C + c) * 0.7) / 5));
  await page.locator('mha-playground #state-dict').fill(JSON.stringify({ in_proj_weight: rows(1, 3 * C), 'out_proj.weight': rows(2, C) }));
  await page.locator('mha-playground button[data-action="state-dict"]').click();
  await page.locator(`${NOTE}[data-origin="pasted"]`).waitFor();
  assert.equal(await note.textContent(), EN['hm.origin.pasted']);
  assert.match(await note.textContent(), /X is still random \(seeded\)/);
  await noProblems(problems, page);
  await context.close();
});

test('near-uniform weights look pale: the scale spans at least 0 to twice uniform, with the weights\' own range in the legend', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const run = env.engine.run(CLASSIC);
  const weights = run.step('weights');
  const panels = heatmapPanels(weights, 2);
  const scales = heatmapScales(weights, panels, 'uniform');
  assert.equal(scales[0].extent, 1, 'seeded weights at T = 4 stay within the least range');
  const t = translator('en');
  const numbers = legendNumbers(scales[0], weights, t);
  const legend = await deep(page, ($) => ['min', 'mid', 'max', 'reached'].map((k) => $('mha-playground', 'mha-heatmap', `[data-legend="${k}"]`).textContent));
  assert.deepEqual(legend, ['0.000', '1/4 = 0.250', '0.500', `this view: ${numbers.reachedText}`]);
  const min = Math.min(...weights.data);
  const max = Math.max(...weights.data);
  assert.equal(numbers.reachedText, `${formatValue(min, 3)}–${formatValue(max, 3)}`);
  const floor = page.locator('mha-playground section.heatmaps mha-heatmap .floor-note');
  assert.equal(await floor.isVisible(), true);
  assert.match(await floor.textContent(), /the scale always spans at least 0 to twice uniform \(0\.500\)/);
  // Every drawn cell is the colour of that scale, and none is more than halfway to an end.
  for (const [p, panel] of panels.entries()) {
    const { cells } = await heatmapCells(page, ['mha-playground', 'mha-heatmap'], { b: panel.b, h: panel.h, rows: 4, cols: 4 });
    cells.forEach(({ r, c, color }) => assert.equal(color, scales[p].color(weights.data[panel.offset + r * 4 + c], r), `cell ${p}:${r},${c}`));
  }
  const ratios = Array.from(weights.data, (w) => Math.abs(w * 4 - 1));
  assert.ok(Math.max(...ratios) < 0.5, `|w·n − 1| up to ${Math.max(...ratios)}: pale`);
  await page.locator('mha-playground section.heatmaps').screenshot({ path: `${ARTIFACTS}honest-scale-seeded-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('trainer heads: each card shows its own head with no picker, and a head\'s maps at step 0 and now share one scale', { timeout: TIMEOUT * 6 }, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&tr-heads=4&tr-compare=1' });
  const trainer = page.locator('mha-trainer');
  await trainer.locator('figure.head[data-layer="0"][data-head="3"] .map[data-kind="start"] mha-heatmap figure.panel').waitFor();
  const cards = await page.evaluate(() => [...document.querySelector('mha-trainer').shadowRoot.querySelectorAll('figure.head')].map((figure) => ({
    head: Number(figure.dataset.head),
    shown: [...figure.querySelectorAll('mha-heatmap')].map((map) => [...map.shadowRoot.querySelectorAll('figure.panel')].map((panel) => Number(panel.dataset.h))),
    pickers: [...figure.querySelectorAll('mha-heatmap')].filter((map) => map.shadowRoot.querySelector('.picker, select.pick-head')).length,
    partial: figure.textContent.includes('Showing') || [...figure.querySelectorAll('mha-heatmap')].some((map) => /Showing \d+ of/.test(map.shadowRoot.textContent)),
    extents: [...figure.querySelectorAll('mha-heatmap')].map((map) => map.minExtent),
    tops: [...figure.querySelectorAll('mha-heatmap')].map((map) => map.shadowRoot.querySelector('[data-legend="max"]').textContent),
  })));
  assert.equal(cards.length, 8, 'two layers of four heads');
  for (const card of cards) {
    assert.deepEqual(card.shown, [[card.head], [card.head]], `the card of head ${card.head} shows head ${card.head}, now and at step 0`);
    assert.equal(card.pickers, 0);
    assert.equal(card.partial, false);
    assert.ok(card.extents[0] > 0 && card.extents[0] === card.extents[1], `one scale: ${card.extents}`);
    assert.equal(card.tops[0], card.tops[1], 'the same top of the scale in both legends');
  }
  await trainer.locator('figure.head').first().screenshot({ path: `${ARTIFACTS}honest-trainer-head-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('steps read as drawn: the K-cache step, no mask, the head split beside its picture, and Kᵀ with its key tokens', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=masked' });
  const caption = page.locator('mha-playground mha-walkthrough figure figcaption');
  assert.equal(await caption.textContent(), EN['kind.sameMask']);
  // The head split: the last two axes are a head and its features; the picture keeps token rows.
  await deep(page, ($) => { $('mha-playground', 'mha-walkthrough').stepId = 'q_split'; });
  await page.locator('mha-playground mha-walkthrough h3[data-step="q_split"]').waitFor();
  const axes = page.locator('mha-playground mha-walkthrough dd[data-answer="axes"]');
  const answer = await axes.textContent();
  assert.doesNotMatch(answer, /rows are: heads/);
  assert.match(answer, /In the picture each row is a token \(T=4\), with its 2 heads side by side \(H\), 4 columns each\./);
  assert.deepEqual(await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'svg text.head-label').map((n) => n.textContent)), ['h0', 'h1', 'h0', 'h1']);
  // Kᵀ: its columns are the key tokens, in every batch row.
  await deep(page, ($) => { $('mha-playground', 'mha-walkthrough').stepId = 'k_t'; });
  await page.locator('mha-playground mha-walkthrough h3[data-step="k_t"]').waitFor();
  const tokens = ['I', 'love', 'deep', 'learning'];
  assert.deepEqual(await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'svg text.column-label').map((n) => n.textContent)), [...tokens, ...tokens]);
  await page.locator('mha-playground mha-walkthrough').screenshot({ path: `${ARTIFACTS}honest-kt-en.png` });
  // Decoding: the K cache appends a row, it does not claim "nothing is masked".
  await page.goto(`${env.url}?lang=en&mask=causal`);
  await page.locator('mha-playground section.algorithms button[data-mode="incremental"]').click();
  await page.locator('mha-playground section.algorithms button[data-action="walk"]').click();
  await deep(page, ($) => { $('mha-playground', 'mha-walkthrough').stepId = 'cache_k'; });
  await page.locator('mha-playground mha-walkthrough h3[data-step="cache_k"]').waitFor();
  assert.equal(await caption.textContent(), EN['kind.append']);
  await noProblems(problems, page);
  await context.close();
});

test('the shape chain has the K and V paths with Hkv heads under MQA, and says how they are shared', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&h=4&hkv=1' });
  const ids = (path) => deep(page, ($, $$, path) => $$('mha-playground', 'mha-shapes', `[data-path="${path}"] button`).map((b) => b.dataset.id), path);
  assert.deepEqual(await ids('k'), ['k', 'k_split', 'k_heads', 'k_shared', 'k_t']);
  assert.equal(await page.locator('mha-playground mha-shapes details.kv-paths').getAttribute('open'), '');
  assert.deepEqual(await ids('v'), ['v', 'v_split', 'v_heads', 'v_shared']);
  const kSplit = await deep(page, ($) => $('mha-playground', 'mha-shapes', 'button[data-id="k_split"]').getAttribute('aria-label'));
  assert.match(kSplit, /\[2,4,1,2\]$/, 'one K/V head');
  assert.equal(await page.locator('mha-playground mha-shapes .kv-note').textContent(),
    translator('en')('shapes.kvShared', { H: 4, Hkv: 1, group: 4 }));
  // MHA: the same paths with H heads.
  await page.goto(`${env.url}?lang=zh`);
  await page.locator('mha-playground mha-shapes .kv-note').waitFor();
  assert.deepEqual(await ids('k'), ['k', 'k_split', 'k_heads', 'k_t']);
  assert.equal(await page.locator('mha-playground mha-shapes details.kv-paths').getAttribute('open'), null, 'in MHA the K/V paths are one line until opened');
  assert.equal(await page.locator('mha-playground mha-shapes .kv-note').textContent(), translator('zh')('shapes.kvOwn', { H: 2 }));
  await noProblems(problems, page);
  await context.close();
});

test('why 1/√D: the slider\'s run and this run at one D are told apart, this run is on the chart, the bars have axes', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const card = page.locator('mha-playground [data-card="scaling"]');
  await card.scrollIntoViewIfNeeded();
  const apart = card.locator('[data-result="apart"]');
  await apart.waitFor();
  const own = meanVariance(env.engine.run(CLASSIC).step('scores').data).variance;
  const probe = scalingPoint(env.engine.run(scalingProbe(4))).unscaled;
  assert.equal(await apart.textContent(), translator('en')('scaling.apart', { D: 4, C: 8, unscaled: formatValue(own, 3), probe: formatValue(probe, 3), n: 64, m: 256 }));
  assert.equal(await card.locator('circle.own-point').getAttribute('visibility'), 'visible');
  assert.deepEqual(await card.locator('svg.scaling-rows text.weight-tick').allTextContents(), ['1', '0', '1', '0']);
  assert.equal(await card.locator('svg.scaling-rows line.uniform-line').count(), 2);
  assert.match(await card.locator('svg.scaling-rows text.axis-title').textContent(), /keys 0…15/);
  await card.screenshot({ path: `${ARTIFACTS}honest-scaling-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('memory: the section leads with a size where tiling matters, and says why the tiled pass holds more at T = 4', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const section = page.locator('mha-playground section.algorithms');
  await section.scrollIntoViewIfNeeded();
  await section.locator('.alg-memory-lead').waitFor();
  const config = { ...CLASSIC, blockQ: 2, blockK: 2 };
  const curve = env.engine.memoryCurve(config);
  const at4096 = curve.find((p) => p.T === 4096);
  const lead = await section.locator('.alg-memory-lead').textContent();
  assert.match(lead, /^Where it matters: at T = 4,096/);
  assert.ok(lead.includes(`${Math.round(at4096.naive.total / at4096.tiled.total)}× less`), lead);
  const model = env.engine.memory(config);
  assert.ok(model.tiled.total > model.naive.total);
  const small = await section.locator('.alg-memory-small').textContent();
  assert.match(small, new RegExp(`^At T = 4 the tiled pass holds ${model.tiled.total - model.naive.total} B more`));
  assert.match(small, /from T = 8 on, tiled holds less/);
  // Head order: the lead comes before the table.
  assert.deepEqual(await deep(page, ($) => {
    const s = $('mha-playground', 'section.algorithms');
    const lead = s.querySelector('.alg-memory-lead');
    const table = s.querySelector('table.alg-memory');
    return Boolean(lead.compareDocumentPosition(table) & Node.DOCUMENT_POSITION_FOLLOWING);
  }), true);
  await noProblems(problems, page);
  await context.close();
});

test('the decoding map: the heatmaps\' scale, query and key positions, hatched future keys and a legend', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&mask=causal' });
  const section = page.locator('mha-playground section.algorithms');
  await section.locator('button[data-mode="incremental"]').click();
  await section.locator('button[data-action="token-next"]').click();
  await section.locator('button[data-action="token-next"]').click();
  const map = section.locator('figure.decode-map');
  await map.locator('rect[data-cell="2,0"]').waitFor();
  assert.deepEqual(await map.locator('text.query-label').allTextContents(), ['0', '1', '2', '3']);
  assert.deepEqual(await map.locator('text.key-label').allTextContents(), ['0', '1', '2', '3']);
  assert.equal(await map.locator('rect[data-masked]').count(), 3 + 2 + 1, 'keys after the query in rows 0–2');
  // The colours: relative to each row's uniform weight 1/(t + 1), as the main heatmaps draw it.
  const decoded = env.engine.run({ ...CLASSIC, mask: 'causal', algorithm: 'incremental' });
  const masked = env.engine.run({ ...CLASSIC, mask: 'causal' }).step('masked');
  const data = new Float32Array(16);
  for (let r = 0; r <= 2; r++) data.set(decoded.step('decode_weights', { t: r }).data.subarray(0, r + 1), r * 4); // batch row 0, head 0
  const hidden = (i) => i % 4 > Math.floor(i / 4) || Math.floor(i / 4) > 2;
  const [scale] = heatmapScales({ op: 'softmax', id: 'weights', data }, [{ offset: 0, rows: 4, cols: 4 }], 'uniform', hidden);
  const fills = await map.locator('rect[data-cell]:not([data-masked])').evaluateAll((rects) => rects.map((rect) => [rect.dataset.cell, rect.getAttribute('fill')]));
  assert.equal(fills.length, 6);
  for (const [cell, fill] of fills) {
    const [r, k] = cell.split(',').map(Number);
    assert.equal(fill, scale.color(data[r * 4 + k], r), `cell ${cell}`);
    assert.ok(masked.data[r * 4 + k] !== -Infinity);
  }
  const legend = await map.locator('.alg-legend').textContent();
  assert.match(legend, /0\.00× … 1\/n … 2\.00×/);
  assert.match(legend, /colours as in the heatmaps above/);
  await map.screenshot({ path: `${ARTIFACTS}honest-decode-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('at 360 px, in English and Chinese, the new words and pictures fit the width', { timeout: TIMEOUT * 6 }, async () => {
  for (const lang of ['en', 'zh']) {
    const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=${lang}&mask=causal&step=k_t`, width: 360, locale: lang === 'zh' ? 'zh-CN' : 'en-US' });
    const words = lang === 'zh' ? ZH : EN;
    await page.locator('mha-playground mha-shapes .kv-note').waitFor();
    await page.locator('mha-playground section.heatmaps mha-heatmap .floor-note').waitFor();
    assert.equal(await page.locator(NOTE).textContent(), `${words['hm.seeded']} ${words['hm.trainedLink']}`);
    await page.locator('mha-playground section.algorithms button[data-mode="incremental"]').click();
    await page.locator('mha-playground section.algorithms figure.decode-map .alg-legend').waitFor();
    const wide = await deep(page, ($, $$) => {
      const out = [];
      const check = (root) => {
        for (const node of root.querySelectorAll('*')) {
          const box = node.getBoundingClientRect();
          if (box.width > 0 && box.right > document.documentElement.clientWidth + 1 && !node.closest('.table-wrap, .table-view, pre')) out.push(`${node.tagName}.${node.className?.baseVal ?? node.className}`);
          if (node.shadowRoot) check(node.shadowRoot);
        }
      };
      check(document);
      return { out: out.slice(0, 8), scroll: document.documentElement.scrollWidth };
    });
    assert.ok(wide.scroll <= 360, `the page is ${wide.scroll} px wide`);
    for (const [name, selector] of [['shapes', 'section.block.shapes'], ['walkthrough', 'mha-walkthrough'], ['heatmaps', 'section.block.heatmaps'], ['decode', 'figure.decode-map']]) {
      await page.locator(`mha-playground ${selector}`).first().screenshot({ path: `${ARTIFACTS}honest-360-${name}-${lang}.png` });
    }
    await noProblems(problems, page);
    await context.close();
  }
});

test('W_O mixes the heads, computed: one token\'s output as the sum of the heads\' parts, a head zeroed, and why seeded rows look alike', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&c=12&h=3' });
  const card = page.locator('mha-playground [data-card="mix"]');
  await card.scrollIntoViewIfNeeded();
  await card.locator('tr[data-part="sum"]').waitFor();
  const run = env.engine.run({ B: 2, T: 4, C: 12, H: 3 });
  const { Wo, bo } = run.weights;
  const O = run.step('concat').data;
  const values = (part) => card.locator(`tr[data-part="${part}"] td[data-value]`).evaluateAll((tds) => tds.map((td) => Number(td.dataset.value)));
  // Token 2 ("deep"), head 1 zeroed.
  await card.locator('select.mix-token').selectOption('2');
  await card.locator('select.mix-head').selectOption('1');
  const row = 2 * 12;
  const part = (h, j) => { let s = 0; for (let i = h * 4; i < h * 4 + 4; i++) s += O[row + i] * Wo[i * 12 + j]; return s; };
  for (let h = 0; h < 3; h++) (await values(h)).forEach((v, j) => assert.ok(Math.abs(v - part(h, j)) < 1e-6, `head ${h}, y[${j}]`));
  (await values('sum')).forEach((v, j) => assert.ok(Math.abs(v - run.output[row + j]) < 1e-5, `sum y[${j}]`));
  (await values('without')).forEach((v, j) => assert.ok(Math.abs(v - (run.output[row + j] - part(1, j))) < 1e-5, `without head 1, y[${j}]`));
  assert.ok(Number(await card.locator('[data-result="mix-check"]').getAttribute('data-max-diff')) < 1e-5);
  assert.match(await card.locator('[data-result="mix-ablation"]').textContent(), /^Zeroing head 1's context removes exactly its part/);
  assert.ok(bo.length === 12);
  const why = card.locator('[data-result="mix-why"]');
  assert.match(await why.textContent(), /every context is about the mean of V/);
  assert.ok(Number(await why.getAttribute('data-context')) < Number(await why.getAttribute('data-v')) / 3, 'the context\'s rows are far more alike than V\'s');
  await card.screenshot({ path: `${ARTIFACTS}honest-mix-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('broadcasting: the mask step shows which axes of the mask are stretched over the scores, for each kind of mask', opts, async () => {
  const cases = [
    { query: 'mask=causal', shape: '[4,4]', mask: ['–', '–', '4', '4'], stretched: ['B', 'H'] },
    { query: 'key-lengths=4,2', shape: '[2,1,1,4]', mask: ['2', '1', '1', '4'], stretched: ['H', 'Tq'] },
    { query: 'mask=causal&key-lengths=4,2', shape: '[2,1,4,4]', mask: ['2', '1', '4', '4'], stretched: ['H'] },
  ];
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=masked' });
  assert.equal(await page.locator('mha-playground mha-walkthrough .broadcast').count(), 0, 'no mask, nothing to broadcast');
  for (const { query, shape, mask, stretched } of cases) {
    await page.goto(`${env.url}?lang=en&step=masked&${query}`);
    const broadcast = page.locator('mha-playground mha-walkthrough .broadcast');
    await broadcast.waitFor();
    assert.equal(await broadcast.locator('p').textContent(), translator('en')('wt.broadcast', { shape }));
    assert.deepEqual(await broadcast.locator('tr').nth(1).locator('td').allTextContents(), mask);
    assert.deepEqual(await broadcast.locator('td.stretched').evaluateAll((tds) => tds.map((td) => td.dataset.axis)), stretched, query);
    assert.equal(await broadcast.locator('td.stretched').first().textContent(), translator('en')('wt.stretched', { n: 2 }));
  }
  await page.goto(`${env.url}?lang=zh&step=masked&mask=causal`);
  await page.locator('mha-playground mha-walkthrough .broadcast').waitFor();
  assert.equal(await page.locator('mha-playground mha-walkthrough td.stretched').first().textContent(), '拉伸 ×2');
  await page.locator('mha-playground mha-walkthrough').screenshot({ path: `${ARTIFACTS}honest-broadcast-zh.png` });
  await noProblems(problems, page);
  await context.close();
});

const CHAPTERS = ['start', 'controls', 'shapes', 'walkthrough', 'heatmaps', 'lm', 'trained', 'algorithms', 'lessons', 'torch', 'mistakes', 'quiz', 'export'];

test('a course to find one\'s way in: a table of contents that follows the reader, deep links to every chapter and step, "start here"', { timeout: TIMEOUT * 6 }, async () => {
  // Desktop: the contents in a column beside the page, in the page's order, sticky.
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const links = page.locator('nav.toc a[data-chapter]');
  await links.nth(CHAPTERS.length - 1).waitFor();
  assert.deepEqual(await links.evaluateAll((as) => as.map((a) => a.dataset.chapter)), CHAPTERS);
  assert.equal(await links.nth(CHAPTERS.indexOf('trained')).textContent(), EN['tr.title']);
  assert.equal(await page.locator('#start h2').textContent(), EN['page.startTitle']);
  await page.locator('nav.toc a[data-chapter="torch"]').click();
  await page.waitForFunction(() => location.hash === '#torch');
  const top = () => deep(page, ($, $$, name) => Math.round($('mha-playground', `section.block.${name}`).getBoundingClientRect().top), 'torch');
  await page.waitForFunction(() => document.querySelector('nav.toc a[data-chapter="torch"]').getAttribute('aria-current') === 'true');
  assert.ok(Math.abs(await top()) < 40, `the chapter is at the top: ${await top()}`);
  const nav = await page.locator('nav.toc').boundingBox();
  assert.ok(nav.y >= -1 && nav.y < 20 && nav.x < 60, `the contents stay in view beside the page: ${JSON.stringify(nav)}`);
  await page.screenshot({ path: `${ARTIFACTS}course-toc-1280-en.png` });
  // Deep links: a chapter, and a step of the walkthrough.
  await page.goto(`${env.url}?lang=en#lessons`);
  await page.waitForFunction(() => document.querySelector('nav.toc a[data-chapter="lessons"]')?.getAttribute('aria-current') === 'true');
  assert.ok(Math.abs(await deep(page, ($) => $('mha-playground', 'section.block.lessons').getBoundingClientRect().top)) < 40);
  await page.goto(`${env.url}?lang=en#step-q_split`);
  await page.locator('mha-playground mha-walkthrough h3[data-step="q_split"]').waitFor();
  assert.equal(await page.locator('mha-playground mha-walkthrough a.step-link').getAttribute('href'), '#step-q_split');
  const inView = await deep(page, ($) => { const r = $('mha-playground', 'mha-walkthrough', 'h3').getBoundingClientRect(); return r.top >= 0 && r.bottom <= innerHeight; });
  assert.equal(inView, true, 'the linked step is on screen');
  // A step link written by the walkthrough works as a link: another step, then back by its URL.
  await page.keyboard.press('ArrowRight');
  await page.evaluate(() => { location.hash = '#step-k_t'; });
  await page.locator('mha-playground mha-walkthrough h3[data-step="k_t"]').waitFor();
  await noProblems(problems, page);
  await context.close();

  // Phone, in Chinese: a menu in a bar that stays at the top; picking a chapter closes it.
  const phone = await openPage(env.browser, env.url, { query: '?lang=zh', width: 360, locale: 'zh-CN' });
  const menu = phone.page.locator('nav.toc details');
  assert.equal(await menu.getAttribute('open'), null, 'closed on a phone');
  await phone.page.locator('nav.toc summary').click();
  await phone.page.locator('nav.toc a[data-chapter="trained"]').waitFor({ state: 'visible' });
  assert.equal(await phone.page.locator('nav.toc a[data-chapter="trained"]').textContent(), ZH['tr.title']);
  await phone.page.screenshot({ path: `${ARTIFACTS}course-toc-360-zh.png` });
  await phone.page.locator('nav.toc a[data-chapter="algorithms"]').click();
  await phone.page.waitForFunction(() => location.hash === '#algorithms');
  assert.equal(await menu.getAttribute('open'), null, 'the menu closes');
  const bar = await phone.page.locator('nav.toc').boundingBox();
  assert.ok(bar.y >= -1 && bar.y < 5 && bar.height < 60, `the bar stays at the top: ${JSON.stringify(bar)}`);
  const heading = await deep(phone.page, ($) => $('mha-playground', 'section.block.algorithms > h2').getBoundingClientRect().top);
  assert.ok(heading >= bar.height - 2, `the chapter's title is not under the bar (${heading} vs ${bar.height})`);
  assert.ok(await phone.page.evaluate(() => document.documentElement.scrollWidth) <= 360);
  await phone.page.screenshot({ path: `${ARTIFACTS}course-toc-360-zh-algorithms.png` });
  await noProblems(phone.problems, phone.page);
  await phone.context.close();
});

test('a deep link lands on its chapter on a phone, even as the sections above it are drawn after the first frame', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=zh#lessons', width: 360, locale: 'zh-CN' });
  await page.locator('mha-playground [data-card="mix"] tr[data-part="sum"]').waitFor();
  await page.waitForTimeout(4500); // the trainer opens its checkpoint, the panels draw: the link holds
  const bar = await page.locator('nav.toc').boundingBox();
  const heading = await deep(page, ($) => $('mha-playground', 'section.block.lessons > h2').getBoundingClientRect().top);
  assert.ok(heading >= bar.height - 2 && heading < bar.height + 60, `the chapter's title is just under the bar: ${heading} (bar ${bar.height})`);
  assert.match(await page.locator('nav.toc .toc-now').textContent(), new RegExp(ZH['lessons.title']));
  await noProblems(problems, page);
  await context.close();
});
