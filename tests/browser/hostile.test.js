// Hostile input, in real Chromium under the project's CSP: markup, script and javascript: URLs
// and 100,000-character strings fed into every text that reaches the page (the tokens box, the
// quiz, the URL query and hash, element attributes on a host page, imported JSON). Each payload
// sets a canary (window.__pwned) if it ever runs. Checked every time: the canary stays unset, no
// dialog opened, no injected element in the document or any shadow root, no console error, page
// error or CSP violation, and the page still answers a valid change afterwards.
// Also: a config over the page's memory cap is refused with the size it needs, before the wasm
// memory grows. Expected messages come from the engine run here in Node.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { readFile, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { TIMEOUT, deep, heatmapCells, launch, makeHostSite } from './harness.js';
import { heatmapScales } from '../../web/src/logic/heatmap/colors.js';
import { heatmapPanels } from '../../web/src/logic/heatmap/layout.js';
import { STRINGS } from '../../web/src/text/translate.js';
import { MESSAGES } from '../../web/src/text/messages.js';
import { renderMessage } from '../../web/src/text/render.js';
import { MAX_IMPORT_DEPTH } from '../../web/src/logic/page/config-import.js';
import { MAX_URL_LENGTH, decodeState } from '../../web/src/logic/page/page-state.js';
import { pageErrorText } from '../../web/src/text/page-message.js';

const EN = STRINGS.en;
const PAGE_MEMORY_CAP = 64 * 2 ** 20; // mha-playground.js

// One word each (the tokens box splits on spaces), so each is one token whose label must read
// exactly as typed.
const PAYLOADS = [
  '<img/src=x/onerror=window.__pwned="img">',
  '"><script>window.__pwned="script"</script>',
  'javascript:window.__pwned="js"',
  '<svg/onload=window.__pwned="svg">',
  "'><iframe/srcdoc=\"<script>parent.__pwned='iframe'</script>\">",
  '<a/href=javascript:alert(1)>x</a>',
];
const SPACED = '<img src=x onerror="window.__pwned=\'spaced\';alert(1)">';
const LONG = 'x'.repeat(100_000);
const HOSTILE = [...PAYLOADS, SPACED, LONG];

let env;
let site;
let host;
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-hostile-');
  host = await startServer({ port: 0, root: site });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  host?.server.close();
  if (site) await rm(site, { recursive: true, force: true });
});

const opts = { timeout: TIMEOUT * 3 };
const escapeAttribute = (text) => text.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
const engineError = (config) => {
  try {
    env.engine.run(config);
  } catch (error) {
    return error;
  }
  throw new Error(`${JSON.stringify(config)} was expected to be refused`);
};

/** A fresh page that records problems and dialogs; waits for `waitFor` (a selector) if given. */
async function open(url, { waitFor, init } = {}) {
  const context = await env.browser.newContext({ viewport: { width: 1200, height: 900 }, locale: 'en-US', acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(`console: ${m.text().slice(0, 300)}`); });
  page.on('pageerror', (e) => problems.push(`pageerror: ${e.message.slice(0, 300)}`));
  page.on('dialog', (d) => { problems.push(`dialog: ${d.message()}`); d.dismiss().catch(() => {}); });
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  if (init) await page.addInitScript(init);
  await page.goto(url);
  if (waitFor) await page.locator(waitFor).first().waitFor();
  return { page, context, problems };
}

// Everything a payload could have left behind, across the document and every shadow root.
const SCAN = `(() => {
  const found = [];
  const walk = (root, where) => {
    for (const node of root.querySelectorAll('*')) {
      if (node.shadowRoot) walk(node.shadowRoot, where + ' > ' + node.localName + (node.id ? '#' + node.id : ''));
      const tag = node.localName;
      for (const { name, value } of node.attributes) {
        if (/^on/i.test(name) && name.toLowerCase() in window) found.push(where + ': <' + tag + ' ' + name + '>');
        if (/^(href|src|action|formaction|xlink:href|data|srcdoc)$/i.test(name) && /^\\s*javascript:/i.test(value)) found.push(where + ': <' + tag + ' ' + name + '=javascript:>');
      }
      const ownScript = root === document && tag === 'script' && node.src.startsWith(location.origin);
      // The page's own links: "skip to the walkthrough", the contents' and "start here" links to the
      // chapters, each
      // step's link to itself, and the heatmap's link to the section on what attention learns (each
      // a fragment on this page).
      const fragment = (node.getAttribute('href') ?? '').startsWith('#');
      const ownLink = tag === 'a' && ((root === document && node.classList.contains('skip'))
        || (node.classList.contains('trained-link') && node.getAttribute('href') === '#trained')
        || (root === document && fragment && node.closest('.toc-list, section#start'))
        || (node.classList.contains('step-link') && /^#step-[a-z_]+$/.test(node.getAttribute('href') ?? '')));
      if (['script', 'iframe', 'object', 'embed', 'frame', 'a', 'base', 'meta'].includes(tag) && !ownScript && !ownLink && !(root === document && tag === 'meta' && !node.httpEquiv)) found.push(where + ': <' + tag + '>');
      if (tag === 'img' && !(root === document && node.getAttribute('src') === 'favicon.svg')) found.push(where + ': <img src=' + node.getAttribute('src') + '>');
    }
  };
  walk(document, 'document');
  return { found, pwned: window.__pwned ?? null, polluted: ({}).polluted ?? null, title: document.title.length };
})()`;

async function assertClean(page, problems, label) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 50))));
  const scan = await page.evaluate(SCAN);
  assert.deepEqual(scan.found, [], `${label}: injected elements`);
  assert.equal(scan.pwned, null, `${label}: a payload ran`);
  assert.equal(scan.polluted, null, `${label}: Object.prototype polluted`);
  assert.deepEqual(problems, [], `${label}: console errors, page errors, CSP violations or dialogs`);
}

/** The heatmap's column labels in the playground (the table view): the tokens as the page shows them. */
const shownTokens = (page) => deep(page, ($, $$) => $$('mha-playground', 'mha-heatmap', 'figure.panel[data-b="0"][data-h="0"] text[text-anchor="end"]').length
  ? $$('mha-playground', 'mha-heatmap', '.table-view thead th').slice(1).map((th) => th.textContent) : []);
const summary = (page) => page.locator('mha-playground .summary-line').textContent();

test('hostile tokens, quiz answers and long text on the docs page stay text', opts, async () => {
  const { page, context, problems } = await open(env.url, { waitFor: 'mha-walkthrough h3' });
  const tokens = page.locator('mha-playground input[name="tokens"]');
  await tokens.fill(PAYLOADS.join(' '));
  await page.locator('mha-playground .summary-line', { hasText: `T = ${PAYLOADS.length} tokens` }).waitFor();
  assert.deepEqual(await shownTokens(page), PAYLOADS, 'each payload is one token label, as typed');
  // The walkthrough's token labels and the mistakes' row labels are the same literal text (the
  // mistakes panel draws when the page is idle: wait for it to show this run).
  const mistakeLabels = () => deep(page, ($, $$) => $$('mha-playground', '[data-mistake="noProjection"] [data-side="wrong"] tr th').map((th) => th.textContent));
  let labels = await mistakeLabels();
  for (const until = Date.now() + 10_000; !PAYLOADS.slice(0, 4).every((payload) => labels.includes(payload)) && Date.now() < until;) {
    await page.waitForTimeout(100);
    labels = await mistakeLabels();
  }
  for (const payload of PAYLOADS.slice(0, 4)) assert.ok(labels.includes(payload), `${payload} among ${labels}`);
  await assertClean(page, problems, 'payload tokens');

  // A payload with spaces is several tokens, each literal text.
  await tokens.fill(SPACED);
  await page.locator('mha-playground .summary-line', { hasText: 'T = 3 tokens' }).waitFor();
  assert.deepEqual(await shownTokens(page), SPACED.split(' '));

  // The quiz's answer box: a wrong answer, said as text.
  const quiz = page.locator('mha-playground li[data-question="D"]');
  await quiz.locator('input').fill(PAYLOADS[0]);
  await quiz.locator('input').press('Enter');
  await quiz.locator('.verdict[data-ok="false"]').waitFor();
  await assertClean(page, problems, 'quiz');

  // 100,000 characters: one token; then 100,000 characters of words, far over the page's cap: refused.
  await tokens.fill(LONG);
  await page.locator('mha-playground .summary-line', { hasText: 'T = 1 tokens' }).waitFor();
  assert.deepEqual(await shownTokens(page), [LONG]);
  const words = 'ab '.repeat(33_334);
  const started = Date.now();
  await tokens.fill(words);
  const expected = engineError({ B: 2, T: 33_334, C: 8, H: 2, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP });
  await page.locator(`mha-playground #error-${expected.field}`, { hasText: pageErrorText(expected, 'en', env.engine.messages) }).waitFor();
  assert.ok(Date.now() - started < 10_000, 'refused quickly');
  assert.deepEqual(await shownTokens(page), [LONG], 'the last valid run stays');

  // Still usable: a valid change re-renders.
  await tokens.fill('still works');
  await page.locator('mha-playground .summary-line', { hasText: 'T = 2 tokens' }).waitFor();
  assert.deepEqual(await shownTokens(page), ['still', 'works']);
  assert.equal(await page.locator(`mha-playground #error-${expected.field}`).textContent(), '');
  await assertClean(page, problems, 'long text');
  await context.close();
});

test('hostile URL query and hash: read as text, never as markup', opts, async () => {
  // Fields that still leave a valid run (tokens, step, view, batch, head, lang) and the hash.
  // (The query stays under the server's 16 KB header limit; 100,000 characters go in the hash.)
  const query = new URLSearchParams({ tokens: `${PAYLOADS.join(' ')} ${'y'.repeat(8000)}`, step: PAYLOADS[1], view: PAYLOADS[0], batch: PAYLOADS[2], head: SPACED, lang: PAYLOADS[3] });
  const hash = `#${encodeURIComponent(PAYLOADS[0])}${'z'.repeat(100_000)}`;
  const first = await open(`${env.url}?${query}${hash}`, { waitFor: 'mha-walkthrough h3' });
  assert.deepEqual(await shownTokens(first.page), [...PAYLOADS, 'y'.repeat(8000)]);
  assert.equal(await first.page.locator('mha-walkthrough h3').getAttribute('data-step'), 'x', 'an unknown step falls back to the first');
  assert.equal(await first.page.locator('mha-playground section.heatmaps mha-heatmap select.step-select').inputValue(), 'weights', 'an unknown heatmap step falls back to the weights');
  await first.page.locator('mha-playground form.controls input[name="seed"]').fill('5');
  await first.page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '5');
  // Written back as the same text, within the URL limit: 8,000 characters do not fit, so the link
  // keeps the labels that fit and says how many tokens there are (t), which gives the same run.
  const written = new URL(first.page.url());
  assert.ok(written.pathname.length + written.search.length + written.hash.length <= MAX_URL_LENGTH, `${written.href.length} characters`);
  const back = decodeState(written.search, written.hash);
  const tokens = back.state.tokens.split(' ');
  assert.equal(tokens.length, PAYLOADS.length + 1);
  assert.deepEqual(tokens.slice(0, back.cut.given), [...PAYLOADS, 'y'.repeat(8000)].slice(0, back.cut.given));
  assert.ok(back.cut.given >= PAYLOADS.length, 'the payloads themselves fit');
  await assertClean(first.page, first.problems, 'query with a valid run');
  await first.context.close();

  // Config fields that make the run invalid: the engine's message shows the text, literally.
  const bad = new URLSearchParams({ b: PAYLOADS[0], c: PAYLOADS[1], h: PAYLOADS[2], hkv: SPACED, tk: PAYLOADS[3], mask: PAYLOADS[4], 'key-lengths': PAYLOADS[5], seed: LONG.slice(0, 5000), lang: 'en' });
  const second = await open(`${env.url}?${bad}`);
  const expected = engineError({ B: PAYLOADS[0], T: 4, C: PAYLOADS[1], H: PAYLOADS[2], Hkv: SPACED, Tk: PAYLOADS[3], mask: PAYLOADS[4], keyLengths: [PAYLOADS[5]], bias: true, seed: 'x'.repeat(5000), memoryCap: PAGE_MEMORY_CAP });
  assert.ok(expected.message.includes(PAYLOADS[0]), expected.message);
  await second.page.locator(`mha-playground #error-${expected.field}`, { hasText: expected.message }).waitFor();
  await assertClean(second.page, second.problems, 'query with invalid fields');
  // Usable: typing a valid config runs it.
  const fill = async (name, value) => second.page.locator(`mha-playground form.controls [name="${name}"]`).fill(value);
  for (const [name, value] of [['B', '1'], ['C', '8'], ['H', '2'], ['Hkv', ''], ['Tk', ''], ['keyLengths', ''], ['seed', '0']]) await fill(name, value);
  await second.page.locator('mha-playground select[name="mask"]').selectOption('causal');
  await second.page.locator('mha-walkthrough h3').waitFor();
  assert.equal(await second.page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 2);
  await assertClean(second.page, second.problems, 'after fixing the query');
  await second.context.close();

  // The iframe route: every attribute it passes on, hostile, and an unknown element name.
  const embed = new URLSearchParams({ el: PAYLOADS[0], tokens: PAYLOADS.join(' '), lang: PAYLOADS[1], step: PAYLOADS[2], from: SPACED, to: PAYLOADS[3], theme: PAYLOADS[4], batch: PAYLOADS[5], head: LONG.slice(0, 5000), only: PAYLOADS[0], onload: 'window.__pwned="onload"' });
  const third = await open(`${env.url}embed.html?${embed}`, { waitFor: 'mha-walkthrough h3' });
  assert.equal(await third.page.evaluate(() => document.getElementById('embed').firstElementChild.localName), 'mha-walkthrough', 'an unknown el: the walkthrough');
  assert.equal(await third.page.locator('mha-walkthrough .steps button').count(), env.engine.run({ B: 2, T: PAYLOADS.length, C: 8, H: 2 }).steps.length);
  await third.page.locator('mha-walkthrough button[data-action="next"]').click();
  await third.page.locator('mha-walkthrough h3[data-step="q"]').waitFor();
  await assertClean(third.page, third.problems, 'iframe route');
  await third.context.close();
});

test('hostile attributes on a host page: tokens, lang, step, from, to, theme, sizes, mask, key-lengths, for', opts, async () => {
  const a = (text) => escapeAttribute(text);
  await writeFile(join(site, 'attrs.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="/favicon.svg">
<script type="module" src="lib/mha-lens.js"></script></head><body>
<mha-walkthrough id="walk" tokens="${a(PAYLOADS.join(' '))}" lang="${a(PAYLOADS[0])}" step="${a(PAYLOADS[1])}" from="${a(PAYLOADS[2])}" to="${a(SPACED)}" theme="${a(PAYLOADS[3])}" c="8" h="2"></mha-walkthrough>
<mha-walkthrough id="backwards" from="output" to="x" b="1"></mha-walkthrough>
<mha-heatmap id="map" tokens="${a(PAYLOADS.slice(0, 4).join(' '))}" step="${a(PAYLOADS[0])}" batch="${a(PAYLOADS[1])}" head="${a(LONG)}" pinned="${a(PAYLOADS[2])}" only="${a(PAYLOADS[4])}"></mha-heatmap>
<mha-heatmap id="long" tokens="${LONG}" lang="${a(LONG)}"></mha-heatmap>
<mha-heatmap id="lengths" key-lengths="${a(PAYLOADS[0])}"></mha-heatmap>
<mha-heatmap id="masked" mask="${a(SPACED)}"></mha-heatmap>
<mha-shapes id="follow" for="${a(PAYLOADS[1])}" current="${a(PAYLOADS[0])}"></mha-shapes>
<mha-shapes id="sizes" c="${a(PAYLOADS[0])}" h="${a(LONG)}"></mha-shapes>
<mha-playground id="play" tokens="${a(PAYLOADS.join(' '))}" lang="${a(PAYLOADS[5])}" b="${a(PAYLOADS[3])}" theme="${a(SPACED)}"></mha-playground>
</body></html>`);
  const { page, context, problems } = await open(`${host.url}attrs.html`, { waitFor: '#walk h3' });
  await page.locator('#long figure.panel').first().waitFor();
  await page.locator('#map figure.panel').first().waitFor();
  const tableTokens = (id) => deep(page, ($, $$, id) => $$(`#${id}`, '.table-view thead th').slice(1).map((th) => th.textContent), id);
  assert.deepEqual(await tableTokens('map'), PAYLOADS.slice(0, 4));
  assert.deepEqual(await tableTokens('long'), [LONG]);
  const stepper = await deep(page, ($, $$) => $$('#walk', '.steps button').map((b) => b.dataset.id));
  assert.ok(stepper.length > 5, 'an unknown step, from and to leave the whole walkthrough');
  await page.locator('#backwards h3').waitFor();
  assert.equal(await page.locator('#backwards .steps button').count(), stepper.length, 'from after to: the whole walkthrough');
  // Invalid configs show the engine's message, with the attribute's text as text.
  const messages = [
    ['lengths', { B: 2, T: 4, C: 8, H: 2, keyLengths: [PAYLOADS[0]] }],
    ['masked', { B: 2, T: 4, C: 8, H: 2, mask: SPACED }],
    ['sizes', { B: 2, T: 4, C: PAYLOADS[0], H: LONG }],
  ];
  for (const [id, config] of messages) await page.locator(`#${id} .element-error`, { hasText: engineError(config).message }).waitFor();
  await page.locator('#follow .element-error', { hasText: `for="${PAYLOADS[1]}"` }).waitFor();
  const expected = engineError({ B: PAYLOADS[3], T: PAYLOADS.length, C: 8, H: 2, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP });
  await page.locator(`#play #error-${expected.field}`, { hasText: expected.message }).waitFor();
  await assertClean(page, problems, 'attributes');

  // Still usable: valid attributes re-render each element.
  await page.evaluate(() => {
    document.getElementById('lengths').setAttribute('key-lengths', '4 2');
    document.getElementById('masked').setAttribute('mask', 'causal');
    document.getElementById('sizes').setAttribute('c', '12');
    document.getElementById('sizes').setAttribute('h', '3');
    document.getElementById('play').setAttribute('b', '1');
    document.getElementById('follow').setAttribute('for', 'walk');
  });
  await page.locator('#lengths figure.panel').first().waitFor();
  await page.locator('#masked figure.panel').first().waitFor();
  await page.locator('#sizes .chip').first().waitFor();
  await page.locator('#follow .chip').first().waitFor();
  await page.locator('#play mha-walkthrough h3').waitFor();
  assert.equal(await page.locator('#play mha-heatmap figure.panel').count(), 2);
  assert.equal(await page.locator('#sizes .element-error').count(), 0);
  await assertClean(page, problems, 'attributes fixed');
  await context.close();
});

test('a hostile wasm-url is refused as a URL, not run, and the next element can still load the engine', opts, async () => {
  await writeFile(join(site, 'wasm.html'), `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>host</title><link rel="icon" href="/favicon.svg">
<script type="module" src="lib/mha-lens.js"></script></head><body>
<mha-heatmap id="js" wasm-url="${escapeAttribute('javascript:window.__pwned="wasm"')}"></mha-heatmap>
</body></html>`);
  const { page, context, problems } = await open(`${host.url}wasm.html`);
  await page.locator('#js .element-error[data-field="engine"]').waitFor();
  assert.match(await page.locator('#js .element-error').textContent(), /wasm-url|WebAssembly/);
  const add = (url) => page.evaluate((url) => {
    const element = document.createElement('mha-shapes');
    element.className = 'hostile';
    element.setAttribute('wasm-url', url);
    document.body.append(element);
  }, url);
  await add('data:application/wasm;base64,AGFzbQ==');
  await page.locator('mha-shapes.hostile .element-error[data-field="engine"]').waitFor();
  await assertClean(page, problems, 'javascript: and data: wasm-url');
  // Markup as a wasm-url is a relative URL on the host: fetched, not found, and that is all.
  await add('"><script>window.__pwned="wasm2"</script>');
  await page.locator('mha-shapes.hostile .element-error[data-field="engine"]').nth(1).waitFor();
  assert.ok(problems.length > 0 && problems.every((p) => /Failed to load resource: .*404/.test(p)), problems.join('\n'));
  problems.length = 0;
  await assertClean(page, problems, 'markup wasm-url');
  // A good element after them loads the engine (a failed load is not remembered for the page).
  await page.evaluate(() => {
    const element = document.createElement('mha-heatmap');
    element.id = 'good';
    element.setAttribute('wasm-url', 'lib/mha_engine.wasm');
    document.body.append(element);
  });
  await page.locator('#good figure.panel').first().waitFor();
  await assertClean(page, problems, 'good element after the hostile ones');
  await context.close();
});

test('import config (JSON): malformed, huge, deep, hostile or invalid input is refused and changes nothing', opts, async () => {
  const { page, context, problems } = await open(`${env.url}?lang=en&c=12&h=3&step=q_heads`, { waitFor: 'mha-walkthrough h3' });
  await page.locator('mha-playground details.import summary').click();
  await page.waitForFunction(() => new URLSearchParams(location.search).get('lang') === 'en');
  const view = () => deep(page, ($, $$) => ({
    url: location.search,
    step: $('mha-playground', 'mha-walkthrough', 'h3')?.dataset.step,
    shape: $('mha-playground', 'mha-walkthrough', '.shape-text')?.textContent,
    panels: $$('mha-playground', 'mha-heatmap', 'figure.panel').length,
    controls: $$('mha-playground', 'form.controls [name]').map((input) => (input.type === 'checkbox' ? input.checked : input.value)),
  }));
  const before = await view();
  const error = page.locator('mha-playground #error-import');
  const paste = async (text) => {
    await page.locator('mha-playground #import-text').fill(text);
    await page.locator('mha-playground button[data-action="import"]').click();
  };
  // The message as the page's own table words it (cpp/data/messages.json, the page's part).
  const fill = (key, params = {}) => renderMessage(MESSAGES, key, params, 'en');
  const refusedWith = async (text, label) => {
    await error.filter({ hasText: text }).waitFor();
    assert.ok((await error.textContent()).startsWith(EN['import.refused']), label);
    assert.deepEqual(await view(), before, `${label}: nothing changed`);
    assert.equal(await page.locator('mha-playground .import-status').textContent(), '');
  };

  await paste(`not json ${SPACED}`);
  await refusedWith('This is not JSON', 'not JSON');
  await paste('[1, 2]');
  await refusedWith(fill('import.error.notObject', { type: 'array' }), 'an array');
  await paste('{"__proto__": {"polluted": "yes", "C": 16}, "C": 16}');
  await refusedWith(fill('import.error.forbiddenKey', { key: '__proto__' }), '__proto__');
  await paste(`${'['.repeat(100_000)}${']'.repeat(100_000)}`);
  await refusedWith(fill('import.error.tooDeep', { max: MAX_IMPORT_DEPTH }), 'deep');
  await paste('{"C": "16"}');
  await refusedWith(fill('import.error.wrongType', { field: 'C', expected: 'import.type.number' }), 'wrong type');
  await paste('{"summary": {"C": 16}}');
  await refusedWith(fill('import.error.noConfig'), 'no config');
  // Valid JSON, invalid for the engine: the engine's message, hostile text and all.
  await paste(JSON.stringify({ C: 10, H: 4 }));
  await refusedWith(engineError({ B: 2, T: 4, C: 10, H: 4, mask: 'none', bias: true, seed: 0 }).message, 'engine: C % H');
  await paste(JSON.stringify({ mask: SPACED, tokens: PAYLOADS }));
  await refusedWith(engineError({ B: 2, T: PAYLOADS.length, C: 8, H: 2, mask: SPACED }).message, 'engine: hostile mask');
  await paste(JSON.stringify({ T: 4096, C: 768, H: 12 }));
  const cap = engineError({ B: 2, T: 4096, C: 768, H: 12, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP });
  assert.match(cap.message, /needs [\d.]+ GiB/);
  await refusedWith(cap.message, 'over the memory cap');
  // Files: too large (refused before reading), broken, and a hostile but valid snapshot.
  const input = page.locator('mha-playground #import-file');
  await input.setInputFiles({ name: 'big.json', mimeType: 'application/json', buffer: Buffer.alloc(6 * 2 ** 20, 0x20) });
  await refusedWith(fill('import.error.tooLarge', { size: '6.0 MiB', max: '5.0 MiB' }), 'too large');
  await input.setInputFiles({ name: 'broken.json', mimeType: 'application/json', buffer: Buffer.from('{"tool": "mha-lens", "config": {') });
  await refusedWith('This is not JSON', 'broken file');
  await assertClean(page, problems, 'refused imports');

  const snapshot = { tool: 'mha-lens', config: { B: 1, T: 4, C: 12, H: 4, Hkv: 2, mask: 'causal', bias: false, seed: 3 }, tokens: PAYLOADS.slice(0, 4), summary: { onload: SPACED }, steps: [{ id: PAYLOADS[0] }] };
  await input.setInputFiles({ name: 'snapshot.json', mimeType: 'application/json', buffer: Buffer.from(JSON.stringify(snapshot)) });
  await page.locator('mha-playground .import-status', { hasText: EN['import.done'] }).waitFor();
  assert.equal(await error.textContent(), '');
  await page.locator('mha-playground .summary-line', { hasText: 'T = 4 tokens' }).waitFor();
  assert.deepEqual(await shownTokens(page), PAYLOADS.slice(0, 4));
  assert.equal(await page.locator('mha-playground input[name="Hkv"]').inputValue(), '2');
  assert.equal(await page.locator('mha-playground input[name="bias"]').isChecked(), false);
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 4);
  const run = env.engine.run(snapshot.config);
  const weights = run.step('weights');
  const masked = run.step('masked');
  const shown = await heatmapCells(page, ['mha-playground', 'mha-heatmap'], { b: 0, h: 1, rows: 4, cols: 4 });
  const isMasked = (i) => masked.data[i] === -Infinity;
  const scale = heatmapScales(weights, heatmapPanels(weights, run.summary.Hkv), 'uniform', isMasked)[1];
  assert.deepEqual(shown.cells.map((cell) => cell.color), Array.from(weights.data.subarray(16, 32), (v, i) => (isMasked(16 + i) ? '#e8e8e8' : scale.color(v, Math.floor(i / 4)))), 'the imported config is what ran');
  assert.deepEqual(shown.cells.map((cell) => cell.hatched), Array.from(masked.data.subarray(16, 32), (v) => v === -Infinity), 'with its causal mask');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('hkv') === '2');
  assert.equal(await page.locator('mha-walkthrough h3').getAttribute('data-step'), 'q_heads', 'the view (step) is kept');
  await assertClean(page, problems, 'hostile snapshot imported');

  // The page's own export imports back to the same config.
  await page.locator('mha-playground form.controls input[name="seed"]').fill('11');
  await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '11');
  const [download] = await Promise.all([page.waitForEvent('download'), page.locator('mha-playground button[data-export="json"]').click()]);
  const exported = await readFile(await download.path());
  await paste('{"C": 16, "H": 2}');
  await page.locator('mha-playground .summary-line', { hasText: 'D = 8' }).waitFor();
  await input.setInputFiles({ name: 'mha-lens-run.json', mimeType: 'application/json', buffer: exported });
  await page.waitForFunction(() => new URLSearchParams(location.search).get('seed') === '11' && new URLSearchParams(location.search).get('c') === '12');
  assert.deepEqual(await shownTokens(page), PAYLOADS.slice(0, 4));
  await assertClean(page, problems, 'export then import');
  await context.close();
});

// The bytes of every WebAssembly.Memory the page instantiated: an init script notes each
// instance's memory (the engine keeps its module private).
const NOTE_WASM_MEMORY = () => {
  window.__wasmMemories = [];
  const keep = (result) => {
    const instance = result.instance ?? result;
    for (const value of Object.values(instance.exports ?? {})) if (value instanceof WebAssembly.Memory) window.__wasmMemories.push(value);
    return result;
  };
  for (const name of ['instantiate', 'instantiateStreaming']) {
    const original = WebAssembly[name];
    WebAssembly[name] = function instantiate(...args) { return original.apply(this, args).then(keep); };
  }
};
const wasmMemory = (page) => page.evaluate(() => window.__wasmMemories.map((memory) => memory.buffer.byteLength));

test('a config over the memory cap (T=4096, C=768, H=12) is refused with its size, before any allocation', opts, async () => {
  const { page, context, problems } = await open(`${env.url}?lang=en`, { waitFor: 'mha-walkthrough h3', init: NOTE_WASM_MEMORY });
  const field = (name) => page.locator(`mha-playground input[name="${name}"]`);
  await field('C').fill('768');
  await page.locator('mha-playground .summary-line', { hasText: 'D = 384' }).waitFor();
  await field('H').fill('12');
  await page.locator('mha-playground .summary-line', { hasText: 'D = 64' }).waitFor();
  const before = await wasmMemory(page);
  assert.equal(before.length, 1, 'one engine');
  const shown = await shownTokens(page);

  const started = Date.now();
  await field('tokens').fill(Array.from({ length: 4096 }, (_, i) => `w${i}`).join(' '));
  const expected = engineError({ B: 2, T: 4096, C: 768, H: 12, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP });
  assert.equal(expected.code, 'memory_cap');
  const size = expected.message.match(/needs ([\d.]+ [KMGT]iB)/)?.[1];
  assert.ok(size, `the engine states the size: ${expected.message}`);
  assert.equal(expected.field, 'T', 'the size to lower is T, the tokens');
  const message = page.locator('mha-playground #error-T');
  // The page's own words for its cap (it has no memoryCap control to raise), from the error's data.
  const pageText = (error) => pageErrorText(error, 'en', env.engine.messages);
  assert.doesNotMatch(pageText(expected), /memoryCap/);
  await message.filter({ hasText: pageText(expected) }).waitFor();
  assert.ok(Date.now() - started < 10_000, `refused in ${Date.now() - started} ms`);
  assert.match(await message.textContent(), new RegExp(`needs ${size.replace('.', '\\.')}`));
  // Next to the control at fault: the tokens box names it as its description.
  assert.match(await field('tokens').getAttribute('aria-describedby'), /\berror-T\b/);
  assert.deepEqual(await wasmMemory(page), before, 'the wasm memory did not grow');
  assert.deepEqual(await shownTokens(page), shown, 'the last valid run stays');

  // B = 1, and a larger B: refused the same way.
  await field('B').fill('64');
  await message.filter({ hasText: pageText(engineError({ B: 64, T: 4096, C: 768, H: 12, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP })) }).waitFor();
  await field('B').fill('1');
  await message.filter({ hasText: pageText(engineError({ B: 1, T: 4096, C: 768, H: 12, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP })) }).waitFor();
  assert.deepEqual(await wasmMemory(page), before, 'still not grown');

  // Responsive: a valid change re-renders at once.
  await field('tokens').fill('back to small');
  await page.locator('mha-playground .summary-line', { hasText: 'T = 3 tokens' }).waitFor();
  assert.equal(await message.textContent(), '');
  assert.equal(await page.locator('mha-playground section.heatmaps mha-heatmap figure.panel').count(), 12);
  // The probe does see an allocation: 64 tokens at C=768 need more than the first 16 MiB.
  await field('tokens').fill(Array.from({ length: 64 }, (_, i) => `v${i}`).join(' '));
  await page.locator('mha-playground .summary-line', { hasText: 'T = 64 tokens' }).waitFor();
  assert.ok((await wasmMemory(page))[0] > before[0], 'a valid larger run grows the wasm memory');
  await assertClean(page, problems, 'memory cap');
  await context.close();
});

test('a link asking for C = H = 8192 answers at once: the message next to C, no memory grown, the page responsive', opts, async () => {
  // This URL once blocked the main thread for 24–29 s and took 7.5 GB. The
  // engine refuses it by its memory cap before allocating (the weights alone need 1 GiB).
  const noteLongTasks = () => {
    window.__longTasks = [];
    new PerformanceObserver((list) => window.__longTasks.push(...list.getEntries().map((entry) => entry.duration))).observe({ type: 'longtask', buffered: true });
  };
  const started = Date.now();
  const { page, context, problems } = await open(`${env.url}?b=1&c=8192&h=8192&tokens=a&lang=en`, { init: `(${NOTE_WASM_MEMORY})(); (${noteLongTasks})();` });
  const expected = engineError({ B: 1, T: 1, C: 8192, H: 8192, mask: 'none', bias: true, seed: 0, memoryCap: PAGE_MEMORY_CAP });
  assert.equal(expected.field, 'C', 'the engine names C, the size to lower');
  const text = pageErrorText(expected, 'en', env.engine.messages);
  assert.match(text, /Lower C\./);
  const message = page.locator('mha-playground #error-C');
  await message.filter({ hasText: text }).waitFor();
  const elapsed = Date.now() - started;
  assert.ok(elapsed < 15_000, `answered in ${elapsed} ms (page load included)`);
  assert.equal(await page.locator('mha-playground input[name="C"]').getAttribute('aria-invalid'), 'true');
  // No wasm memory beyond what the module starts with: nothing was allocated for the refused run.
  const memories = await wasmMemory(page);
  assert.equal(memories.length, 1);
  assert.ok(memories[0] <= 32 * 2 ** 20, `wasm memory ${memories[0]} bytes`);
  const longest = await page.evaluate(() => Math.max(0, ...window.__longTasks));
  assert.ok(longest < 2000, `the longest task took ${longest} ms`);
  // Responsive: a valid width runs at once.
  await page.locator('mha-playground input[name="C"]').fill('16');
  await page.locator('mha-playground input[name="H"]').fill('4');
  await page.locator('mha-walkthrough h3').waitFor();
  assert.equal(await message.textContent(), '');
  await assertClean(page, problems, 'C = 8192');
  await context.close();
});
