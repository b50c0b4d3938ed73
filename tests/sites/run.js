#!/usr/bin/env node
// The widgets in the sites tutorial authors build with: the package as `npm pack` makes it,
// installed into a VitePress site, a Docusaurus site, an Astro site, a Vite + React 19 +
// TypeScript app (plain elements and the React components), a Vue 3 app, a webpack 5 bundle and an
// esbuild bundle, built and served on 127.0.0.1, and Vite 5/6/8's, VitePress's and Astro's dev
// servers; each page (pages.js: the same widgets with the same settings everywhere) checked in
// headless Chromium. Every check reports on its own and one site's failure does not stop the next.
//
//   npm run test:sites                       every site
//   npm run test:sites -- --only vitepress   one site (or several: --only react,vue)
//   npm run test:sites -- --list             the sites and what each builds
//
// Needs web/dist/ built (npm test builds it). Packages come from the npm registry at the pinned
// versions in sites/*.js, through npm's cache, into scratch folders kept between runs
// (MHA_LENS_SITES_DIR, default $TMPDIR/mha-lens-sites). Screenshots, the author files and
// report.json go to tests/artifacts/sites/.
import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { copyFile, cp, mkdir, readdir, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';
import { ENTRIES, REACT_COMPONENTS } from './entries.js';
import { PAGES, PAGE_NAMES, widgetsOf } from './pages.js';
import { contrasts, launchBrowser, layoutShift, openSite, probe, scriptBytes, settled, waitSettled } from './browser.js';
import { mismatches } from './expect.js';
import { runContract } from './contract.js';
import { SCRATCH, exec, prepare, startProcess, writeFiles } from './scratch.js';
import { freePort, serveStatic } from './serve.js';
import * as vitepress from './sites/vitepress.js';
import * as docusaurus from './sites/docusaurus.js';
import * as astro from './sites/astro.js';
import * as react from './sites/react.js';
import * as vue from './sites/vue.js';
import * as plain from './sites/plain.js';

const ROOT = new URL('../../', import.meta.url).pathname;
const ARTIFACTS = join(ROOT, 'tests', 'artifacts', 'sites');
const CLS_LIMIT = 0.05;
const CONTRAST = 4.5;

// Each site: the module with its packages and files, and whether it is built and served or run
// by its dev server. A dev site reuses the install of the site it names in `installAs`.
const SITES = {
  esbuild: { ...plain.esbuild, kind: 'build' },
  webpack: { ...plain.webpack, kind: 'build' },
  'vite5-dev': { ...plain.vite5, kind: 'dev' },
  'vite6-dev': { ...plain.vite6, kind: 'dev' },
  'vite8-dev': { ...plain.vite8, kind: 'dev' },
  vue: { ...vue, kind: 'build' },
  react: { ...react.elements, kind: 'build' },
  'react-components': { ...react.components, kind: 'build' },
  astro: { ...astro, kind: 'build' },
  'astro-dev': { ...astro, kind: 'dev', installAs: 'astro' },
  vitepress: { ...vitepress, kind: 'build' },
  'vitepress-dev': { ...vitepress, kind: 'dev', installAs: 'vitepress' },
  docusaurus: { ...docusaurus, kind: 'build' },
  'docusaurus-start': { ...docusaurus, kind: 'dev', installAs: 'docusaurus' },
};

// --- Results --------------------------------------------------------------------------------

const results = []; // { site, check, ok (true, false; null: skipped), detail, ms }
const measures = {}; // site → { what: value }
let current = 'package';

const measure = (what, value) => { (measures[current] ??= {})[what] = value; };
class Skip extends Error {}
class UsageError extends Error {}

async function check(name, fn) {
  const started = Date.now();
  try {
    const detail = await fn();
    results.push({ site: current, check: name, ok: true, detail: detail ?? '', ms: Date.now() - started });
    console.log(`  ok   ${name}${detail ? ` — ${detail}` : ''}`);
    return true;
  } catch (error) {
    const skipped = error instanceof Skip;
    const detail = String(error?.message ?? error).trim();
    results.push({ site: current, check: name, ok: skipped ? null : false, detail, ms: Date.now() - started });
    console.log(`  ${skipped ? 'skip' : 'FAIL'} ${name}\n${detail.split('\n').map((line) => `         ${line}`).join('\n')}`);
    return false;
  }
}
const fail = (message) => { throw new Error(message); };
const list = (items, limit = 8) => items.slice(0, limit).join('\n') + (items.length > limit ? `\n… and ${items.length - limit} more` : '');

// --- The package, as `npm pack` makes it ------------------------------------------------------

async function packPackage() {
  const dir = join(SCRATCH, 'pack');
  await rm(dir, { recursive: true, force: true });
  await mkdir(dir, { recursive: true });
  const { stdout } = await promisify(execFile)('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
  const [info] = JSON.parse(stdout);
  const unpacked = join(dir, 'package');
  await mkdir(unpacked);
  await exec('tar', ['-xzf', join(dir, info.filename), '-C', unpacked, '--strip-components=1']);
  // React, the optional peer 'mha-lens/react' imports, as an author's app has it.
  await mkdir(join(unpacked, 'node_modules'), { recursive: true });
  await symlink(join(ROOT, 'node_modules', 'react'), join(unpacked, 'node_modules', 'react'));
  return { tarball: join(dir, info.filename), unpacked };
}

// What the package offers an author: which of the target's entries exist (entries.js). The sites
// use an entry only when it is there, so that a missing one fails here once and the rest of each
// site is still checked.
async function packageChecks(unpacked) {
  const manifest = JSON.parse(await readFile(join(unpacked, 'package.json'), 'utf8'));
  const exportPath = (entry) => {
    const key = `.${entry.slice('mha-lens'.length)}`;
    const target = manifest.exports?.[key];
    const file = typeof target === 'string' ? target : target?.browser ?? target?.import ?? target?.default;
    return file ? join(unpacked, file) : null;
  };
  const context = { entries: ENTRIES, stylesheet: null, stylesheetPath: null, stylesheetFile: null };
  await check(`'${ENTRIES.widgets}' defines the elements`, () => { if (!exportPath(ENTRIES.widgets) || !existsSync(exportPath(ENTRIES.widgets))) fail(`no "${ENTRIES.widgets}" in the package's exports`); });
  await check(`'${ENTRIES.stylesheet}': a stylesheet that sizes the elements before they are defined`, async () => {
    const path = exportPath(ENTRIES.stylesheet);
    if (!path) fail(`no "./${ENTRIES.stylesheet.split('/')[1]}" in the package's exports (${Object.keys(manifest.exports).join(', ')}); the sites are checked without it`);
    if (!existsSync(path)) fail(`exports name ${relative(unpacked, path)}, which the tarball does not hold`);
    const css = await readFile(path, 'utf8');
    const missing = Object.keys(REACT_COMPONENTS).filter((tag) => !css.includes(tag));
    if (missing.length) fail(`it has no rule for ${missing.join(', ')}`);
    Object.assign(context, { stylesheet: ENTRIES.stylesheet, stylesheetPath: path, stylesheetFile: 'mha-lens.css' });
  });
  await check('per-element entries exist', () => {
    const missing = Object.entries(ENTRIES.perElement).filter(([, entry]) => !exportPath(entry) || !existsSync(exportPath(entry)));
    if (missing.length) fail(`not in the package's exports: ${missing.map(([, entry]) => entry).join(', ')}`);
  });
  await check(`'${ENTRIES.react}' exports React components`, async () => {
    const path = exportPath(ENTRIES.react);
    if (!path) fail(`no "${ENTRIES.react}" in exports`);
    const module = await import(path);
    const missing = Object.values(REACT_COMPONENTS).filter((name) => !(name in module));
    if (missing.length) fail(`${ENTRIES.react} exports no ${missing.join(', ')} (it exports ${Object.keys(module).join(', ')})`);
  });
  return context;
}

// --- One site -------------------------------------------------------------------------------

async function runSite(name, site, { tarball, context, browser }) {
  current = name;
  console.log(`\n== ${name}`);
  const started = Date.now();
  let prepared;
  const installName = site.installAs ?? name.replace(/-(dev|start)$/, '');
  const ok = await check(`install ${Object.entries(site.packages).map(([p, v]) => `${p}@${v}`).join(' ')}`, async () => {
    prepared = await prepare(installName, site.packages, { tarball, type: site.moduleType === undefined ? 'module' : site.moduleType });
    measure('install s', +(prepared.ms / 1000).toFixed(1));
    return prepared.installed ? `installed in ${(prepared.ms / 1000).toFixed(1)} s` : 'already installed';
  });
  if (!ok) return;
  const { dir } = prepared;
  await writeFiles(dir, site.files(context));
  if (site.copyStylesheet && context.stylesheetPath) await copyFile(context.stylesheetPath, join(dir, site.build.out, context.stylesheetFile)).catch(() => {});
  await keepAuthorFiles(name, dir, site);
  const env = site.env ?? {};
  if (site.kind === 'build') {
    const built = await buildSite(site, dir, env);
    measure('build s', +((Date.now() - started - (measures[name]?.['install s'] ?? 0) * 1000) / 1000).toFixed(1));
    if (!built) return;
    if (site.copyStylesheet && context.stylesheetPath) await copyFile(context.stylesheetPath, join(dir, site.build.out, context.stylesheetFile));
    const server = await serveStatic(join(dir, site.build.out));
    try {
      await pageChecks(name, site, server.url, browser, { built: true });
    } finally {
      await server.close();
    }
  } else {
    const port = await freePort();
    let server;
    const up = await check(`${site.dev.command(port).slice(1).join(' ')} starts`, async () => {
      const t0 = Date.now();
      server = await startProcess(site.dev.command(port)[0], site.dev.command(port).slice(1), { cwd: dir, env, ready: site.dev.ready, timeout: site.dev.timeout ?? 120_000 });
      return `ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`;
    });
    if (!up) return;
    try {
      await pageChecks(name, site, `http://127.0.0.1:${port}/`, browser, { built: false });
      const output = server.output();
      await check('the dev server logs no error or warning about the package', () => {
        const lines = output.split('\n').filter((line) => /error|warn|failed|mha-lens|\.wasm/i.test(line) && !/^\s*$/.test(line));
        if (lines.length) fail(list(lines, 12));
      });
    } finally {
      await server.stop();
    }
  }
  measure('total s', +((Date.now() - started) / 1000).toFixed(1));
}

async function keepAuthorFiles(name, dir, site) {
  const target = join(ARTIFACTS, 'src', name);
  await rm(target, { recursive: true, force: true });
  for (const path of Object.keys(site.files({ entries: ENTRIES }))) {
    await mkdir(join(target, path, '..'), { recursive: true });
    await copyFile(join(dir, path), join(target, path)).catch(() => {});
  }
}

async function buildSite(site, dir, env) {
  const steps = site.build.steps ?? [{ label: site.build.command.slice(1).join(' '), command: site.build.command, required: true, warnings: true }];
  for (const step of steps) {
    let output = '';
    const passed = await check(step.label, async () => {
      if (step.copy) {
        for (const [from, to] of step.copy) await cp(join(dir, from), join(dir, to), { recursive: true });
        return '';
      }
      const result = await exec(step.command[0], step.command.slice(1), { cwd: join(dir, step.cwd ?? ''), env, timeout: 1_200_000 }); // a Docusaurus build on a busy 2-core machine: minutes
      output = result.output;
      if (result.code !== 0) fail(`exit ${result.code} after ${(result.ms / 1000).toFixed(1)} s:\n${tail(result.output)}`);
      return `${(result.ms / 1000).toFixed(1)} s`;
    });
    if (!passed && step.required) return false;
    if (passed && step.warnings) {
      await check(`${step.label} prints no warning`, () => {
        // webpack's performance hints say that an asset is over 244 KiB, which the engine's .wasm
        // (300 KB) always is: advice about the site's weight, not about how the package bundles.
        const hint = /(asset|entrypoint) size limit|performance recommendations/i;
        const warnings = output.split('\n').filter((line) => /warn|critical dependency|\(!\)/i.test(line) && !hint.test(line));
        const lines = warnings.filter((line) => !/compiled with \d+ warnings?/i.test(line) || warnings.length > 1);
        if (lines.length) fail(list(lines, 10));
      });
    }
  }
  await check('the build holds no path of the build machine', async () => {
    const found = [];
    for (const file of await filesUnder(join(dir, site.build.out))) {
      if (!/\.(m?js|html|css)$/.test(file)) continue;
      const text = await readFile(file, 'utf8');
      // The scratch folder, the repository, or any file:// URL of a real path (file:///tmp/…).
      const at = [text.indexOf(dir), text.indexOf(ROOT.replace(/\/$/, '')), text.search(/file:\/\/\/[A-Za-z]/)].filter((i) => i >= 0).sort((a, b) => a - b)[0];
      if (at !== undefined) {
        found.push(`${relative(dir, file)}: ${JSON.stringify(text.slice(Math.max(0, at - 60), at + 100))}`);
      }
    }
    if (found.length) fail(list(found, 5));
  });
  return true;
}

// React's development build logs its errors as format strings: drop the bare %o and %s lines.
const tidy = (text) => text.split('\n').filter((line) => !/^\s*%[osdc]?\s*$/.test(line)).join('\n').trim();

const tail = (text, lines = 25) => text.trim().split('\n').slice(-lines).join('\n');

async function filesUnder(dir) {
  const out = [];
  for (const entry of await readdir(dir, { withFileTypes: true }).catch(() => [])) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...await filesUnder(path));
    else out.push(path);
  }
  return out;
}

// --- A site's pages in Chromium --------------------------------------------------------------

async function pageChecks(name, site, base, browser, { built }) {
  for (const [label, path] of Object.entries(site.paths)) {
    if (label === 'home') continue;
    // A dev server is checked on the lesson and the trainer: the playground adds nothing there.
    if (!built && label === 'playground') continue;
    const page = label.split(' ')[0];
    const url = new URL(path.replace(/^\//, ''), base).href;
    await loadChecks(name, site, label, page, url, browser, { built });
  }
  if (site.navigate) await navigationChecks(name, site, base, browser);
  if (site.contract) await contractChecks(new URL(site.contract.replace(/^\//, ''), base).href, browser);
}

async function loadChecks(name, site, label, page, url, browser, { built }) {
  const widgets = widgetsOf(page);
  const ids = widgets.map((w) => w.id);
  // A: the page as a reader gets it.
  let opened;
  const started = Date.now();
  const loaded = await check(`${label}: loads`, async () => {
    // A dev server compiles a page on its first request: on a busy machine that takes minutes.
    opened = await openSite(browser, url, { collectScripts: true, timeout: built ? 60_000 : 240_000 });
    return '';
  });
  if (!loaded) return;
  const { page: tab, log } = opened;
  let drawn = false; // every widget drew: a layout shift means something
  let anyDrawn = false;
  try {
    const got = await waitSettled(tab, ids);
    // From asking for the page to every widget drawn (or showing its error).
    measure(`${label} widgets drawn s`, +((Date.now() - started) / 1000).toFixed(2));
    await tab.waitForTimeout(1500);
    const after = await probe(tab, ids);
    for (const widget of widgets) {
      await check(`${label}: #${widget.id} <${widget.tag}> ${describe(widget)}`, () => {
        const wrong = mismatches(widget, after[widget.id]);
        if (wrong.length) fail(wrong.join('\n'));
      });
    }
    await check(`${label}: no console error, page error or hydration warning`, () => {
      const problems = [...new Set([...log.hydration.map((m) => `hydration: ${m}`), ...log.errors])].map(tidy);
      if (problems.length) fail(list(problems.map((p) => p.slice(0, 400))));
    });
    await check(`${label}: the elements warn about no attribute the page passed`, () => {
      if (log.elementWarnings.length) fail(list([...new Set(log.elementWarnings)]));
      if (!widgets.some((w) => after[w.id]?.defined)) throw new Skip('no element was on the page to warn');
    });
    await check(`${label}: exactly one .wasm fetch`, () => {
      if (log.wasm.length !== 1) fail(`${log.wasm.length} fetches${log.wasm.length ? `: ${log.wasm.map((u) => new URL(u).pathname).join(', ')}` : ''}`);
      return new URL(log.wasm[0]).pathname;
    });
    await opened.settleScripts();
    const js = scriptBytes(log);
    measure(`${label} JS KB`, +(js.bytes / 1024).toFixed(1));
    measure(`${label} JS KB gzip`, +(js.gzip / 1024).toFixed(1));
    const { cls, shifts } = await layoutShift(tab);
    measure(`${label} CLS`, +cls.toFixed(3));
    drawn = widgets.every((w) => settled(after[w.id]) && !after[w.id].error);
    anyDrawn = widgets.some((w) => settled(after[w.id]) && !after[w.id].error);
    if (built) await check(`${label}: CLS ≤ ${CLS_LIMIT} (.wasm at once)`, () => clsVerdict(cls, shifts, drawn));
    if (site.events && page === 'lesson') await eventChecks(tab, label);
    if (page === 'trainer') await trainerChecks(tab, label, ids[0], got);
    await tab.screenshot({ path: join(ARTIFACTS, `${name}-${slug(label)}.png`), fullPage: true });
  } finally {
    await opened.close();
  }
  if (!built || page !== 'lesson' || label !== 'lesson') return;
  const nothing = () => { if (!anyDrawn) throw new Skip('no widget drew on the first load (see above)'); };
  // B: the .wasm 1.5 s late.
  await check(`${label}: CLS ≤ ${CLS_LIMIT} (.wasm 1.5 s late)`, async () => {
    nothing();
    const late = await openSite(browser, url, { wasm: 'delay' });
    try {
      await waitSettled(late.page, ids);
      await late.page.waitForTimeout(1500);
      const { cls, shifts } = await layoutShift(late.page);
      measure(`${label} CLS, .wasm late`, +cls.toFixed(3));
      return clsVerdict(cls, shifts, drawn);
    } finally { await late.close(); }
  });
  // C: dark mode.
  await check(`${label}: dark mode: every element's text ≥ ${CONTRAST}:1 on its background`, async () => {
    nothing();
    // A site with its own toggle is switched by it, under a light system (the live switch is the
    // harder case); any other site follows the reader's dark system.
    const dark = await openSite(browser, url, { colorScheme: site.darkToggle ? 'light' : 'dark' });
    try {
      await waitSettled(dark.page, ids);
      if (site.darkToggle) await site.darkToggle(dark.page);
      await dark.page.waitForTimeout(600);
      await dark.page.screenshot({ path: join(ARTIFACTS, `${name}-${slug(label)}-dark.png`), fullPage: true });
      const worst = await contrasts(dark.page, ids);
      const bad = Object.entries(worst).filter(([, w]) => !w || w.ratio < CONTRAST).map(([id, w]) => (w ? `#${id}: "${w.text}" ${w.color} on ${w.background} is ${w.ratio.toFixed(2)}:1` : `#${id}: no text drawn`));
      if (bad.length) fail(list(bad));
      return `lowest ${Math.min(...Object.values(worst).map((w) => w.ratio)).toFixed(2)}:1`;
    } finally { await dark.close(); }
  });
  // D: the engine does not load.
  await check(`${label}: with the .wasm missing, every element says so (none stays "Loading…") and fires mha-error once`, async () => {
    nothing();
    const broken = await openSite(browser, url, { wasm: 'fail' });
    try {
      const got = await waitSettled(broken.page, ids, { timeout: 15_000 });
      const events = await broken.page.evaluate(() => window.__mhaErrors);
      const problems = [];
      for (const widget of widgets) {
        const p = got[widget.id];
        if (!p?.error) problems.push(`#${widget.id}${widget.attrs.for ? ` (for="${widget.attrs.for}")` : ''} shows ${p?.loading ? '"Loading…"' : 'no error'}`);
        const fired = events.filter((e) => e.id === widget.id).length;
        if (fired > 1 || (fired === 0 && !widget.attrs.for)) problems.push(`#${widget.id} fired mha-error ${fired} times`);
      }
      if (problems.length) fail(list(problems, 20));
    } finally { await broken.close(); }
  });
}

const slug = (text) => text.replace(/[^a-z0-9]+/gi, '-').replace(/-$/, '').toLowerCase();

function describe(widget) {
  const s = widget.expect.summary;
  const shape = s ? Object.entries(s).filter(([k]) => /^[A-Z]/.test(k)).map(([k, v]) => `${k}=${v}`).join(' ') : '';
  const attrs = Object.keys(widget.attrs).join(', ');
  return `draws ${shape || 'its options'} and takes ${attrs}`;
}

// `drawn`: every widget drew; a page where some did not may not have shifted yet.
function clsVerdict(cls, shifts, drawn) {
  const moved = new Map();
  for (const shift of shifts) for (const node of shift.nodes) moved.set(node, (moved.get(node) ?? 0) + shift.value);
  const top = [...moved].sort((a, b) => b[1] - a[1]).slice(0, 5).map(([node, value]) => `${node} ${value.toFixed(3)}`).join(', ');
  const text = `CLS ${cls.toFixed(3)} (${shifts.length} shifts${top ? `; moved: ${top}` : ''})`;
  if (cls > CLS_LIMIT) fail(text);
  if (!drawn) throw new Skip(`${text}, but not every widget drew (see above)`);
  return text;
}

async function eventChecks(tab, label) {
  await check(`${label}: the framework hears mha-run, mha-step and mha-select through its own event props`, async () => {
    const problems = [];
    const out = (id) => tab.evaluate((id) => document.getElementById(id)?.textContent ?? null, id);
    if ((await out('run-out')) !== '6') problems.push(`mha-run: T shown is ${JSON.stringify(await out('run-out'))}, want "6"`);
    const next = tab.locator('#walk button[data-action="next"]');
    if (await next.count()) {
      await next.click();
      await tab.waitForTimeout(300);
      if ((await out('step-out')) !== 'q') problems.push(`mha-step: step shown is ${JSON.stringify(await out('step-out'))} after Next, want "q"`);
    } else problems.push('no Next button in #walk');
    const panel = tab.locator('#follow figure.panel[data-b="0"][data-h="1"]');
    if (await panel.count()) {
      await panel.click();
      await tab.waitForTimeout(300);
      if ((await out('select-out')) !== '0,1') problems.push(`mha-select: head shown is ${JSON.stringify(await out('select-out'))} after a click on head 1, want "0,1"`);
    } else problems.push('no panel for head 1 in #follow');
    if (problems.length) fail(problems.join('\n'));
  });
}

async function trainerChecks(tab, label, id, got) {
  await check(`${label}: Train makes the step count rise`, async () => {
    if (!settled(got[id]) || got[id].error) fail(`the trainer did not open: ${got[id]?.error ?? 'still loading'}`);
    const stepOf = () => tab.evaluate((id) => document.getElementById(id).step, id);
    const before = await stepOf();
    await tab.locator(`#${id} button[data-action="train"]`).click();
    const until = Date.now() + 30_000;
    let first = before;
    while (Date.now() < until && first <= before) { await tab.waitForTimeout(250); first = await stepOf(); }
    if (!(first > before)) fail(`step stayed at ${before} for 30 s after Train`);
    await tab.waitForTimeout(1500);
    const later = await stepOf();
    if (!(later > first)) fail(`step went ${before} → ${first} and then stopped at ${later}`);
    // Stop it (a Pause button is disabled once the run is over, so not by clicking it).
    await tab.evaluate((id) => document.getElementById(id).pause(), id);
    return `step ${before} → ${first} → ${later}`;
  });
}

async function navigationChecks(name, site, base, browser) {
  const ids = widgetsOf('lesson').map((w) => w.id);
  await check('lesson reached by client-side navigation from the home page: every widget draws, no console error', async () => {
    const opened = await openSite(browser, new URL(site.navigate.from.replace(/^\//, ''), base).href, { timeout: site.kind === 'dev' ? 240_000 : 60_000 });
    const errors = () => [...new Set(opened.log.errors.map((e) => tidy(e).slice(0, 300)))];
    try {
      await opened.page.locator(site.navigate.link).first().click();
      try {
        await opened.page.waitForFunction(() => document.getElementById('walk'), null, { timeout: 20_000 });
      } catch {
        fail(`the lesson never showed its widgets (${opened.page.url()})${errors().length ? `:\n${list(errors())}` : ''}`);
      }
      await waitSettled(opened.page, ids);
      await opened.page.screenshot({ path: join(ARTIFACTS, `${name}-lesson-navigated.png`), fullPage: true });
      const got = await probe(opened.page, ids);
      const wrong = widgetsOf('lesson').flatMap((widget) => mismatches(widget, got[widget.id]).map((m) => `#${widget.id}: ${m}`));
      const problems = [...wrong, ...errors()];
      if (opened.log.wasm.length !== 1) problems.push(`${opened.log.wasm.length} .wasm fetches`);
      if (problems.length) fail(list(problems, 12));
    } finally { await opened.close(); }
  });
}

async function contractChecks(url, browser) {
  const opened = await openSite(browser, url);
  try {
    await opened.page.waitForFunction(() => customElements.get('mha-heatmap'), null, { timeout: 20_000 }).catch(() => {});
    const wasmUrl = new URL('mha_engine.wasm', url).href;
    const t0 = Date.now();
    const rows = await runContract(opened.page, { wasmUrl });
    measure('property contract s', +((Date.now() - t0) / 1000).toFixed(1));
    const byTag = new Map();
    for (const row of rows) (byTag.get(row.tag) ?? byTag.set(row.tag, []).get(row.tag)).push(row);
    for (const [tag, group] of byTag) {
      for (const row of group) await check(`property contract: <${tag}> ${row.attribute}`, () => { if (row.problems.length) fail(row.problems.join('\n')); });
    }
  } finally { await opened.close(); }
}

// --- Main -----------------------------------------------------------------------------------

function parseArgs(argv) {
  const options = { only: null, list: false };
  for (let i = 0; i < argv.length; i++) {
    if (argv[i] === '--only') options.only = argv[++i].split(',');
    else if (argv[i].startsWith('--only=')) options.only = argv[i].slice(7).split(',');
    else if (argv[i] === '--list') options.list = true;
    else throw new UsageError(`unknown option ${argv[i]}: use --only SITE[,SITE] or --list`);
  }
  return options;
}

async function main() {
  const options = parseArgs(process.argv.slice(2));
  if (options.list) {
    for (const [name, site] of Object.entries(SITES)) console.log(`${name.padEnd(18)} ${site.kind.padEnd(6)} ${Object.entries(site.packages).map(([p, v]) => `${p}@${v}`).join(' ')}`);
    return 0;
  }
  const unknown = (options.only ?? []).filter((name) => !SITES[name]);
  if (unknown.length) throw new UsageError(`no site ${unknown.join(', ')}; the sites: ${Object.keys(SITES).join(', ')}`);
  if (!existsSync(join(ROOT, 'web', 'dist', 'mha_engine.wasm'))) throw new UsageError('web/dist/ is not built: run scripts/build.sh (npm test builds it) first');
  const started = Date.now();
  await rm(ARTIFACTS, { recursive: true, force: true });
  await mkdir(ARTIFACTS, { recursive: true });
  console.log(`== package (npm pack)`);
  const { tarball, unpacked } = await packPackage();
  const context = await packageChecks(unpacked);
  const browser = await launchBrowser();
  try {
    for (const [name, site] of Object.entries(SITES)) {
      if (options.only && !options.only.includes(name)) continue;
      try {
        await runSite(name, site, { tarball, context, browser });
      } catch (error) {
        current = name;
        await check('the suite itself ran this site to the end', () => { throw error; });
      }
    }
  } finally {
    await browser.close();
  }
  const seconds = (Date.now() - started) / 1000;
  await writeFile(join(ARTIFACTS, 'report.json'), `${JSON.stringify({ seconds, measures, results }, null, 2)}\n`);
  summary(seconds);
  return results.some((r) => r.ok === false) ? 1 : 0;
}

function summary(seconds) {
  console.log('\n== measurements');
  for (const [site, values] of Object.entries(measures)) console.log(`${site.padEnd(18)} ${Object.entries(values).map(([k, v]) => `${k} ${v}`).join(' · ')}`);
  console.log('\n== per site');
  const sites = [...new Set(results.map((r) => r.site))];
  for (const site of sites) {
    const mine = results.filter((r) => r.site === site);
    console.log(`${site.padEnd(18)} ${mine.filter((r) => r.ok).length} passed, ${mine.filter((r) => r.ok === false).length} failed${mine.some((r) => r.ok === null) ? `, ${mine.filter((r) => r.ok === null).length} skipped` : ''}`);
  }
  console.log(`\nsites suite: ${seconds.toFixed(0)} s; screenshots and report.json in ${relative(ROOT, ARTIFACTS)}/`);
  const passed = results.filter((r) => r.ok).length;
  const failed = results.filter((r) => r.ok === false).length;
  const skipped = results.filter((r) => r.ok === null).length;
  console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
}

main().then((code) => { process.exitCode = code; }, (error) => { console.error(error instanceof UsageError ? error.message : error?.stack ?? error); process.exitCode = 2; });
