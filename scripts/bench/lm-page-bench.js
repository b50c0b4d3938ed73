// node scripts/bench/lm-page-bench.js [--rounds 3] [--no-train]: the language-model section
// (<mha-lm>) on the docs page in headless Chromium. For each round, a fresh page:
//   open     what scrolling to the section costs: the bytes it fetches, and the page's main-thread
//            work from the scroll until every head is drawn (Chromium's TaskDuration, which counts
//            all the page's tasks in that time, and the longest single task seen by a
//            PerformanceObserver for 'longtask');
//   generate 128 characters at temperature 0.8 with the KV cache, and the page's own "recompute
//            everything" timing (every 8th character measured and multiplied back): the ratio;
//   train    (once; --no-train skips it) Reset, Train: seconds and steps until the best
//            previous-character head on held-out text reaches 0.9 (the section measures every 25 steps).
// Medians of the rounds. The machine is shared: read the ratios, not the absolute times, and
// note the load average (uptime) beside them.
import { chromium } from 'playwright-core';

import { startServer } from '../serve.js';

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
const train = !args.includes('--no-train');
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];
const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

async function until(page, fn, arg, timeout = 600_000) {
  const deadline = Date.now() + timeout;
  for (;;) {
    const value = await page.evaluate(fn, arg);
    if (value) return value;
    if (Date.now() > deadline) throw new Error('timed out');
    await page.waitForTimeout(50);
  }
}

const { server, url } = await startServer({ port: 0 });
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ARGS });
const results = { bytes: [], files: [], taskMs: [], longestMs: [], cachedMs: [], recomputeMs: [], ratio: [], rate: [] };
let training = null;
try {
  for (let round = 0; round < rounds; round++) {
    const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
    const page = await context.newPage();
    await page.addInitScript(() => {
      window.__longest = 0;
      new PerformanceObserver((list) => { for (const entry of list.getEntries()) window.__longest = Math.max(window.__longest, entry.duration); }).observe({ type: 'longtask', buffered: false });
    });
    const cdp = await context.newCDPSession(page);
    await cdp.send('Performance.enable');
    // Every response after the scroll, the worker's included (the checkpoint is fetched there).
    let counting = false;
    const fetched = [];
    page.on('requestfinished', (request) => {
      if (counting) fetched.push(request.sizes().then((sizes) => ({ url: request.url(), bytes: sizes.responseBodySize })).catch(() => ({ url: request.url(), bytes: 0 })));
    });
    await page.goto(`${url}?lang=en`);
    await page.locator('mha-walkthrough h3').waitFor({ timeout: 120_000 });
    await page.waitForTimeout(3000); // the playground's panels drawn when idle
    const metric = async (name) => (await cdp.send('Performance.getMetrics')).metrics.find((m) => m.name === name).value;
    const before = await metric('TaskDuration');
    await page.evaluate(() => { window.__longest = 0; });
    counting = true;
    await page.evaluate(() => document.getElementById('language-model').scrollIntoView());
    await until(page, () => document.getElementById('language-model').shadowRoot.querySelectorAll('figure.head').length > 0);
    await page.evaluate(() => new Promise((resolve) => requestAnimationFrame(() => setTimeout(resolve, 0))));
    results.taskMs.push((await metric('TaskDuration') - before) * 1000);
    results.longestMs.push(await page.evaluate(() => window.__longest));
    counting = false;
    const files = await Promise.all(fetched);
    results.bytes.push(files.reduce((sum, file) => sum + file.bytes, 0));
    if (round === 0) results.files = files.map((file) => `${file.url.replace(url, '')} ${(file.bytes / 1000).toFixed(1)} kB`);

    await page.evaluate(() => document.getElementById('language-model').shadowRoot.querySelector('button.generate').click());
    const timing = await until(page, () => {
      const root = document.getElementById('language-model').shadowRoot;
      return root.querySelector('pre.output')?.dataset.done === 'true' ? root.querySelector('.timing').textContent : null;
    });
    const [, n, cached, rate, full] = timing.match(/(\d+) characters in (\d+) ms with the KV cache \((\d+) characters\/s\)\. Recomputing the whole text for every character: (\d+) ms/);
    results.cachedMs.push(Number(cached));
    results.recomputeMs.push(Number(full));
    results.ratio.push(Number(full) / Number(cached));
    results.rate.push(Number(rate));
    if (Number(n) !== 128) throw new Error(`generated ${n} characters, not 128`);

    if (train && round === 0) {
      const click = (name) => page.evaluate((name) => document.getElementById('language-model').shadowRoot.querySelector(`button.${name}`).click(), name);
      await click('reset');
      await until(page, () => document.getElementById('language-model').shadowRoot.querySelector('.train-status')?.dataset.step === '0');
      const started = Date.now();
      await click('train');
      training = await until(page, () => {
        const root = document.getElementById('language-model').shadowRoot;
        const status = root.querySelector('.train-status');
        const best = Math.max(0, ...[...root.querySelectorAll('.forming .bar')].map((bar) => Number(bar.dataset.previous)));
        const step = Number(status.dataset.step);
        if (best >= 0.9) return { step, best, reached: true };
        return status.dataset.running === 'false' && step > 0 ? { step, best, reached: false } : null;
      });
      training.seconds = (Date.now() - started) / 1000;
      await click('pause');
    }
    await context.close();
  }
} finally {
  await browser.close();
  server.close();
}

const show = (xs, digits = 0) => `${median(xs).toFixed(digits)} (${xs.map((x) => x.toFixed(digits)).join(', ')})`;
console.log(`fetched when the section opens (first round): ${results.files.join(', ')}`);
console.log(`opening the section: ${show(results.bytes.map((b) => b / 1000))} kB fetched, main-thread tasks ${show(results.taskMs)} ms, longest task ${show(results.longestMs)} ms`);
console.log(`generating 128 characters: ${show(results.cachedMs)} ms with the KV cache (${show(results.rate)} characters/s), ${show(results.recomputeMs)} ms recomputing everything: ${show(results.ratio, 1)}× faster with the cache`);
if (training) console.log(`training from scratch: best previous-character head ${training.best.toFixed(2)} at step ${training.step} after ${training.seconds.toFixed(1)} s${training.reached ? ' (≥ 0.9)' : ' (0.9 not reached)'}`);
