// W_O mixes the heads: the split of an output row by heads, the output without one head and the
// rows' spread, each against a plain loop over the engine's own tensors (and the engine's output).
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { headContributions, rowSpread, spreads, withoutHead } from '../../web/src/logic/lessons/heads-mix.js';
import { getTestEngine } from './engine-helper.js';

// Y = O·Wo + bo with columns of O zeroed for head h (h = null: none), row by row, in float64.
function outputOf(run, zeroHead = null) {
  const { B, T, C, D } = run.summary;
  const O = run.step('concat').data;
  const { Wo, bo } = run.weights;
  const out = new Float64Array(B * T * C);
  for (let r = 0; r < B * T; r++) {
    for (let j = 0; j < C; j++) {
      let y = bo ? bo[j] : 0;
      for (let i = 0; i < C; i++) if (zeroHead === null || Math.floor(i / D) !== zeroHead) y += O[r * C + i] * Wo[i * C + j];
      out[r * C + j] = y;
    }
  }
  return out;
}

test('an output row is the sum of each head\'s context times its rows of W_O, plus b_o', async () => {
  const engine = await getTestEngine();
  for (const config of [{ B: 2, T: 4, C: 8, H: 2 }, { B: 1, T: 5, C: 12, H: 3, bias: false, seed: 4 }, { B: 1, T: 3, C: 16, H: 4, Hkv: 2, mask: 'causal' }]) {
    const run = engine.run(config);
    const { C, T } = run.summary;
    for (let t = 0; t < T; t++) {
      const mix = headContributions(run, { b: 0, t });
      assert.ok(mix.maxDiff < 1e-5, `the sum is the engine's output row (${mix.maxDiff})`);
      for (let j = 0; j < C; j++) assert.ok(Math.abs(mix.sum[j] - run.output[t * C + j]) < 1e-5);
      // Each part is that head's context through its D rows of W_O: zero the others and compare.
      const only = (h) => {
        const all = outputOf(run);
        const without = outputOf(run, h);
        return Array.from({ length: C }, (_, j) => all[t * C + j] - without[t * C + j]);
      };
      mix.parts.forEach((part, h) => only(h).forEach((v, j) => assert.ok(Math.abs(part[j] - v) < 1e-9, `head ${h}, feature ${j}`)));
      if (config.bias === false) assert.ok(mix.bias.every((v) => v === 0));
    }
  }
});

test('zeroing a head: the output as a plain loop without its columns gives it, and the change is that head\'s part', async () => {
  const engine = await getTestEngine();
  const run = engine.run({ B: 2, T: 4, C: 12, H: 3 });
  for (let h = 0; h < 3; h++) {
    const ablated = withoutHead(run, h);
    const expected = outputOf(run, h);
    let change = 0;
    let heads = 0;
    expected.forEach((v, i) => {
      assert.ok(Math.abs(ablated.output[i] - v) < 1e-5, `element ${i}: ${ablated.output[i]} vs ${v}`);
      change += Math.abs(run.output[i] - v);
      heads += Math.abs(run.output[i] - run.weights.bo[i % 12]);
    });
    assert.ok(Math.abs(ablated.meanChange - change / expected.length) < 1e-6);
    assert.ok(Math.abs(ablated.share - change / heads) < 1e-6);
    assert.ok(Math.abs(ablated.headsMean - heads / expected.length) < 1e-6);
    assert.ok(ablated.meanChange > 0 && ablated.maxChange >= ablated.meanChange);
  }
});

test('seeded attention averages V: the context\'s rows differ from their mean much less than V\'s', async () => {
  const engine = await getTestEngine();
  assert.equal(rowSpread(Float32Array.from([1, 2, 3, 4]), 1, 2, 2), 1);
  const run = engine.run({ B: 2, T: 8, C: 16, H: 2 });
  const s = spreads(run);
  assert.ok(s.context < s.v / 3, `context ${s.context} vs V ${s.v}`);
  assert.ok(s.output < s.v / 3, `output ${s.output} vs V ${s.v}`);
});
