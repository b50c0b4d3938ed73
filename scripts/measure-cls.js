#!/usr/bin/env node
// Cumulative layout shift of a blog post that embeds the widgets, in headless Chromium: a 680 px
// column of paragraphs with a shape chain, a causal heatmap, a walkthrough and the heatmap that
// follows it between them, as a tutorial author writes one. Used by
// tests/browser/host-pages.test.js (which holds it to ≤ 0.05), and by hand to compare bundles:
//   node scripts/measure-cls.js [folder with mha-lens.js and mha_engine.wasm]   (default web/dist)
import { copyFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { chromium } from 'playwright-core';
import { startServer } from './serve.js';

const PARAGRAPH = 'Multi-head attention splits the model width C into H heads of D = C/H features each. Every head compares each query with every key, and the softmax turns the scores of a query into weights that sum to one. Read the shapes as the tensors move through the block.';

/**
 * The blog post: `column` px wide, the widgets between paragraphs. `blocking`: the script tag the
 * docs recommend (web/docs/widgets.md), blocking="render", so that the elements are defined (and reserve their
 * space) before the page is first painted; without it a browser may paint the post before the
 * script runs, with the elements still empty, and move it down when they are defined.
 */
export function blogPage({ column = 680, blocking = true } = {}) {
  const p = `<p>${PARAGRAPH}</p>`;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"><title>A post</title>
<link rel="stylesheet" href="blog.css"><script type="module" src="lib/mha-lens.js"${blocking ? ' blocking="render"' : ''}></script></head>
<body><main><h1>Attention, shape by shape</h1>${p}
<mha-shapes b="1" c="8" h="2"></mha-shapes>
${p}
<mha-heatmap b="1" c="8" h="2" mask="causal" tokens="I love deep learning" only head="1"></mha-heatmap>
${p}
<mha-walkthrough id="walk" c="12" h="3" tokens="the cat sat down"></mha-walkthrough>
${p}
<mha-heatmap for="walk"></mha-heatmap>
${p}${p}</main></body></html>`.replace('680px', `${column}px`);
}

const BLOG_CSS = 'body { margin: 0; font: 17px/1.6 Georgia, serif; color: #222; background: #fdfdfb; }\nmain { max-width: 680px; margin: 0 auto; padding: 1rem; }\nmha-walkthrough, mha-heatmap, mha-shapes { margin: 1.5rem 0; }\n';

/**
 * Serves the blog post with the bundle from `dist` and measures its layout shift in `browser`
 * (viewport `width` × `height`): the largest session window of shifts without recent input (the
 * Core Web Vitals definition), once every element has drawn its run and the page has settled.
 * Returns { cls, shifts, page, context, close }; a `screenshot` path saves the page. `blocking`
 * and `wasmDelay` as for blogPage and a slow network.
 */
export async function measureCls(browser, { dist, width = 1280, height = 800, column = 680, screenshot, colorScheme = 'light', blocking = true, wasmDelay = 0 } = {}) {
  const site = await mkdtemp(join(tmpdir(), 'mha-lens-blog-'));
  await mkdir(join(site, 'lib'));
  for (const file of ['mha-lens.js', 'mha_engine.wasm']) await copyFile(join(dist, file), join(site, 'lib', file));
  await writeFile(join(site, 'index.html'), blogPage({ column, blocking }));
  await writeFile(join(site, 'blog.css'), BLOG_CSS.replace('680px', `${column}px`));
  await writeFile(join(site, 'favicon.ico'), '');
  const host = await startServer({ port: 0, root: site, csp: "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'" });
  const context = await browser.newContext({ viewport: { width, height }, colorScheme });
  const page = await context.newPage();
  await page.addInitScript(() => {
    window.layoutShifts = [];
    new PerformanceObserver((list) => {
      for (const entry of list.getEntries()) if (!entry.hadRecentInput) window.layoutShifts.push({ value: entry.value, time: entry.startTime });
    }).observe({ type: 'layout-shift', buffered: true });
  });
  // A slow network: the .wasm arrives `wasmDelay` ms after it is asked for.
  if (wasmDelay > 0) await page.route('**/*.wasm', async (route) => { await new Promise((done) => setTimeout(done, wasmDelay)); await route.continue(); });
  await page.goto(host.url);
  await page.waitForFunction(() => [...document.querySelectorAll('mha-walkthrough, mha-heatmap, mha-shapes')].every((e) => e.run), null, { timeout: 120_000 });
  await page.waitForTimeout(1500);
  const shifts = await page.evaluate(() => window.layoutShifts);
  // Session windows: shifts less than 1 s apart, at most 5 s long; CLS is the largest window.
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
  if (screenshot) await page.screenshot({ path: screenshot, fullPage: true });
  const close = async () => {
    await context.close();
    host.server.close();
    await rm(site, { recursive: true, force: true });
  };
  return { cls, shifts, page, context, close };
}

if (process.argv[1] && new URL(import.meta.url).pathname === process.argv[1]) {
  const dist = resolve(process.argv[2] ?? new URL('../web/dist/', import.meta.url).pathname);
  const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--disable-gpu'] });
  try {
    for (const blocking of [true, false]) {
      for (const wasmDelay of [0, 1000]) {
        const results = [];
        for (let i = 0; i < 3; i++) {
          const { cls, close } = await measureCls(browser, { dist, blocking, wasmDelay });
          results.push(cls);
          await close();
        }
        results.sort((a, b) => a - b);
        console.log(`${dist}: script ${blocking ? 'blocking="render"' : 'plain'}, .wasm after ${wasmDelay} ms: CLS median ${results[1].toFixed(3)} (runs ${results.map((v) => v.toFixed(3)).join(', ')})`);
      }
    }
  } finally {
    await browser.close();
  }
}
