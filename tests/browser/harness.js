// Shared set-up for the page's browser tests: the project's own server on a free port, Debian's
// Chromium driven by playwright-core, and pages that record every console error, page error and
// CSP violation so that a test can fail on them.
import assert from 'node:assert/strict';
import { mkdirSync } from 'node:fs';
import { copyFile, mkdir, mkdtemp } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from '../../scripts/serve.js';
import { STEPS } from '../../web/src/catalogue/catalogue.js';
import { createEngine } from '../../web/src/engine/engine.js';

export const ARTIFACTS = new URL('../artifacts/', import.meta.url).pathname;

/** Fails on any console error, page error or CSP violation `openPage` recorded, once the page has
 * painted and run what the paint scheduled. */
export async function noProblems(problems, page) {
  await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
  assert.deepEqual(problems, [], 'no console errors, page errors or CSP violations');
}
mkdirSync(ARTIFACTS, { recursive: true });

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

/**
 * A tutorial site in a new temporary folder: the widget bundle and its .wasm in lib/, as a host
 * page would copy them, and the site's own favicon (a data: URL would break a strict img-src).
 * Returns the folder; the caller writes its pages and removes it.
 */
export async function makeHostSite(prefix) {
  const site = await mkdtemp(join(tmpdir(), prefix));
  await mkdir(join(site, 'lib'));
  const dist = new URL('../../web/dist/', import.meta.url).pathname;
  for (const file of ['mha-lens.js', 'mha_engine.wasm']) await copyFile(join(dist, file), join(site, 'lib', file));
  await copyFile(new URL('../../web/favicon.svg', import.meta.url).pathname, join(site, 'favicon.svg'));
  return site;
}

// Generous: the machine is a shared 2-core box.
export const TIMEOUT = 60_000;

export async function launch() {
  const { server, url } = await startServer({ port: 0 });
  let browser;
  try {
    browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
    const engine = await createEngine();
    return { server, url, browser, engine };
  } catch (error) {
    // A half-started run must not keep the test process alive (the `after` hook never sees it).
    await browser?.close();
    server.close();
    throw error;
  }
}

/**
 * A fresh page (own context, so no remembered language) at `url + query`, waited until the
 * walkthrough shows a step. `problems` collects console errors, page errors and CSP violations.
 */
export async function openPage(browser, url, { query = '', width = 1280, height = 900, locale = 'en-US', reducedMotion = 'no-preference', context: existing } = {}) {
  const context = existing ?? await browser.newContext({ viewport: { width, height }, locale, reducedMotion, acceptDownloads: true });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  page.on('console', (message) => { if (message.type() === 'error') problems.push(`console: ${message.text()}`); });
  page.on('pageerror', (error) => problems.push(`pageerror: ${error.message}`));
  await page.addInitScript(() => {
    document.addEventListener('securitypolicyviolation', (event) => console.error(`CSP violation: ${event.violatedDirective} ${event.blockedURI}`));
  });
  await page.goto(url + query);
  try {
    await page.locator('mha-walkthrough h3').waitFor({ timeout: 2 * TIMEOUT });
  } catch (error) {
    error.message += `\nproblems on the page: ${JSON.stringify(problems)}`;
    throw error;
  }
  return { page, context, problems };
}

// Helpers for page.evaluate: $(...path) walks selectors through open shadow roots, $$ returns
// all matches of the last one. Sent as an expression (evaluated by the debugger protocol), since the
// page's CSP rightly forbids new Function inside it.
const HELPERS = `
  const $ = (...path) => path.reduce((node, selector) => node && (node.shadowRoot ?? node).querySelector(selector), document);
  const $$ = (...path) => {
    const last = path.pop();
    const parent = $(...path) ?? document;
    return [...(parent.shadowRoot ?? parent).querySelectorAll(last)];
  };`;

/** Runs `fn($, $$, arg)` in the page and returns its (serialisable) result. */
export const deep = (page, fn, arg) => page.evaluate(`(async () => { ${HELPERS} return (${fn.toString()})($, $$, ${JSON.stringify(arg ?? null)}); })()`);

/**
 * What one canvas heatmap shows, read back from the page: for panel (b, h) of the heatmap at
 * `path` (selectors through shadow roots), with `rows` × `cols` cells, each cell's colour (the
 * canvas pixel inside the cell, "#rrggbb") and whether the hatch covers it (the masked-cells
 * path's fill at the cell's centre, in the SVG's own units). Row-major.
 */
export const heatmapCells = (page, path, { b, h, rows, cols }) => deep(page, ($, $$, { path, b, h, rows, cols }) => {
  const figure = $(...path, `figure.panel[data-b="${b}"][data-h="${h}"]`);
  if (!figure) return null;
  const canvas = figure.querySelector('canvas.cells');
  const grid = figure.querySelector('foreignObject');
  const mask = figure.querySelector('path.masked-cells');
  const pixels = canvas.width / cols;
  const bytes = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
  const [x0, y0, cell] = [grid.x.baseVal.value, grid.y.baseVal.value, grid.width.baseVal.value / cols];
  const hex = (i) => `#${[0, 1, 2].map((k) => bytes[i + k].toString(16).padStart(2, '0')).join('')}`;
  const cells = [];
  for (let r = 0; r < rows; r++) {
    for (let c = 0; c < cols; c++) {
      const inside = Math.floor((pixels - 1) / 2); // the middle of the cell's block, never its gap
      cells.push({ r, c, color: hex(((r * pixels + inside) * canvas.width + c * pixels + inside) * 4),
        hatched: mask.isPointInFill(new DOMPoint(x0 + (c + 0.5) * cell, y0 + (r + 0.5) * cell)) });
    }
  }
  return { canvas: [canvas.width, canvas.height], cells };
}, { path, b, h, rows, cols });

/** The viewport point at the centre of cell (r, c) of heatmap panel (b, h) at `path`, for the mouse. */
export const cellCentre = (page, path, { b, h, r, c, cols }) => deep(page, ($, $$, { path, b, h, r, c, cols }) => {
  const figure = $(...path, `figure.panel[data-b="${b}"][data-h="${h}"]`);
  const svg = figure.querySelector('svg');
  const grid = figure.querySelector('foreignObject');
  const cell = grid.width.baseVal.value / cols;
  const at = () => new DOMPoint(grid.x.baseVal.value + (c + 0.5) * cell, grid.y.baseVal.value + (r + 0.5) * cell).matrixTransform(svg.getScreenCTM());
  window.scrollBy(0, at().y - innerHeight / 2); // a big heatmap can be taller than the viewport
  const point = at();
  return { x: point.x, y: point.y };
}, { path, b, h, r, c, cols });

/** A step's title in a language, as the catalogue has it. */
export const stepTitleIn = (id, lang) => STEPS.find((step) => step.id === id).title[lang];
