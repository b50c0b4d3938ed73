// The size budget of what a tutorial page downloads: the widget bundle and the .wasm, gzipped.
// README reports the numbers; raising the budget should be a decision, not a drift.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { gzipSync } from 'node:zlib';

// The widgets' payload, gzipped: issue 5 set 150 KB for the forward pass alone; issue 13 sets 200
// KB for the whole widgets payload once the engine carries the backward pass, Chinese messages and
// the step catalogue (the trainer's own .wasm is loaded only by a page that trains).
const BUDGET_BYTES = 200_000;

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
