// The package in the two bundlers web/docs/widgets.md walks through, built from the tarball `npm pack`
// makes: a tiny app that imports 'mha-lens' (createEngine, getEngine) and 'mha-lens/widgets',
// built with Vite and with esbuild as web/docs/widgets.md says, served under a strict CSP and checked in
// Chromium: the build meets no node: import, the widgets draw, createEngine() runs, one engine is
// shared by both entries, and the .wasm is fetched exactly once.
import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFile, mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import * as esbuild from 'esbuild';
import { build as viteBuild } from 'vite';
import { startServer } from '../../scripts/serve.js';
import { appWith, pack, remove } from '../js/pack.js';
import { TIMEOUT, launch } from './harness.js';

const FAVICON = new URL('../../web/favicon.svg', import.meta.url).pathname;
const HOST_CSP = "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'";

const MAIN = `
import { createEngine, getEngine } from 'mha-lens';
import { getEngine as widgetsEngine } from 'mha-lens/widgets';

(async () => {
  const engine = await createEngine();
  const run = engine.run({ B: 1, T: 3, C: 8, H: 2 });
  document.getElementById('api').textContent = 'output ' + run.output.length;
  document.getElementById('shared').textContent = String((await getEngine()) === (await widgetsEngine()));
})();
`;
const BODY = `<p id="api"></p><p id="shared"></p>
<mha-walkthrough id="walk" c="12" h="3" tokens="a b c"></mha-walkthrough>
<mha-heatmap for="walk"></mha-heatmap>
<mha-shapes c="8" h="2"></mha-shapes>`;

let env;
let packed;
const apps = [];
before(async () => {
  env = await launch();
  packed = await pack();
});
after(async () => {
  await env?.browser.close();
  env?.server.close();
  if (packed) await remove(packed.dir);
  for (const app of apps) await remove(app);
});

// Serves `root` and checks the app there as a reader's browser would.
async function check(root, label) {
  const host = await startServer({ port: 0, root, csp: HOST_CSP });
  const context = await env.browser.newContext({ viewport: { width: 1000, height: 900 } });
  const page = await context.newPage();
  page.setDefaultTimeout(TIMEOUT);
  const problems = [];
  const wasm = [];
  page.on('console', (m) => { if (m.type() === 'error') problems.push(m.text()); });
  page.on('pageerror', (e) => problems.push(e.message));
  page.on('request', (r) => { if (r.url().endsWith('.wasm')) wasm.push(r.url()); });
  try {
    await page.goto(host.url);
    await page.locator('mha-heatmap figure.panel').first().waitFor();
    await page.locator('mha-shapes .chip').first().waitFor();
    await page.locator('mha-walkthrough h3').waitFor();
    await page.locator('#shared', { hasText: /true|false/ }).waitFor();
    assert.equal(await page.locator('#api').textContent(), 'output 24', `${label}: createEngine() ran`);
    assert.equal(await page.locator('#shared').textContent(), 'true', `${label}: one engine for both entries`);
    assert.equal(await page.locator('mha-heatmap figure.panel').count(), 3, `${label}: one sentence of tokens is one batch row: B=1 × H=3 panels`);
    assert.equal(wasm.length, 1, `${label}: the .wasm was fetched ${wasm.length} times: ${wasm.join(', ')}`);
    assert.deepEqual(problems, [], label);
  } finally {
    await context.close();
    host.server.close();
  }
}

test('Vite builds the app from the tarball with no warning, and it works with one .wasm fetch', { timeout: TIMEOUT * 3 }, async () => {
  const app = await appWith(packed.tarball, { prefix: 'mha-lens-vite-' });
  apps.push(app);
  await writeFile(join(app, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>vite app</title><link rel="icon" href="/favicon.svg">
<script type="module" src="/main.js"></script></head><body>${BODY}</body></html>`);
  await writeFile(join(app, 'main.js'), MAIN);
  await mkdir(join(app, 'public')); // Vite copies public/ into the build as it is
  await copyFile(FAVICON, join(app, 'public', 'favicon.svg'));
  const messages = [];
  const logger = { info() {}, warn: (m) => messages.push(m), warnOnce: (m) => messages.push(m), error: (m) => messages.push(m), clearScreen() {}, hasErrorLogged: () => false, hasWarned: false };
  await viteBuild({ root: app, configFile: false, logLevel: 'warn', customLogger: logger, build: { outDir: join(app, 'dist'), emptyOutDir: true } });
  // Rolldown's PLUGIN_TIMINGS says how long plugins ran on this (shared, slow) machine: not a warning about the package.
  assert.deepEqual(messages.filter((m) => !/PLUGIN_TIMINGS/.test(m)), [], 'no warning (node: imports externalized, unresolved assets, …)');
  await check(join(app, 'dist'), 'Vite');
});

test('esbuild bundles the app from the tarball for the browser, and with the .wasm copied beside the bundle it works', { timeout: TIMEOUT * 3 }, async () => {
  const app = await appWith(packed.tarball, { prefix: 'mha-lens-esbuild-' });
  apps.push(app);
  const out = join(app, 'public');
  await mkdir(out);
  await copyFile(FAVICON, join(out, 'favicon.svg'));
  await writeFile(join(app, 'main.js'), MAIN);
  await writeFile(join(out, 'index.html'), `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>esbuild app</title><link rel="icon" href="/favicon.svg">
<script type="module" src="main.js"></script></head><body>${BODY}</body></html>`);
  const result = await esbuild.build({ entryPoints: [join(app, 'main.js')], bundle: true, format: 'esm', platform: 'browser', outdir: out, logLevel: 'silent', absWorkingDir: app });
  assert.deepEqual([...result.errors, ...result.warnings], []);
  // The esbuild step of web/docs/widgets.md, which leaves new URL('./mha_engine.wasm', import.meta.url) alone.
  await copyFile(join(app, 'node_modules', 'mha-lens', 'web', 'dist', 'mha_engine.wasm'), join(out, 'mha_engine.wasm'));
  await check(out, 'esbuild');
});
