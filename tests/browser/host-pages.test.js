// The widgets in tutorial sites: a dark host page (the reader's scheme emulated
// dark and light), the iframe route on such a page (self-sizing, self-contained, a walkthrough
// and its heatmap in one frame), a 680 px blog column (layout shift while the engine loads), and
// an author's mistakes (a mistyped attribute, controls="none"). Screenshots in tests/artifacts/.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { cp, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startServer } from '../../scripts/serve.js';
import { measureCls } from '../../scripts/measure-cls.js';
import { SIZING_SCRIPT } from '../../web/src/logic/page/embed-code.js';
import { luminance, parseColor } from '../../web/src/logic/page/scheme.js';
import { ARTIFACTS, TIMEOUT, launch, makeHostSite } from './harness.js';

const WEB = new URL('../../web/', import.meta.url).pathname;
const HOST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";
// The host's sizing line is inline: a strict host allows exactly it by its hash.
const SIZING_HASH = createHash('sha256').update(SIZING_SCRIPT.replace(/^<script>|<\/script>$/g, '')).digest('base64');

let env;
let site;
let host;
let frames; // the iframe route on another origin, copied as a site would copy it
let framing; // the host site again, allowing that origin's frames and its sizing line by hash
before(async () => {
  env = await launch();
  site = await makeHostSite('mha-lens-hosts-');
  await writeFile(join(site, 'dark.css'), 'body { background: #1b1b1f; color: #dfdfd6; font: 17px/1.6 system-ui, sans-serif; margin: 0; }\nmain { max-width: 680px; margin: 0 auto; padding: 1rem; }\niframe { border: 0; display: block; }\n');
  await writeFile(join(site, 'dark.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>dark</title>
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="dark.css"><script type="module" src="lib/mha-lens.js" blocking="render"></script></head>
<body><main><h1>A dark tutorial site</h1><p>The reader's system may be light or dark; this site is always dark.</p>
<mha-walkthrough id="walk" c="12" h="3" tokens="the cat sat" mask="causal"></mha-walkthrough>
<mha-heatmap id="heat" for="walk"></mha-heatmap>
<mha-shapes id="shapes" c="8" h="2"></mha-shapes>
<mha-heatmap id="light" theme="light" c="8" h="2" only></mha-heatmap>
<p>Text after the widgets.</p></main></body></html>`);
  await writeFile(join(site, 'mistakes.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>mistakes</title>
<link rel="icon" href="/favicon.svg"><script type="module" src="lib/mha-lens.js"></script></head><body>
<mha-walkthrough id="nostep" c="8" h="2" step="nonexistent"></mha-walkthrough>
<mha-heatmap id="output" c="8" h="2" step="output" heads="4"></mha-heatmap>
<mha-heatmap id="head" c="8" h="2" head="7" controls="none"></mha-heatmap>
<mha-heatmap id="tokens" t="6" tokens="a b c"></mha-heatmap>
</body></html>`);
  await writeFile(join(site, 'nowasm.html'), `<!doctype html><html lang="zh"><head><meta charset="utf-8"><title>no wasm</title>
<link rel="icon" href="/favicon.svg"><script type="module" src="lib/mha-lens.js"></script></head><body>
<mha-shapes id="nowasm" wasm-url="assets/mha_engine.wasm" lang="en"></mha-shapes>
</body></html>`);
  host = await startServer({ port: 0, root: site, csp: HOST_CSP });
  // The iframe route exactly as web/docs/widgets.md says to copy it: embed.html, embed.css and dist/.
  const route = await mkdtemp(join(tmpdir(), 'mha-lens-frame-'));
  await mkdir(join(route, 'dist'));
  for (const file of ['embed.html', 'embed.css']) await cp(join(WEB, file), join(route, file));
  for (const file of ['mha-lens.js', 'embed.js', 'mha_engine.wasm']) await cp(join(WEB, 'dist', file), join(route, 'dist', file));
  frames = { root: route, ...(await startServer({ port: 0, root: route, csp: `${HOST_CSP}; frame-ancestors *` })) };
  framing = await startServer({ port: 0, root: site, csp: `${HOST_CSP.replace("script-src 'self'", `script-src 'self' 'sha256-${SIZING_HASH}'`)}; frame-src ${frames.url}` });
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  host?.server.close();
  frames?.server.close();
  framing?.server.close();
  if (site) await rm(site, { recursive: true, force: true });
  if (frames) await rm(frames.root, { recursive: true, force: true });
});

async function open(url, { width = 1000, height = 900, colorScheme = 'light' } = {}) {
  const context = await env.browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  const warnings = [];
  page.on('console', (m) => {
    if (m.type() === 'error') problems.push(m.text());
    if (m.type() === 'warning') warnings.push(m.text());
  });
  page.on('pageerror', (e) => problems.push(e.message));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(url);
  return { page, context, problems, warnings };
}

// WCAG contrast of two computed colours.
const contrast = (a, b) => {
  const [hi, lo] = [luminance(parseColor(a)), luminance(parseColor(b))].sort((x, y) => y - x);
  return (hi + 0.05) / (lo + 0.05);
};

// Text colours inside an element (through its shadow root) and the background they sit on.
const textColours = (frameOrPage, selector) => frameOrPage.evaluate((selector) => {
  const element = document.querySelector(selector);
  const texts = [...element.shadowRoot.querySelectorAll('h3, dt, dd, figcaption, .note, .readout, h4, .legend span, .id, button:not([aria-current]):not([aria-pressed="true"])')];
  let node = element;
  let background = 'rgba(0, 0, 0, 0)';
  while (node && /rgba\(0, 0, 0, 0\)|transparent/.test(background)) {
    background = getComputedStyle(node).backgroundColor;
    node = node.parentElement;
  }
  if (/rgba\(0, 0, 0, 0\)/.test(background)) background = 'rgb(255, 255, 255)';
  return { background, colours: [...new Set(texts.map((t) => getComputedStyle(t).color))] };
}, selector);

test('on a dark host page every element reads, whatever the reader\'s own scheme', { timeout: TIMEOUT * 3 }, async () => {
  for (const colorScheme of ['dark', 'light']) {
    const { page, context, problems } = await open(`${host.url}dark.html`, { width: 900, colorScheme });
    await page.locator('#heat figure.panel').first().waitFor();
    await page.locator('#shapes .chip').first().waitFor();
    await page.locator('#light figure.panel').first().waitFor();
    for (const id of ['#walk', '#heat', '#shapes', '#light']) {
      const { background, colours } = await textColours(page, id);
      for (const colour of colours) assert.ok(contrast(colour, background) >= 4.5, `${colorScheme} reader, ${id}: ${colour} on ${background} is ${contrast(colour, background).toFixed(2)}:1`);
    }
    assert.equal((await textColours(page, '#light')).background, 'rgb(255, 255, 255)', 'theme="light" paints its own background');
    await page.screenshot({ path: `${ARTIFACTS}dark-host-${colorScheme}-reader.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('the elements follow a host page that switches its own theme', { timeout: TIMEOUT * 2 }, async () => {
  const { page, context, problems } = await open(`${host.url}dark.html`, { width: 900 });
  await page.locator('#shapes .chip').first().waitFor();
  const colour = () => page.evaluate(() => getComputedStyle(document.querySelector('#shapes').shadowRoot.querySelector('.id')).color);
  const dark = await colour();
  assert.ok(luminance(parseColor(dark)) > 0.3, `light text on the dark page: ${dark}`);
  // As VitePress or Docusaurus do: a class or data-theme on <html> that the site's CSS reads.
  await page.evaluate(() => { document.body.style.background = '#ffffff'; document.documentElement.dataset.theme = 'light'; });
  await page.waitForFunction((before) => getComputedStyle(document.querySelector('#shapes').shadowRoot.querySelector('.id')).color !== before, dark);
  assert.ok(luminance(parseColor(await colour())) < 0.3, 'dark text once the page is light');
  assert.deepEqual(problems, []);
  await context.close();
});

test('the iframe route: copied as embed.html, embed.css and dist/, sized to its content, dark with a dark reader', { timeout: TIMEOUT * 4 }, async () => {
  const query = new URLSearchParams({ el: 'walkthrough,heatmap', c: '12', h: '3', tokens: 'the cat sat down', view: 'weights', head: '1' });
  const frameUrl = `${frames.url}embed.html?${query}`;
  const snippet = `<iframe src="${frameUrl.replaceAll('&', '&amp;')}" title="mha-lens" width="100%" height="300" loading="lazy"></iframe>\n${SIZING_SCRIPT}`;
  await writeFile(join(site, 'framed.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>framed</title>
<link rel="icon" href="/favicon.svg"><link rel="stylesheet" href="dark.css"></head>
<body><main><h1>A post with a frame</h1><p>Before.</p>
${snippet}
<p id="after">After the frame.</p></main></body></html>`);
  for (const [colorScheme, width] of [['dark', 900], ['light', 360]]) {
    const { page, context, problems } = await open(`${framing.url}framed.html`, { width, colorScheme });
    const frame = page.frameLocator('iframe');
    await frame.locator('mha-heatmap figure.panel').first().waitFor();
    const inner = page.frames().find((f) => f.url().startsWith(frames.url));
    // The heatmap follows the walkthrough in the same frame, on the head the URL names.
    assert.equal(await frame.locator('mha-heatmap figure.panel[aria-current="true"]').getAttribute('data-h'), '1');
    const fits = async () => {
      const content = await inner.evaluate(() => Math.ceil(document.body.getBoundingClientRect().height));
      const box = await page.locator('iframe').evaluate((f) => f.getBoundingClientRect().height);
      return { content, box };
    };
    await page.waitForFunction(() => Number(document.querySelector('iframe').height) > 300);
    let { content, box } = await fits();
    assert.ok(Math.abs(content - box) <= 2, `${width}px: the frame is ${box}px for ${content}px of content`);
    assert.equal(await inner.evaluate(() => document.documentElement.scrollHeight <= innerHeight + 1), true, 'nothing scrolls inside the frame');
    // The walkthrough's height changes from step to step: the frame follows.
    await frame.locator('mha-walkthrough .steps button[data-id="scores"]').click();
    await page.waitForFunction((before) => Math.abs(document.querySelector('iframe').getBoundingClientRect().height - before) > 2, box);
    ({ content, box } = await fits());
    assert.ok(Math.abs(content - box) <= 2, `after a step: ${box}px for ${content}px`);
    const { background, colours } = await textColours(inner, 'mha-walkthrough');
    assert.equal(background, colorScheme === 'dark' ? 'rgb(22, 24, 29)' : 'rgb(255, 255, 255)');
    for (const colour of colours) assert.ok(contrast(colour, background) >= 4.5, `${colorScheme}: ${colour} on ${background}`);
    await page.screenshot({ path: `${ARTIFACTS}iframe-${colorScheme}-${width}.png`, fullPage: true });
    assert.deepEqual(problems, []);
    await context.close();
  }
});

test('a 680 px blog column does not jump while the engine loads (CLS ≤ 0.05)', { timeout: TIMEOUT * 3 }, async () => {
  for (const wasmDelay of [0, 1500]) {
    const { cls, shifts, page, close } = await measureCls(env.browser, { dist: join(WEB, 'dist'), wasmDelay, screenshot: wasmDelay ? `${ARTIFACTS}blog-column-680.png` : undefined });
    assert.ok(cls <= 0.05, `CLS ${cls.toFixed(3)} with the .wasm after ${wasmDelay} ms: ${JSON.stringify(shifts)}`);
    const overflow = await page.evaluate(() => document.documentElement.scrollWidth - innerWidth);
    assert.ok(overflow <= 0, `${overflow}px wider than the window`);
    await close();
  }
});

test('a mistyped attribute warns once, naming what the element takes; t against tokens is an error; controls="none"', { timeout: TIMEOUT * 2 }, async () => {
  const { page, context, problems, warnings } = await open(`${host.url}mistakes.html`);
  await page.locator('#nostep h3').waitFor();
  await page.locator('#output figure.panel').first().waitFor();
  await page.locator('#head figure.panel').first().waitFor();
  await page.locator('#tokens .element-error[data-field="t"]').waitFor();
  assert.match(await page.locator('#tokens .element-error').textContent(), /t="6", but tokens has 3 words/);
  // Redraws do not repeat a warning.
  await page.evaluate(() => { document.getElementById('head').setAttribute('batch', '1'); document.getElementById('output').setAttribute('seed', '3'); });
  await page.waitForTimeout(300);
  const expected = [
    /^<mha-walkthrough step="nonexistent">: step takes x, q, k, .*, output; this value is ignored\.$/,
    /^<mha-heatmap heads="4">: <mha-heatmap> has no attribute heads \(it takes b, t, .*\); it is ignored\.$/,
    /^<mha-heatmap step="output">: step takes scores, scaled, masked, weights; this value is ignored\.$/,
    /^<mha-heatmap head="7">: head takes 0, 1; this value is ignored\.$/,
  ];
  for (const pattern of expected) assert.equal(warnings.filter((w) => pattern.test(w)).length, 1, `${pattern} in ${JSON.stringify(warnings)}`);
  assert.equal(warnings.length, expected.length, JSON.stringify(warnings));
  // controls="none": no step select, no export buttons, no hint; the heatmaps stay.
  const visible = (selector) => page.locator(`#head ${selector}`).isVisible();
  assert.deepEqual([await visible('select.step-select'), await visible('.exports'), await visible('.readout'), await visible('figure.panel >> nth=0')], [false, false, false, true]);
  assert.equal(await page.locator('#output select.step-select').isVisible(), true);
  assert.deepEqual(problems, []);
  await context.close();
});

test('an element whose .wasm is not where it looks says which URL it tried and how to fix it', { timeout: TIMEOUT }, async () => {
  const { page, context, problems } = await open(`${host.url}nowasm.html`);
  const error = page.locator('#nowasm .element-error[data-field="engine"]');
  await error.waitFor();
  const text = await error.textContent();
  assert.ok(text.includes(`mha_engine.wasm is not at ${host.url}assets/mha_engine.wasm (HTTP 404)`), text);
  assert.match(text, /wasm-url attribute, <meta name="mha-lens:wasm-url" content="…"> or createEngine\(\{ wasmUrl \}\)/);
  assert.deepEqual(problems.filter((p) => !/Failed to load resource: .*404/.test(p)), []);
  await context.close();
});
