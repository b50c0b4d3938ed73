// npm run bench:page (after page-bench.js): how long a reader waits, on the docs page in headless
// Chromium, from Reset then Train until each task's head finds its job. For each task: pick it in
// the trainer section, wait for its trained checkpoint, press Reset (step 0, near-uniform heads),
// press Train, then poll the section (it measures head scores every 20 steps in its worker) until
// the job's best head reaches the task's target (trainer.task.jobTarget), and on until the task's
// section's steps for the task are done (web/src/logic/training/options.js: the page's model for
// sort is narrower than the engine's default). Seconds and steps for both; medians of `--rounds`.
import { chromium } from 'playwright-core';

import { startServer } from '../serve.js';
import { createEngine } from '../../web/src/engine/engine.js';
import { PRESETS } from '../../web/src/logic/training/options.js';

const args = process.argv.slice(2);
const rounds = args.includes('--rounds') ? Number(args[args.indexOf('--rounds') + 1]) : 3;
const TASKS = ['reverse', 'previous', 'induction', 'sort'];
const ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run',
  '--disable-background-networking', '--disable-component-update', '--disable-sync'];

const engine = await createEngine({ trainer: true });
const tasks = Object.fromEntries(TASKS.map((name) => [name, { ...engine.trainer({ task: name }).task, steps: PRESETS[name].steps }]));

const median = (xs) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

// Polls the page until fn(arg) is truthy; returns that value.
async function until(page, fn, arg, timeout = 300_000) {
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
const results = Object.fromEntries(TASKS.map((name) => [name, []]));
try {
  const page = await (await browser.newContext({ viewport: { width: 1280, height: 900 } })).newPage();
  await page.goto(`${url}?lang=en`);
  // The section opens trained (induction's checkpoint); pick a task only once it has.
  await until(page, () => { const t = document.querySelector('mha-trainer'); return t?.headScores && t.step > 0 && !t.running; });
  for (let round = 0; round < rounds; round++) {
    for (const name of TASKS) {
      const { job, jobTarget, steps } = tasks[name];
      const trainer = page.locator('mha-trainer');
      await trainer.locator('#tr-task').selectOption(name);
      await until(page, (task) => { const t = document.querySelector('mha-trainer'); return t.task?.name === task && t.headScores && !t.running; }, name);
      await trainer.locator('button[data-action="reset"]').click();
      await until(page, () => { const t = document.querySelector('mha-trainer'); return t.step === 0 && t.headScores && !t.running; });
      const started = Date.now();
      await trainer.locator('button[data-action="train"]').click();
      // The job forms, or training ends without it (then said as not reached).
      const found = await until(page, ({ job, jobTarget, steps }) => {
        const t = document.querySelector('mha-trainer');
        const best = Math.max(...(t.headScores ?? []).map((s) => s.jobs[job]));
        if (best >= jobTarget) return { step: t.step, best, reached: true };
        return t.step >= steps && !t.running ? { step: t.step, best, reached: false } : null;
      }, { job, jobTarget, steps });
      const formed = (Date.now() - started) / 1000;
      await until(page, (steps) => { const t = document.querySelector('mha-trainer'); return t.step >= steps && !t.running; }, steps);
      const done = (Date.now() - started) / 1000;
      results[name].push({ formed: found.reached ? formed : Infinity, formedStep: found.step, best: found.best, done, steps });
      console.log(`round ${round + 1} ${name.padEnd(9)} ${job} ≥ ${jobTarget}: ${found.reached ? `${formed.toFixed(1)} s (step ${found.step})` : `not reached (best ${found.best.toFixed(3)})`}; all ${steps} steps: ${done.toFixed(1)} s`);
    }
  }
} finally {
  await browser.close();
  server.close();
}

console.log(`\nReset → Train on the docs page, headless Chromium, medians of ${rounds} rounds:`);
console.log('| task | job (target) | seconds until the job forms | at step | seconds for the default steps |');
console.log('|---|---|---|---|---|');
for (const name of TASKS) {
  const rows = results[name];
  const { job, jobTarget, steps } = tasks[name];
  const formed = median(rows.map((r) => r.formed));
  console.log(`| \`${name}\` | ${job} (≥ ${jobTarget}) | ${Number.isFinite(formed) ? `${formed.toFixed(1)} s` : 'not reached'} | ${median(rows.map((r) => r.formedStep))} | ${median(rows.map((r) => r.done)).toFixed(1)} s (${steps}) |`);
}
