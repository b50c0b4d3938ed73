#!/usr/bin/env node
// npm run bench:page [-- --json page-results.json] [-- --runs 60]
//
// The docs page in headless Chromium: from a changed control to the repainted walkthrough and
// heatmaps, at the toy size and at T=128 C=768 H=12. The page is served by scripts/serve.js (its
// strict CSP included); the script types into the playground's own form and times, with
// performance marks in the page, from the input event to the frame after it (requestAnimationFrame,
// then a task: the frame has been painted by then). The seed alternates, so every change is a new
// forward pass and a full repaint at the same size. Reported, not asserted.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

import { startServer } from '../serve.js';

const args = process.argv.slice(2);
const jsonPath = args.includes('--json') ? args[args.indexOf('--json') + 1] ?? 'page-results.json' : null;
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 60;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const SIZES = [
  { name: 'toy B=2 T=4 C=8 H=2', B: 2, T: 4, C: 8, H: 2, budgetMs: 16 },
  { name: 'B=1 T=128 C=768 H=12', B: 1, T: 128, C: 768, H: 12, budgetMs: 100 },
];

const { server, url } = await startServer({ port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
const results = { browser: browser.version(), runs, sizes: [] };
try {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error('page error:', error.message));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('mha-playground')?.shadowRoot?.querySelector('form.controls'));
  for (const size of SIZES) {
    const timings = await page.evaluate(async ({ B, T, C, H, runs }) => {
      const root = document.querySelector('mha-playground').shadowRoot;
      const form = root.querySelector('form.controls');
      const nextPaint = () => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0)));
      const set = (name, value, type = 'input') => {
        const input = form.elements.namedItem(name);
        input.value = String(value);
        input.dispatchEvent(new Event(type, { bubbles: true }));
      };
      const words = Array.from({ length: T }, (_, i) => `w${i}`).join(' ');
      set('tokens', words); set('B', B); set('C', C); set('H', H); set('Hkv', ''); set('Tk', '');
      set('mask', 'none', 'change'); set('keyLengths', '');
      await nextPaint();
      const times = [];
      for (let i = 0; i < runs + 5; i++) {
        performance.mark('control-changed');
        set('seed', 1 + (i % 2));
        await nextPaint();
        performance.mark('repainted');
        const { duration } = performance.measure('change-to-paint', 'control-changed', 'repainted');
        if (i >= 5) times.push(duration);  // the first few compile and warm up
      }
      const shown = root.querySelector('mha-walkthrough') && root.querySelector('mha-heatmap');
      return { times, shown: Boolean(shown) };
    }, { ...size, runs });
    const sorted = [...timings.times].sort((a, b) => a - b);
    const pick = (q) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
    const row = { size: size.name, p50Ms: pick(0.5), p95Ms: pick(0.95), maxMs: sorted.at(-1), budgetMs: size.budgetMs, shown: timings.shown };
    results.sizes.push(row);
    console.log(`${size.name.padEnd(24)} change → repaint: p50 ${row.p50Ms.toFixed(1)} ms, p95 ${row.p95Ms.toFixed(1)} ms ` +
      `(target p95 < ${size.budgetMs} ms: ${row.p95Ms < size.budgetMs ? 'met' : 'NOT MET'}), ${runs} changes`);
  }
} finally {
  await browser.close();
  server.close();
}
if (jsonPath) {
  fs.writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
  console.log(`wrote ${jsonPath}`);
}
