// The size budget of what a tutorial page downloads: the widget bundle and the .wasm, gzipped.
// web/docs/performance.md ("Payload") reports the numbers; raising the budget should be a decision,
// not a drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// The widgets' payload, gzipped. The forward pass alone once fitted 150 KB; the target for the
// whole widgets payload is 200 KB, and it is NOT met: the engine carries the backward, tiled and
// incremental passes and its messages in both languages (mha_engine.wasm ~116 KB), and the bundle
// the trainer section, the lessons and views, the algorithms panel, both languages' words and the
// step catalogue (~117 KB). These budgets are regression guards at the current sizes (+2%), not
// the target. Raised by decision from 226,000 when the catalogue's text moved out of the .wasm
// into the JS module the page reads before the engine loads (the catalogue.js module, ~5 KB) and a
// run began to cross as numbers (the config tape's reader, ~3 KB of .wasm); web/docs/performance.md
// ("Payload") says what brings the payload back down. Raised by decision from 236,000 when every
// tensor began to be read by its real length and kind, each Array element checked in JS before the
// copy into wasm memory (the readers: ~1 KB of glue and .wasm), and the refusals that stop a page
// from freezing or a trainer from bricking joined the table in both languages (~1.5 KB); and when
// the docs page became a course (its contents, the K/V paths, the mask's broadcast, W_O's mixing
// computed, the notes and legends that keep pictures honest, all in two languages: ~7.4 KB of
// bundle) and the language model's messages reached the engine (~2.7 KB of .wasm); measured
// together after the merge: 255,211 B. Raised by decision to 278,000 when this wave's branches met:
// the engine's .wasm grew 118.6 → 133.9 KB gzipped with nn.MultiheadAttention's options (attn_mask in
// three conventions and every broadcast, key_padding_mask, bias_k/bias_v and the zero key, their
// steps and messages in both languages) and the reliability round's readers; the bundle grew ~5 KB
// with the framework properties' table, the language model's stub and the PyTorch-name reader;
// measured together: 276,846 B. web/docs/performance.md ("Payload") says what would bring it down
// (the reader's language on demand, the options' code built for size).
const BUDGET_BYTES = 278_000;

test('mha-lens.js + mha_engine.wasm stay under the gzipped budget', () => {
  const dist = new URL('../../web/dist/', import.meta.url);
  const gz = (name) => gzipSync(readFileSync(new URL(name, dist)), { level: 9 }).length;
  const bundle = gz('mha-lens.js');
  const wasm = gz('mha_engine.wasm');
  assert.ok(bundle + wasm <= BUDGET_BYTES, `bundle ${bundle} B + wasm ${wasm} B gzipped exceed ${BUDGET_BYTES} B`);
  // The bundle must carry its own copy of the engine glue and the elements, not import them.
  const text = readFileSync(new URL('mha-lens.js', dist), 'utf8');
  assert.ok(!/\bfrom\s*["']\.\.?\//.test(text), 'no relative imports left in the bundle');
  assert.ok(text.includes('mha-playground') && text.includes('mha_engine.wasm'));
});

// A page that trains (an <mha-trainer>) downloads the bundle, the engine with the trainer instead
// of the engine alone (page-engine.js: one .wasm, not both), its glue and the section's worker,
// then one task's checkpoint when it opens trained. web/docs/performance.md ("Payload") reports
// these; this keeps them from drifting up unnoticed.
// Raised by decision from 275,000 with the widgets' budget and the trainer session (its Embind
// class: ~3 KB more glue) and a worker that now reads runs into Steps (the catalogue, ~8 KB).
// Raised by decision from 300,000 with the widgets' budget (the same readers and refusals, and the
// trainer's own checks before each copy: ~5 KB across its .wasm, glue and worker) and the language
// model's core in the trainer's .wasm (its decoder, text batches, head jobs and float16 checkpoints:
// ~19 KB) and its JS API in the worker; measured together after the merge: 350,966 B. Raised by
// decision to 379,000 with the same branches (measured together: 377,158 B).
const TRAINER_PAGE_BUDGET_BYTES = 379_000; // the 200 KB target holds here too: not met

test('a page that trains: bundle, trainer glue and .wasm, worker; the checkpoints as files of their own', () => {
  const dist = new URL('../../web/dist/', import.meta.url);
  const gz = (name) => gzipSync(readFileSync(new URL(name, dist)), { level: 9 }).length;
  const files = ['mha-lens.js', 'mha_trainer.mjs', 'mha_trainer.wasm', 'mha-trainer-worker.js'];
  const total = files.reduce((sum, name) => sum + gz(name), 0);
  assert.ok(total <= TRAINER_PAGE_BUDGET_BYTES, `${files.map((name) => `${name} ${gz(name)} B`).join(' + ')} = ${total} B gzipped exceed ${TRAINER_PAGE_BUDGET_BYTES} B`);
  // The checkpoints are fetched, never bundled: the bundle holds their record only.
  const bundle = readFileSync(new URL('mha-lens.js', dist), 'utf8');
  // (473 KB of minified code after this wave's branches; a checkpoint would add ≥ 70 KB of bytes.)
  assert.ok(!bundle.includes('MHAT') && bundle.length < 520_000, 'no checkpoint inside the bundle (the smallest is 70 KB)');
  for (const task of ['reverse', 'sort', 'previous', 'induction']) assert.ok(readFileSync(new URL(`checkpoints/${task}.mhat`, dist)).length > 0, task);
  // The worker does not carry the plain engine's glue (scripts/bundle_worker.js). Raised by decision
  // from 21,000 when the engine's API gained the language model (~4 KB gzipped), which a worker that
  // trains one needs.
  // Raised again to 30,000 with the framework work's trainer service and the options' readers
  // (measured 29,107 B).
  assert.ok(gz('mha-trainer-worker.js') < 30_000, `worker ${gz('mha-trainer-worker.js')} B`);
});
