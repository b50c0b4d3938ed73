// The lessons in real Chromium: PyTorch's in_proj layout with a pasted state dict run
// for real, why 1/√D with a D slider, the roles of Q, K, V, the product and W_O, shape formulas in
// axis chips, the all-sizes-different example, and the self-test (conceptual questions, no answer
// on the first wrong try, coincidences refused, another question keeping earlier answers).
// Expected values come from the engine run in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { ARTIFACTS, TIMEOUT, deep, heatmapCells, launch, noProblems, openPage } from './harness.js';
import { heatmapScales } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { meanVariance, scalingPoint, scalingProbe } from '../../web/src/logic/lessons/scaling.js';
import { inProjWeight } from '../../web/src/logic/page/state-dict.js';
import { STRINGS } from '../../web/src/text/translate.js';
import { STEPS } from '../../web/src/catalogue/catalogue.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const opts = { timeout: TIMEOUT * 3 };
const EN = STRINGS.en;
const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };


const nested = (flat, rows, cols) => Array.from({ length: rows }, (_, r) => Array.from(flat.slice(r * cols, (r + 1) * cols)));

test('PyTorch\'s layout: in_proj_weight is W_q, W_k, W_v transposed; a pasted state dict runs for real', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const run = env.engine.run(CLASSIC);
  await page.locator('mha-playground section.torch').scrollIntoViewIfNeeded();
  await page.locator('mha-playground section.torch table').first().waitFor();
  assert.match(await page.locator('mha-playground section.torch').textContent(), /\[3C, C\] = \[24, 8\]: rows 0–7 are W_q, rows 8–15 W_k, rows 16–23 W_v/);
  const [inProj, wq] = await deep(page, ($, $$) => $$('mha-playground', 'section.torch table').map((table) => [...table.querySelectorAll('td')].map((td) => Number(td.dataset.value))));
  const expected = inProjWeight(run.weights, 8);
  assert.deepEqual(inProj.map(Math.fround), [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => expected[r * 8 + c])));
  assert.deepEqual(wq.map(Math.fround), [0, 1, 2].flatMap((r) => [0, 1, 2].map((c) => run.weights.Wq[r * 8 + c])));
  assert.equal(inProj[1], wq[3], 'in_proj_weight[0][1] = Wq[1][0]');
  await page.locator('mha-playground section.torch').screenshot({ path: `${ARTIFACTS}lesson-torch-en.png` });

  // A state dict as PyTorch writes it (C = 12, no bias), with H = 3 set in the controls.
  const C = 12;
  const weight = (seed) => Float32Array.from({ length: C * C }, (_, i) => Math.sin(seed * 31 + i * 0.7) / 5);
  const [Wq, Wk, Wv, Wo] = [1, 2, 3, 4].map(weight);
  const stateDict = { in_proj_weight: nested(inProjWeight({ Wq, Wk, Wv }, C), 3 * C, C), 'out_proj.weight': nested(Wo, C, C) };
  await page.locator('mha-playground input[name="H"]').fill('3');
  await page.locator('mha-playground .warnings, mha-playground #error-H').first().waitFor({ state: 'attached' });
  await page.locator('mha-playground #state-dict').fill(JSON.stringify(stateDict));
  await page.locator('mha-playground button[data-action="state-dict"]').click();
  await page.locator('mha-playground .torch-status', { hasText: 'C = 12' }).waitFor();
  assert.equal(await page.locator('mha-playground input[name="C"]').inputValue(), '12');
  assert.equal(await page.locator('mha-playground input[name="bias"]').isChecked(), false);
  const weights = env.engine.fromTorch({ in_proj_weight: stateDict.in_proj_weight.flat(), 'out_proj.weight': Wo, C });
  const expectedRun = env.engine.run({ B: 2, T: 4, C, H: 3, bias: false, weights });
  const w = expectedRun.step('weights');
  const scale = heatmapScales(w, heatmapPanels(w, 3), 'uniform')[1];
  const shown = await heatmapCells(page, ['mha-playground', 'mha-heatmap'], { b: 0, h: 1, rows: 4, cols: 4 });
  assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(w.data.subarray(16, 32), (v, i) => scale.color(v, Math.floor(i / 4))), 'the heatmaps show the pasted weights\' run');
  assert.equal(await page.locator('mha-heatmap .seeded-note').count(), 0, 'no "random weights" note for real weights');
  // A state dict that is not one: refused, nothing changed.
  await page.locator('mha-playground #state-dict').fill('{"foo": [1, 2]}');
  await page.locator('mha-playground button[data-action="state-dict"]').click();
  await page.locator('mha-playground #error-stateDict', { hasText: EN['torch.error.noWeights'] }).waitFor();
  // Back to seeded weights.
  await page.locator('mha-playground button[data-action="seeded"]').click();
  await page.locator('mha-heatmap .seeded-note').waitFor();
  await noProblems(problems, page);
  await context.close();
});

test('why 1/√D: this run\'s variance with and without the scale, and a D slider over real runs', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&c=16&h=2' });
  const run = env.engine.run({ B: 2, T: 4, C: 16, H: 2 });
  const card = page.locator('mha-playground [data-card="scaling"]');
  await card.scrollIntoViewIfNeeded();
  const own = card.locator('[data-result="own"]');
  await own.waitFor();
  assert.ok(Math.abs(Number(await own.getAttribute('data-unscaled')) - meanVariance(run.step('scores').data).variance) < 1e-9);
  assert.ok(Math.abs(Number(await own.getAttribute('data-scaled')) - meanVariance(run.step('scaled').data).variance) < 1e-9);
  // The slider: D = 512, one head of 16 tokens; numbers from the engine's run of it.
  const slider = card.locator('input[type="range"]');
  await slider.focus();
  await page.keyboard.press('End');
  const point = scalingPoint(env.engine.run(scalingProbe(512)));
  await card.locator('[data-result="probe"]', { hasText: `D = 512` }).waitFor();
  const text = await card.locator('[data-result="probe"]').textContent();
  assert.ok(text.includes(point.unscaled.toFixed(3)) && text.includes(point.scaled.toFixed(3)), text);
  assert.ok(point.unscaled > 20 * point.scaled);
  const bars = await card.locator('svg.scaling-rows rect').evaluateAll((rects) => rects.map((rect) => Number(rect.dataset.weight)));
  assert.deepEqual(bars.map(Math.fround), [...point.rowUnscaled, ...point.rowScaled].map(Math.fround));
  await page.keyboard.press('Home');
  await card.locator('[data-result="probe"]', { hasText: 'D = 1 ' }).waitFor();
  await card.screenshot({ path: `${ARTIFACTS}lesson-scaling-en.png` });
  await noProblems(problems, page);
  await context.close();
});

test('roles, product axes and axis chips: each step says what it is for, and shapes read by axis name', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=q' });
  const role = () => page.locator('mha-walkthrough .role').textContent();
  assert.equal(await role(), EN['role.q']);
  for (const [id, key] of [['k', 'role.k'], ['v', 'role.v']]) {
    await page.locator(`mha-walkthrough .steps button[data-id="${id}"]`).click();
    await page.locator(`mha-walkthrough h3[data-step="${id}"]`).waitFor();
    assert.equal(await role(), EN[key]);
  }
  await page.locator('mha-walkthrough .steps button[data-id="scores"]').click();
  await page.locator('mha-walkthrough h3[data-step="scores"]').waitFor();
  assert.match(await role(), /contracts D.*B and H are batch axes/);
  assert.equal(await page.locator('mha-walkthrough .shape-formula').textContent(), '[2,2,4,4] @ [2,2,4,4] → [2,2,4,4]');
  assert.equal(await page.locator('mha-walkthrough .axes-formula').textContent(), '[B,H,Tq,D] @ [B,H,D,Tk] → [B,H,Tq,Tk]');
  assert.equal(await page.locator('mha-walkthrough .axes-formula .chip').count(), 12);
  await page.locator('mha-walkthrough .steps button[data-id="output"]').click();
  await page.locator('mha-walkthrough h3[data-step="output"]').waitFor();
  assert.match(await role(), /W_O mixes the heads/);
  await noProblems(problems, page);
  await context.close();
});

test('one click to the example where all sizes differ: no shape can be read two ways', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  assert.ok(await page.locator('mha-playground .warnings li[data-warning]').count() > 0, 'the seed hides mix-ups');
  await page.locator('mha-playground button[data-action="distinct"]').first().click();
  await page.locator('mha-playground .summary-line', { hasText: 'T = 3 tokens · D = 5' }).waitFor();
  assert.equal(await page.locator('mha-playground .warnings li[data-warning]').count(), 0);
  await page.locator('mha-walkthrough .steps button[data-id="scores"]').click();
  assert.equal(await page.locator('mha-walkthrough .shape-formula').textContent(), '[2,4,3,5] @ [2,4,5,3] → [2,4,3,3]');
  const url = new URL(page.url());
  await page.waitForFunction(() => new URLSearchParams(location.search).get('c') === '20');
  assert.deepEqual([url.searchParams.get('b'), new URL(page.url()).searchParams.get('h')], [null, '4']);
  await noProblems(problems, page);
  await context.close();
});

test('the self-test: conceptual questions, no answer on the first wrong try, coincidences refused, earlier answers kept', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  const item = (id) => page.locator(`mha-playground li[data-question="${id}"]`);
  const verdict = (id) => item(id).locator('.verdict');
  await item('D').scrollIntoViewIfNeeded();
  // A first wrong answer: not revealed.
  await item('D').locator('input').fill('3');
  await item('D').locator('button[data-action="check"]').click();
  await verdict('D').filter({ hasText: EN['quiz.tryAgain'] }).waitFor();
  assert.doesNotMatch(await verdict('D').textContent(), /answer is/);
  assert.equal(await item('D').locator('button[data-action="reveal"]').isVisible(), true);
  // Asked for, it is shown.
  await item('D').locator('button[data-action="reveal"]').click();
  await verdict('D').filter({ hasText: 'the answer is 4' }).waitFor();
  // The seed's scores: [2,2,4,4] is also [B,H,Tq,D] (Tk = D = 4): not marked right.
  await item('scores').locator('input').fill('[2, 2, 4, 4]');
  await item('scores').locator('button[data-action="check"]').click();
  await verdict('scores').filter({ hasText: 'Tk = D = 4' }).waitFor();
  assert.equal(await verdict('scores').getAttribute('data-verdict'), 'coincidence');
  assert.equal(await item('scores').locator('button[data-action="distinct"]').isVisible(), true);
  await item('scores').locator('input').fill('[B, H, Tq, Tk]');
  await item('scores').locator('input').press('Enter');
  await verdict('scores').filter({ hasText: EN['quiz.right'] }).waitFor();
  // Conceptual: softmax's axis, what a transpose changes, where C % H ≠ 0 fails.
  await item('softmaxAxis').locator('input[value="Tq"]').check();
  await item('softmaxAxis').locator('button[data-action="check"]').click();
  await verdict('softmaxAxis').filter({ hasText: EN['quiz.tryAgain'] }).waitFor();
  await item('softmaxAxis').locator('input[value="Tk"]').check();
  await item('softmaxAxis').locator('button[data-action="check"]').click();
  await verdict('softmaxAxis').filter({ hasText: EN['quiz.right'] }).waitFor();
  await item('transpose').locator('input[value="order"]').check();
  await item('transpose').locator('button[data-action="check"]').click();
  await verdict('transpose').filter({ hasText: EN['quiz.right'] }).waitFor();
  assert.ok((await item('divisible').textContent()).includes(`5. ${STEPS.find((step) => step.id === 'q_split').title.en}`));
  await item('divisible').locator('input[value="q_split"]').check();
  await item('divisible').locator('button[data-action="check"]').click();
  await verdict('divisible').filter({ hasText: EN['quiz.right'] }).waitFor();
  // Another question: added below, every earlier answer and verdict kept.
  await page.locator('mha-playground button[data-action="more"]').click();
  await item('practice-1').waitFor();
  await page.locator('mha-playground button[data-action="more"]').click();
  await item('practice-2').waitFor();
  assert.equal(await item('D').locator('input').inputValue(), '3');
  assert.equal(await item('scores').locator('input').inputValue(), '[B, H, Tq, Tk]');
  assert.equal(await verdict('scores').getAttribute('data-verdict'), 'right');
  assert.equal(await item('softmaxAxis').locator('input[value="Tk"]').isChecked(), true);
  await page.locator('mha-playground section.quiz').screenshot({ path: `${ARTIFACTS}quiz-en.png` });
  await noProblems(problems, page);
  await context.close();
});
