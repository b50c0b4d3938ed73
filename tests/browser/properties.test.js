// Every attribute's property, as React 19 and Vue use them (they set a custom element's property
// when it has one): on every element, each observed attribute has a same-named property with a
// setter, which takes the attribute's text and the natural JS value without throwing, reflects to
// the attribute and reads back as a JS value; values set before the element is defined are taken
// when it upgrades; one mha-error per element when the engine does not load, and a follower shows
// its target's error instead of "Loading…". The sample values are the consumer-site suite's
// (tests/sites/contract.js), which checks the same twins in real framework builds.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { TIMEOUT, launch, makeHostSite } from './harness.js';
import { SAMPLES } from '../sites/contract.js';
import { ELEMENT_ATTRIBUTES, propertyName } from '../../web/src/logic/attributes.js';

let env;
let site;
let host;
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-props-');
  // Elements made and given properties before the script defines them (a framework that renders
  // before the widgets' chunk arrives), then the script.
  await writeFile(join(site, 'early.js'), `
const walk = document.createElement('mha-walkthrough');
walk.id = 'walk'; walk.c = 12; walk.h = 3; walk.tokens = ['the', 'cat', 'sat', 'on', 'the', 'mat']; walk.seed = 7;
const follow = document.createElement('mha-heatmap');
follow.id = 'follow'; follow.for = 'walk'; follow.step = 'scores'; follow.head = 2;
const causal = document.createElement('mha-heatmap');
causal.id = 'causal'; causal.c = 8; causal.h = 2; causal.mask = 'causal'; causal.tokens = 'I love deep learning'; causal.bias = false; causal.only = true; causal.scale = 'head'; causal.cellSize = 28; causal.keyLengths = [4];
document.getElementById('main').append(walk, follow, causal);
`);
  await writeFile(join(site, 'early.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>early</title></head><body>
<main id="main"></main>
<script src="early.js"></script>
<script type="module" src="lib/mha-lens.js"></script>
</body></html>`);
  await writeFile(join(site, 'blank.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>blank</title><script type="module" src="lib/mha-lens.js"></script></head><body><main id="main"></main></body></html>');
  await writeFile(join(site, 'broken.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>broken</title>
<meta name="mha-lens:wasm-url" content="missing/mha_engine.wasm"><script type="module" src="lib/mha-lens.js"></script></head><body>
<mha-walkthrough id="walk" c="12" h="3" tokens="the cat sat on the mat" seed="7"></mha-walkthrough>
<mha-heatmap id="follow" for="walk" step="scores" head="2"></mha-heatmap>
<mha-shapes id="shapes" b="2" t="5" c="16" h="4" hkv="2"></mha-shapes>
</body></html>`);
  // The bundle where Vite 5/6's dev server pre-bundles a dependency, with no .wasm beside it.
  await mkdir(join(site, 'node_modules', '.vite', 'deps'), { recursive: true });
  await copyFile(join(site, 'lib', 'mha-lens.js'), join(site, 'node_modules', '.vite', 'deps', 'mha-lens.js'));
  await writeFile(join(site, 'prebundled.html'), '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>deps</title><script type="module" src="node_modules/.vite/deps/mha-lens.js"></script></head><body><mha-shapes id="shapes"></mha-shapes></body></html>');
  host = await startServer({ port: 0, root: site });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  host?.server.close();
  if (site) await rm(site, { recursive: true, force: true });
});

async function open(path) {
  const context = await env.browser.newContext();
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('pageerror', (error) => problems.push(error.message));
  await page.addInitScript(() => {
    window.mhaErrors = [];
    document.addEventListener('mha-error', (event) => window.mhaErrors.push(event.target.id), true);
  });
  await page.goto(`${host.url}${path}`);
  await page.waitForFunction(() => customElements.get('mha-trainer'));
  return { page, context, problems };
}

test('every attribute has a property that takes text and JS values, never throws, reflects and reads back', { timeout: TIMEOUT }, async () => {
  const { page, context, problems } = await open('blank.html');
  const rows = await page.evaluate(({ elements, samples }) => {
    const camel = (name) => name.replace(/-([a-z])/g, (_, c) => c.toUpperCase());
    const out = [];
    for (const [tag, attributes] of Object.entries(elements)) {
      const observed = customElements.get(tag).observedAttributes;
      out.push({ tag, observed: [...observed].sort(), table: [...attributes].sort() });
      for (const attribute of attributes) {
        const property = camel(attribute);
        const problems = [];
        const element = document.createElement(tag);
        let descriptor = null;
        for (let p = Object.getPrototypeOf(element); p && !descriptor; p = Object.getPrototypeOf(p)) descriptor = Object.getOwnPropertyDescriptor(p, property);
        if (!descriptor?.set) problems.push('no setter');
        const [text, value] = samples[attribute] ?? [attribute === 'wasm-url' ? 'lib/mha_engine.wasm' : 'walk', attribute === 'wasm-url' ? 'lib/mha_engine.wasm' : 'walk'];
        for (const given of [value, text, null, Symbol('s'), { toString() { throw new Error('x'); } }, [1, [2]], 3n]) {
          try { element[property] = given; } catch (error) { problems.push(`${String(typeof given)} threw ${error.message}`); }
        }
        element[property] = value;
        const reflected = element.getAttribute(attribute);
        // The attribute holds the text the sample's attribute form has (a flag: present).
        if (reflected !== text) problems.push(`reflects ${JSON.stringify(value)} as ${JSON.stringify(reflected)}, want ${JSON.stringify(text)}`);
        element[property] = text;
        if (element.getAttribute(attribute) !== text) problems.push(`text ${JSON.stringify(text)} reflects as ${JSON.stringify(element.getAttribute(attribute))}`);
        out.push({ tag, attribute, property, problems, read: (() => { try { return JSON.stringify(element[property]); } catch (error) { return `threw ${error.message}`; } })() });
      }
    }
    return out;
  }, { elements: ELEMENT_ATTRIBUTES, samples: SAMPLES });
  for (const row of rows) {
    if (row.observed) { assert.deepEqual(row.observed, row.table, `<${row.tag}> observes the table's attributes`); continue; }
    assert.deepEqual(row.problems, [], `<${row.tag}> ${row.attribute} (.${row.property})`);
    assert.doesNotMatch(row.read, /^threw/, `<${row.tag}> reading .${row.property}`);
  }
  // Read back as JS values.
  const read = await page.evaluate(() => {
    const h = document.createElement('mha-heatmap');
    h.setAttribute('c', '12'); h.setAttribute('tokens', 'a b  c'); h.setAttribute('key-lengths', '3,2'); h.setAttribute('only', ''); h.setAttribute('bias', 'off');
    return { c: h.c, tokens: h.tokens, keyLengths: h.keyLengths, only: h.only, average: h.average, bias: h.bias, b: h.b };
  });
  assert.deepEqual(read, { c: 12, tokens: ['a', 'b', 'c'], keyLengths: [3, 2], only: true, average: false, bias: false, b: null });
  assert.deepEqual(problems, []);
  assert.equal(propertyName('cell-size'), 'cellSize');
  await context.close();
});

test('properties set before the elements are defined give the elements the attributes would', { timeout: TIMEOUT }, async () => {
  const { page, context, problems } = await open('early.html');
  await page.waitForFunction(() => ['walk', 'follow', 'causal'].every((id) => document.getElementById(id).run));
  const got = await page.evaluate(() => Object.fromEntries(['walk', 'follow', 'causal'].map((id) => {
    const el = document.getElementById(id);
    const { B, T, C, H, mask, bias, keyLengths } = el.run.summary;
    return [id, { B, T, C, H, mask, bias, keyLengths, attributes: Object.fromEntries(el.getAttributeNames().map((n) => [n, el.getAttribute(n)])),
      panels: [...el.shadowRoot.querySelectorAll('figure.panel')].map((f) => `${f.dataset.b},${f.dataset.h}`), scale: el.scaleShown ?? null, selected: el.selected ?? null }];
  })));
  assert.deepEqual(got.walk.attributes, { id: 'walk', c: '12', h: '3', tokens: 'the cat sat on the mat', seed: '7' });
  assert.deepEqual([got.walk.B, got.walk.T, got.walk.C, got.walk.H], [1, 6, 12, 3]);
  assert.deepEqual([got.follow.B, got.follow.T, got.follow.H], [1, 6, 3], 'the follower shows the walkthrough\'s run');
  assert.deepEqual(got.follow.selected, { batch: 0, head: 2 });
  assert.deepEqual([got.causal.T, got.causal.mask, got.causal.bias, got.causal.keyLengths], [4, 'causal', false, [4]]);
  assert.deepEqual(got.causal.panels, ['0,0'], 'only: the selected panel');
  assert.equal(got.causal.scale, 'head');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the engine not loading: every element says so, followers too, and each fires mha-error once', { timeout: TIMEOUT }, async () => {
  const { page, context } = await open('broken.html');
  await page.waitForFunction(() => ['walk', 'follow', 'shapes'].every((id) => document.getElementById(id).shadowRoot.querySelector('.element-error')));
  await page.waitForTimeout(500);
  const shown = await page.evaluate(() => ['walk', 'follow', 'shapes'].map((id) => document.getElementById(id).shadowRoot.querySelector('.element-error').textContent));
  for (const text of shown) assert.match(text, /mha_engine\.wasm is not at .*missing\/mha_engine\.wasm \(HTTP 404\)/);
  const fired = await page.evaluate(() => window.mhaErrors);
  assert.deepEqual(fired.sort(), ['shapes', 'walk'], 'one mha-error each from the elements that failed; the follower shows the walkthrough\'s');
  await context.close();
});

test('a bundle a dev server pre-bundled into .vite/deps/: the error names the URL tried and the one line that fixes it', { timeout: TIMEOUT }, async () => {
  const { page, context } = await open('prebundled.html');
  await page.waitForFunction(() => document.getElementById('shapes').shadowRoot.querySelector('.element-error'));
  const text = await page.evaluate(() => document.getElementById('shapes').shadowRoot.querySelector('.element-error').textContent);
  assert.match(text, /mha_engine\.wasm is not at http:\/\/127\.0\.0\.1:\d+\/node_modules\/\.vite\/deps\/mha_engine\.wasm \(HTTP 404\)\. A dev server pre-bundled mha-lens .*optimizeDeps: \{ exclude: \['mha-lens'\] \}/);
  await context.close();
});
