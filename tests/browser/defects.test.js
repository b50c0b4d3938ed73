// The defects a learner hit on the docs page, each reproduced in real Chromium: every
// test here failed on the page before its fix. Expected values come from the engine run in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile } from 'node:fs/promises';
import { TIMEOUT, deep, launch, noProblems, openPage, stepTitleIn } from './harness.js';
import { STRINGS } from '../../web/src/text/translate.js';

let env;
before(async () => { env = await launch(); });
after(async () => {
  await env?.browser.close();
  env?.server.close();
});

const opts = { timeout: TIMEOUT * 3 };
const EN = STRINGS.en;
const ZH = STRINGS.zh;


const heatmapRows = (page) => deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel[data-b="0"][data-h="0"] text[text-anchor="end"]').map((t) => t.textContent));

test('new words for the same number of tokens relabel everything: heatmaps, walkthrough, mistakes, tokens, JSON', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  assert.deepEqual(await heatmapRows(page), ['I', 'love', 'deep', 'learning']);
  await page.locator('mha-playground input[name="tokens"]').fill('You hate shallow thinking');
  const words = ['You', 'hate', 'shallow', 'thinking'];
  await page.waitForFunction((first) => {
    const root = document.querySelector('mha-playground').shadowRoot.querySelector('mha-heatmap').shadowRoot;
    return root.querySelector('figure.panel text[text-anchor="end"]')?.textContent === first;
  }, words[0]);
  assert.deepEqual(await heatmapRows(page), words);
  // The walkthrough's picture of X labels its rows by token.
  const pictureRows = await deep(page, ($, $$) => $$('mha-playground', 'mha-walkthrough', 'text.row-label').map((t) => t.textContent));
  assert.deepEqual(pictureRows.slice(0, 4), words);
  assert.deepEqual(await page.evaluate(() => document.getElementById('playground').labels), words);
  await page.locator('mha-playground section.mistakes').scrollIntoViewIfNeeded();
  await page.locator('[data-mistake="softmaxOverQueries"] [data-side="right"] th', { hasText: 'shallow' }).waitFor();
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('mha-playground button[data-export="json"]').click()]);
  const json = JSON.parse(await readFile(await download.path(), 'utf8'));
  assert.deepEqual(json.tokens, words);
  await noProblems(problems, page);
  await context.close();
});

test('an invalid config marks the last valid run as stale, and C % H links to step 5, where the split fails', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=scores' });
  for (const name of ['shapes', 'walkthrough', 'heatmaps']) assert.equal(await page.locator(`mha-playground section.block.${name}.stale`).count(), 0);
  await page.locator('mha-playground input[name="C"]').fill('10');
  await page.locator('mha-playground input[name="H"]').fill('4');
  let expected;
  try { env.engine.run({ B: 2, T: 4, C: 10, H: 4 }); } catch (error) { expected = error; }
  await page.locator('mha-playground #error-H', { hasText: expected.message }).waitFor();
  const note = EN['stale.note'].replace('{config}', 'B=2, T=4, C=10, H=2');
  for (const name of ['shapes', 'walkthrough', 'heatmaps']) {
    await page.locator(`mha-playground section.block.${name}.stale`).waitFor();
    assert.equal(await page.locator(`mha-playground section.block.${name} .stale-note`).textContent(), note, name);
  }
  assert.equal(await page.locator('mha-playground .summary-line.stale').count(), 1);
  // The link to the step where C = H·D is needed.
  const see = page.locator('mha-playground #error-H button[data-action="see-step"]');
  assert.equal(await see.textContent(), EN['error.seeSplit'].replace('{n}', '5'));
  await see.click();
  await page.locator('mha-walkthrough h3[data-step="q_split"]').waitFor();
  assert.ok((await page.locator('mha-walkthrough h3').textContent()).startsWith(`5. ${stepTitleIn('q_split', 'en')}`));
  // Fixed: no longer stale.
  await page.locator('mha-playground input[name="H"]').fill('5');
  await page.locator('mha-playground .summary-line', { hasText: 'D = 2' }).waitFor();
  for (const name of ['shapes', 'walkthrough', 'heatmaps']) assert.equal(await page.locator(`mha-playground section.block.${name}.stale`).count(), 0);
  assert.equal(await page.locator('mha-playground .stale-note').first().textContent(), '');
  await noProblems(problems, page);
  await context.close();
});

test('with no mask the mask step says nothing changes; with a mask it says the colours change', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=masked' });
  const caption = () => page.locator('mha-walkthrough figure.picture figcaption').textContent();
  assert.ok(await page.locator('mha-walkthrough [data-answer="values"]').textContent().then((text) => text.startsWith('no')));
  assert.equal(await caption(), EN['kind.sameMask']);
  await page.locator('mha-playground select[name="mask"]').selectOption('causal');
  await page.locator('mha-walkthrough [data-answer="values"]', { hasText: /^yes/ }).waitFor();
  assert.equal(await caption(), EN['kind.recolor']);
  await noProblems(problems, page);
  await context.close();
});

test('with Hkv = 1 (MQA) no step is titled GQA', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&c=12&h=4&hkv=1&step=k_shared' });
  const texts = await deep(page, ($, $$) => [
    ...$$('mha-playground', 'mha-walkthrough', '.steps button').map((b) => b.textContent),
    $('mha-playground', 'mha-walkthrough', 'h3').textContent,
    ...$$('mha-playground', 'mha-heatmap', 'option').map((o) => o.textContent),
    ...$$('mha-playground', 'mha-shapes', 'button').map((b) => b.getAttribute('aria-label')),
    $('mha-playground', '.summary-line').textContent,
  ]);
  assert.deepEqual(texts.filter((text) => /GQA/.test(text)), []);
  assert.ok(texts.some((text) => /MQA/.test(text)));
  assert.match(await page.locator('mha-walkthrough h3').textContent(), /\(MQA\)$/);
  await noProblems(problems, page);
  await context.close();
});

test('the legend shows the masked swatch only when something is masked', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  // The playground's own heatmap (the trainer section below it has heatmaps of its own).
  const legend = () => page.locator('mha-playground section.heatmaps mha-heatmap .legend').textContent();
  assert.doesNotMatch(await legend(), /masked/);
  await page.locator('mha-playground select[name="mask"]').selectOption('causal');
  await page.locator('mha-playground section.heatmaps mha-heatmap .legend', { hasText: EN['hm.maskedZero'] }).waitFor();
  // Padding that hides nothing (every key length = T) masks nothing either.
  await page.locator('mha-playground select[name="mask"]').selectOption('none');
  await page.locator('mha-playground input[name="keyLengths"]').fill('4 4');
  await page.locator('mha-walkthrough').evaluate(() => new Promise((resolve) => setTimeout(resolve, 100)));
  await page.waitForFunction(() => !document.querySelector('mha-playground').shadowRoot.querySelector('mha-heatmap').shadowRoot.querySelector('.legend').textContent.includes('masked'));
  await page.locator('mha-playground input[name="keyLengths"]').fill('4 2');
  await page.locator('mha-playground section.heatmaps mha-heatmap .legend', { hasText: EN['hm.maskedZero'] }).waitFor();
  await noProblems(problems, page);
  await context.close();
});

// The element that has focus, through shadow roots: [its tag, and the custom elements around it].
const focusPath = (page) => page.evaluate(() => {
  let node = document.activeElement;
  const path = [];
  while (node?.shadowRoot?.activeElement) {
    path.push(node.localName);
    node = node.shadowRoot.activeElement;
  }
  return [...path, node?.localName, node?.getAttribute?.('data-id') ?? null];
});

test('"Skip to the walkthrough" goes to the walkthrough, not to the controls', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en&step=q_heads' });
  await page.keyboard.press('Tab');
  assert.equal(await page.evaluate(() => document.activeElement.className), 'skip');
  await page.keyboard.press('Enter');
  await page.waitForFunction(() => document.querySelector('mha-playground').shadowRoot.activeElement?.localName === 'mha-walkthrough');
  assert.deepEqual(await focusPath(page), ['mha-playground', 'mha-walkthrough', 'button', 'q_heads']);
  const top = await page.locator('mha-playground section.walkthrough').evaluate((node) => node.getBoundingClientRect().top);
  assert.ok(top >= -1 && top < 200, `the walkthrough is at the top of the screen (${top}px)`);
  await noProblems(problems, page);
  await context.close();
});

test('the first heatmap is reached in few Tab presses after the contents: the steps and the chain are one tab stop each, arrows inside', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  // Counted from the end of the table of contents (one stop per chapter, before the page).
  const contents = await page.locator('nav.toc a').count();
  assert.ok(contents <= 14, `${contents} links in the contents`);
  await page.locator('nav.toc a').last().focus();
  let presses = 0;
  let path;
  do {
    await page.keyboard.press('Tab');
    presses++;
    path = await focusPath(page);
  } while (!(path.includes('mha-heatmap') && path.includes('figure')) && presses < 80);
  assert.ok(presses <= 30, `${presses} Tab presses to the first heatmap`);
  // Inside the list of steps, the arrow keys move; Tab leaves the list.
  await page.locator('mha-walkthrough .steps button[data-id="x"]').focus();
  await page.keyboard.press('ArrowDown');
  await page.locator('mha-walkthrough h3[data-step="q"]').waitFor();
  assert.deepEqual((await focusPath(page)).slice(-2), ['button', 'q']);
  assert.equal(await page.locator('mha-walkthrough .steps button[tabindex="0"]').count(), 1);
  await page.keyboard.press('Tab');
  assert.notEqual((await focusPath(page)).at(-1), 'k', 'Tab leaves the list instead of walking it');
  // The chain: one tab stop, arrows move along it.
  const chainStops = await deep(page, ($, $$) => $$('mha-playground', 'mha-shapes', 'button').filter((b) => b.tabIndex === 0).length);
  assert.equal(chainStops, 1);
  await page.locator('mha-shapes button[tabindex="0"]').focus();
  assert.equal((await focusPath(page)).at(-1), 'q', 'the chain\'s tab stop is the current step');
  await page.keyboard.press('ArrowRight');
  assert.equal((await focusPath(page)).at(-1), 'q_split');
  await noProblems(problems, page);
  await context.close();
});

test('the URL does not start carrying defaults after an edit', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=en' });
  await page.locator('mha-playground form.controls input[name="seed"]').fill('3');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '3');
  await page.locator('mha-playground form.controls input[name="seed"]').fill('0');
  await page.locator('mha-playground input[name="C"]').fill('8');
  await page.waitForFunction(() => !new URLSearchParams(location.search).has('seed'));
  await page.waitForTimeout(300);
  assert.equal(new URL(page.url()).search, '?lang=en', 'only the language: c=8, h=2 and seed=0 are the defaults');
  await noProblems(problems, page);
  await context.close();
});

test('queries whose keys are all masked are one warning line, not one per query (T = 600)', opts, async () => {
  const tokens = Array.from({ length: 600 }, (_, i) => `w${i}`).join('+');
  const { page, context, problems } = await openPage(env.browser, env.url, { query: `?lang=en&tokens=${tokens}&key-lengths=600+0` });
  const run = env.engine.run({ B: 2, T: 600, C: 8, H: 2, keyLengths: [600, 0] });
  assert.equal(run.warnings.length, 1);
  await page.locator('mha-playground .warnings li').first().waitFor();
  assert.deepEqual(await page.locator('mha-playground .warnings li:not([data-warning])').allTextContents(), [run.warnings[0].messageIn('en')]);
  await noProblems(problems, page);
  await context.close();
});

test('in Chinese the formulas read aloud are Chinese, and no shape formula says "with no mask"', opts, async () => {
  const { page, context, problems } = await openPage(env.browser, env.url, { query: '?lang=zh&step=masked', locale: 'zh-CN' });
  const label = () => page.locator('mha-walkthrough .formula').getAttribute('aria-label');
  assert.equal(await label(), ZH['formula.label.masked']);
  assert.doesNotMatch(await page.locator('mha-walkthrough .shape-formula').textContent(), /[a-z]{3,}/);
  assert.match(await page.locator('mha-walkthrough .shape-formula').textContent(), /无掩码/);
  await page.locator('mha-walkthrough button[data-action="next"]').click();
  await page.locator('mha-walkthrough h3[data-step="weights"]').waitFor();
  assert.equal(await label(), ZH['formula.label.weights']);
  assert.doesNotMatch(await page.locator('mha-walkthrough .shape-formula').textContent(), /softmax over/);
  await noProblems(problems, page);
  await context.close();
});

test('a pinned walkthrough titles its step by its place in the whole walkthrough (q_heads is step 8)', opts, async () => {
  const query = new URLSearchParams({ el: 'walkthrough', step: 'q_heads', lang: 'en' });
  const context = await env.browser.newContext({ viewport: { width: 900, height: 700 } });
  const page = await context.newPage();
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  page.on('console', (message) => { if (message.type() === 'error') problems.push(message.text()); });
  await page.goto(`${env.url}embed.html?${query}`);
  await page.locator('mha-walkthrough h3').waitFor();
  assert.equal(await page.locator('mha-walkthrough h3').textContent(), `8. ${stepTitleIn('q_heads', 'en')}`);
  assert.deepEqual(problems, []);
  await context.close();
});
