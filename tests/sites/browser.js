// What the suite reads from a site's page in headless Chromium: a page opened with everything it
// logs recorded (console errors, hydration warnings, the elements' own warnings, every .wasm
// request, the JS fetched, layout shifts with the nodes that moved), and a probe that reads back
// from each widget what it draws. The comparisons against pages.js's `expect` are in expect.js.
import { gzipSync } from 'node:zlib';
import { chromium } from 'playwright-core';

const ARGS = ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'];

export const launchBrowser = () => chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });

// Messages that say a framework's server HTML and its first client render disagree.
const HYDRATION = /hydrat|mismatch|did not match|Minified React error #(418|419|420|421|422|423|425)/i;

/**
 * Opens `url` in a fresh context. `wasm`: 'normal', 'delay' (each .wasm answered 1.5 s after it is
 * asked for) or 'fail' (404). `colorScheme` as the reader's preference. Returns { page, context,
 * log, close }: log.errors (console errors and page errors), log.hydration, log.elementWarnings
 * (console warnings the elements print about an attribute), log.wasm (.wasm URLs requested),
 * log.scripts (URL → { bytes, gzip }).
 */
export async function openSite(browser, url, { wasm = 'normal', colorScheme = 'light', width = 1280, height = 800, collectScripts = false, timeout = 60_000 } = {}) {
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  page.setDefaultTimeout(timeout);
  const log = { errors: [], hydration: [], elementWarnings: [], wasm: [], scripts: new Map() };
  page.on('console', (message) => {
    const text = message.text();
    if (HYDRATION.test(text) && (message.type() === 'error' || message.type() === 'warning')) log.hydration.push(text);
    if (message.type() === 'error') log.errors.push(text);
    if (message.type() === 'warning' && /^<mha-/.test(text)) log.elementWarnings.push(text);
  });
  page.on('pageerror', (error) => log.errors.push(`pageerror: ${error.message}`));
  // Chromium logs "Failed to load resource" without the URL: name it.
  context.on('response', (response) => { if (response.status() >= 400) log.errors.push(`HTTP ${response.status()} for ${new URL(response.url()).pathname}`); });
  // Every site has its own favicon; these sites' authors have not drawn one.
  await context.route('**/favicon.ico', (route) => route.fulfill({ status: 204, body: '' }));
  context.on('request', (request) => { if (new URL(request.url()).pathname.endsWith('.wasm')) log.wasm.push(request.url()); });
  const pending = [];
  if (collectScripts) {
    context.on('response', (response) => {
      const type = response.headers()['content-type'] ?? '';
      if (response.request().resourceType() !== 'script' && !/javascript/.test(type)) return;
      if (log.scripts.has(response.url())) return;
      pending.push(response.body().then((body) => log.scripts.set(response.url(), { bytes: body.length, gzip: gzipSync(body, { level: 9 }).length }), () => {}));
    });
  }
  if (wasm === 'delay') await context.route('**/*.wasm', async (route) => { await new Promise((done) => setTimeout(done, 1500)); await route.continue(); });
  if (wasm === 'fail') await context.route('**/*.wasm', (route) => route.fulfill({ status: 404, contentType: 'text/plain', body: 'Not found' }));
  await page.addInitScript(() => {
    window.__shifts = [];
    window.__mhaErrors = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) {
        if (entry.hadRecentInput) continue;
        const nodes = (entry.sources ?? []).map((s) => (s.node ? `${s.node.nodeName?.toLowerCase()}${s.node.id ? `#${s.node.id}` : ''}` : '?'));
        window.__shifts.push({ value: entry.value, time: entry.startTime, nodes });
      }
    }).observe({ type: 'layout-shift', buffered: true });
    document.addEventListener('mha-error', (event) => window.__mhaErrors.push({ id: event.target?.id ?? '', tag: event.target?.localName ?? '', code: event.detail?.code, field: event.detail?.field }), true);
  });
  await page.goto(url, { waitUntil: 'load' });
  return {
    page, context, log,
    settleScripts: () => Promise.all(pending),
    close: () => context.close(),
  };
}

/**
 * Reads back what each widget (by id) shows. Runs in the page; every field is read on its own, so
 * a getter that throws marks only that field.
 */
export function probe(page, ids) {
  return page.evaluate((ids) => {
    const read = (fn) => { try { return fn(); } catch (error) { return { thrown: String(error?.message ?? error) }; } };
    const plain = (value) => (value === undefined ? null : JSON.parse(JSON.stringify(value)));
    const result = {};
    for (const id of ids) {
      const el = document.getElementById(id);
      if (!el) { result[id] = { exists: false }; continue; }
      const tag = el.localName;
      const root = el.shadowRoot;
      const Defined = customElements.get(tag);
      const out = { exists: true, tag, defined: Boolean(Defined && el instanceof Defined) };
      out.error = root?.querySelector('.element-error, [role="alert"]')?.textContent?.trim() || null;
      out.loading = Boolean(root?.querySelector('.loading')) || !root;
      out.summary = read(() => plain(el.run?.summary ?? null));
      out.firstShape = read(() => plain(el.run?.steps?.[0]?.shape ?? null));
      out.stepId = read(() => el.stepId ?? null);
      out.steps = root ? [...root.querySelectorAll('.steps:not([hidden]) button[data-id]')].map((b) => b.dataset.id) : [];
      out.panels = root ? [...root.querySelectorAll('figure.panel')].map((f) => [Number(f.dataset.b), Number(f.dataset.h)]) : [];
      const current = root?.querySelector('figure.panel[aria-current="true"]');
      out.current = current ? [Number(current.dataset.b), Number(current.dataset.h)] : null;
      out.scale = read(() => el.scale ?? null);
      const grid = root?.querySelector('figure.panel foreignObject');
      const cols = el.run?.summary?.Tk ?? el.run?.summary?.T;
      out.cellSize = grid && cols ? grid.getBoundingClientRect().width / cols : null;
      out.labels = root ? [...root.querySelectorAll('figure.panel svg text')].map((t) => t.textContent) : [];
      out.title = root?.querySelector('h3')?.textContent ?? null;
      out.controlsShown = root ? [...root.querySelectorAll('.toolbar button, .bar select, .exports button')].some((c) => c.getClientRects().length > 0) : null;
      out.background = getComputedStyle(el).backgroundColor;
      out.tokens = read(() => (el.tokens ? el.tokens.length : null));
      out.task = read(() => el.taskInfo?.name ?? null);
      out.options = read(() => (tag === 'mha-trainer' ? plain(el.options) : null));
      out.trainerStep = read(() => (tag === 'mha-trainer' ? el.step : null));
      out.height = el.getBoundingClientRect().height;
      result[id] = out;
    }
    return result;
  }, ids);
}

/** Whether a probed widget has finished: drawn (a run, a trainer's task) or showing an error. */
export const settled = (p) => p.exists && p.defined && (p.error !== null || (p.tag === 'mha-trainer' ? typeof p.task === 'string' : p.summary !== null && typeof p.summary === 'object' && !p.summary.thrown));

/**
 * Probes until every widget has settled, or nothing has changed for `still` ms (a follower whose
 * source failed may wait forever: that is for the checks to say), or `timeout` ms pass.
 */
export async function waitSettled(page, ids, { timeout = 45_000, still = 6_000 } = {}) {
  const until = Date.now() + timeout;
  let last;
  let lastKey = null;
  let since = Date.now();
  for (;;) {
    last = await probe(page, ids);
    if (ids.every((id) => settled(last[id])) || Date.now() > until) return last;
    const key = JSON.stringify(ids.map((id) => [last[id].summary, last[id].error, last[id].task, last[id].loading]));
    if (key !== lastKey) { lastKey = key; since = Date.now(); } else if (Date.now() - since > still) return last;
    await page.waitForTimeout(250);
  }
}

/**
 * The page's cumulative layout shift: the largest session window of shifts without recent input
 * (shifts less than 1 s apart, at most 5 s long; the Core Web Vitals definition), and the shifts.
 */
export async function layoutShift(page) {
  const shifts = await page.evaluate(() => window.__shifts);
  let cls = 0;
  let window = 0;
  let start = -Infinity;
  let last = -Infinity;
  for (const { value, time } of shifts) {
    if (time - last > 1000 || time - start > 5000) { window = 0; start = time; }
    window += value;
    last = time;
    cls = Math.max(cls, window);
  }
  return { cls, shifts };
}

/**
 * The lowest WCAG contrast between any text inside each widget (through its shadow root) and the
 * background it sits on (the first opaque one behind it, inside the element or around it).
 */
export function contrasts(page, ids) {
  return page.evaluate((ids) => {
    const parse = (c) => { const m = c.match(/rgba?\(([^)]+)\)/); if (!m) return null; const [r, g, b, a = 1] = m[1].split(/[ ,/]+/).filter(Boolean).map(Number); return { r, g, b, a }; };
    const lin = (v) => { const s = v / 255; return s <= 0.03928 ? s / 12.92 : ((s + 0.055) / 1.055) ** 2.4; };
    const lum = ({ r, g, b }) => 0.2126 * lin(r) + 0.7152 * lin(g) + 0.0722 * lin(b);
    const ratio = (a, b) => { const [hi, lo] = [lum(a), lum(b)].sort((x, y) => y - x); return (hi + 0.05) / (lo + 0.05); };
    const backgroundOf = (node) => {
      for (let n = node; n; n = n.parentElement ?? n.getRootNode?.().host ?? null) {
        const c = parse(getComputedStyle(n).backgroundColor);
        if (c && c.a > 0.5) return c;
      }
      return { r: 255, g: 255, b: 255, a: 1 }; // the canvas
    };
    const out = {};
    for (const id of ids) {
      const el = document.getElementById(id);
      const root = el?.shadowRoot;
      if (!root) { out[id] = null; continue; }
      const walker = document.createTreeWalker(root, NodeFilter.SHOW_TEXT);
      let worst = null;
      for (let text = walker.nextNode(); text; text = walker.nextNode()) {
        const holder = text.parentElement;
        if (!text.textContent.trim() || !holder || holder.closest('svg, style, [hidden], button[aria-current], button[aria-pressed="true"], .tip')) continue;
        if (!holder.getClientRects().length) continue;
        const fg = parse(getComputedStyle(holder).color);
        const bg = backgroundOf(holder);
        if (!fg) continue;
        const value = ratio(fg, bg);
        if (!worst || value < worst.ratio) worst = { ratio: value, text: text.textContent.trim().slice(0, 40), color: getComputedStyle(holder).color, background: `rgb(${bg.r}, ${bg.g}, ${bg.b})` };
      }
      out[id] = worst;
    }
    return out;
  }, ids);
}

/** Total JS fetched by a page: { bytes, gzip, files }. */
export function scriptBytes(log) {
  let bytes = 0;
  let gzip = 0;
  for (const entry of log.scripts.values()) { bytes += entry.bytes; gzip += entry.gzip; }
  return { bytes, gzip, files: log.scripts.size };
}
