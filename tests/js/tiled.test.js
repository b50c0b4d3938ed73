// Tiled (FlashAttention) and incremental (KV cache) attention through the JS API: the
// fixtures within 1e-5 of PyTorch, every row's final m and ℓ against the naive softmax computed
// here in float64, the tile grid and its skipped tiles against the engine's count and an
// independent formula, one tile's values, the decoding steps at every t, the cache's measured
// bytes, the memory model and the KV-cache tables, and their errors.
import assert from 'node:assert/strict';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { assertClose, loadFixtures } from './helpers.js';
import { referenceAttention } from './reference.js';

let engine;
before(async () => {
  engine = await createEngine();
});

const BLOCKS = [[1, 1], [2, 3], [3, 2], [64, 128]];

// A fixture as causal self-attention: K and V from x, padding lengths kept within T.
function causalSelf({ kv, Tk, keyLengths, ...config }) {
  const lengths = keyLengths ? { keyLengths: keyLengths.map((n) => Math.min(n, config.T)) } : {};
  return { ...config, ...lengths, mask: 'causal' };
}

describe('tiled', () => {
  for (const fixture of loadFixtures()) {
    test(`${fixture.name}: output and q within 1e-5 of PyTorch at every block size`, () => {
      const naive = engine.run(fixture.config);
      for (const [blockQ, blockK] of BLOCKS) {
        const run = engine.run({ ...fixture.config, algorithm: 'tiled', blockQ, blockK });
        const where = `${fixture.name} ${blockQ}×${blockK}`;
        assertClose(assert, run.output, fixture.expected.output.data, 1e-5, `${where} output`);
        assertClose(assert, run.step('q').data, fixture.expected.q.data, 1e-5, `${where} q`);
        assertClose(assert, run.step('tile_context').data, naive.step('context').data, 1e-5, `${where} context`);
        assert.deepEqual(run.warnings.map(String), naive.warnings.map(String));
      }
    });
  }

  test('each row ends with m and ℓ equal to the naive softmax row max and sum (1e-6 relative)', () => {
    for (const config of [
      { B: 2, T: 7, C: 12, H: 3, mask: 'causal', keyLengths: [7, 3], seed: 4 },
      { B: 1, T: 5, Tk: 9, C: 8, H: 4, Hkv: 2, seed: 9 },
      { B: 2, T: 6, C: 6, H: 2, keyLengths: [6, 0], seed: 1 },
    ]) {
      const naive = engine.run(config);
      const masked = naive.step('masked').data;
      const Tk = naive.summary.Tk;
      for (const [blockQ, blockK] of BLOCKS) {
        const run = engine.run({ ...config, algorithm: 'tiled', blockQ, blockK });
        const Nk = run.summary.tiles.keyBlocks;
        const m = run.step('tile_max').data;
        const l = run.step('tile_sum').data;
        for (let row = 0; row < masked.length / Tk; row++) {
          const values = Array.from(masked.subarray(row * Tk, (row + 1) * Tk));
          const max = Math.max(...values);
          const sum = max === -Infinity ? 0 : values.reduce((s, v) => s + Math.exp(v - max), 0);
          const where = `${JSON.stringify(config)} ${blockQ}×${blockK} row ${row}`;
          if (max === -Infinity) assert.equal(m[row * Nk + Nk - 1], -Infinity, where);
          else assert.ok(Math.abs(m[row * Nk + Nk - 1] - max) <= 1e-6 * Math.max(1, Math.abs(max)), `${where}: m ${m[row * Nk + Nk - 1]} vs ${max}`);
          assert.ok(Math.abs(l[row * Nk + Nk - 1] - sum) <= 1e-6 * Math.max(1, sum), `${where}: ℓ ${l[row * Nk + Nk - 1]} vs ${sum}`);
        }
      }
    }
  });

  test('the tile grid: skipped tiles as the engine counts them, and n(n−1)/2 above a causal diagonal', () => {
    for (const n of [1, 2, 5]) {
      const run = engine.run({ B: 1, T: 3 * n, C: 4, H: 2, mask: 'causal', algorithm: 'tiled', blockQ: 3, blockK: 3 });
      assert.equal(run.summary.tiles.skipped, 2 * n * (n - 1) / 2);
      assert.equal(run.tiles().filter((tile) => tile.skipped).length, n * (n - 1) / 2);
    }
    for (const config of [
      { B: 3, T: 7, Tk: 10, C: 4, H: 2, mask: 'causal', keyLengths: [10, 4, 0], blockQ: 2, blockK: 3 },
      { B: 2, T: 9, C: 4, H: 1, keyLengths: [9, 5], blockQ: 4, blockK: 2 },
      { B: 1, T: 5, C: 4, H: 2, blockQ: 1, blockK: 1 },
    ]) {
      const run = engine.run({ ...config, algorithm: 'tiled' });
      const { tiles } = run.summary;
      let skipped = 0;
      for (let b = 0; b < config.B; b++) {
        const grid = run.tiles({ batch: b });
        assert.equal(grid.length, tiles.queryBlocks * tiles.keyBlocks);
        assert.equal(grid.filter((tile) => tile.skipped).length, tiles.skippedPerHead[b], `batch ${b}`);
        skipped += tiles.skippedPerHead[b] * config.H;
        // Every cell of the matrix lies in exactly one tile.
        const cells = grid.reduce((n, { rows, cols }) => n + (rows[1] - rows[0]) * (cols[1] - cols[0]), 0);
        assert.equal(cells, config.T * (config.Tk ?? config.T));
      }
      assert.equal(tiles.skipped, skipped);
      assert.equal(tiles.total, tiles.computed + tiles.skipped);
    }
  });

  test('one tile: its scores in place in the matrix, m and ℓ before and after it, O', () => {
    const run = engine.run({ B: 1, T: 5, C: 8, H: 2, mask: 'causal', algorithm: 'tiled', blockQ: 2, blockK: 2, seed: 3 });
    const naive = engine.run({ B: 1, T: 5, C: 8, H: 2, mask: 'causal', seed: 3 });
    const masked = naive.step('masked', { batch: 0, head: 1 }).data;
    const tile = run.tile(2, 1, { batch: 0, head: 1 });
    assert.deepEqual(tile.rows, [4, 5]);
    assert.deepEqual(tile.cols, [2, 4]);
    assert.equal(tile.skipped, false);
    assert.deepEqual(Array.from(tile.scores), Array.from(masked.subarray(4 * 5 + 2, 4 * 5 + 4)));
    const m = Math.max(...masked.subarray(20, 24));
    assert.ok(Math.abs(tile.max[0] - m) < 1e-6);
    assert.ok(Math.abs(tile.maxBefore[0] - Math.max(...masked.subarray(20, 22))) < 1e-6);
    assert.ok(Math.abs(tile.correction[0] - Math.exp(tile.maxBefore[0] - tile.max[0])) < 1e-6);
    assert.ok(Math.abs(tile.sum[0] - (tile.correction[0] * tile.sumBefore[0] + tile.probs[0] + tile.probs[1])) < 1e-6);
    assert.equal(tile.output.length, 4);
    const above = run.tile(0, 2, { batch: 0, head: 1 });
    assert.equal(above.skipped, true);
    assert.deepEqual(Array.from(above.scores), [-Infinity, -Infinity]);
    assert.deepEqual(above.max, above.maxBefore);
    assert.throws(() => run.tile(3, 0), { code: 'bad_value', field: 'i', message: 'i=3 is not a whole number from 0 to 2.' });
    assert.throws(() => naive.tiles(), { code: 'bad_value', field: 'algorithm', message: 'tiles() needs a run with algorithm "tiled"; this run\'s is "naive".' });
  });

  test('a lazy tiled run computes one head on request, as the eager run has it', () => {
    const config = { B: 2, T: 6, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: [6, 4], algorithm: 'tiled', blockQ: 4, blockK: 3 };
    const eager = engine.run(config);
    const lazy = engine.run({ ...config, snapshots: 'lazy' });
    assert.ok(lazy.steps.every((step) => step.data === null));
    assert.deepEqual(lazy.summary.tiles, eager.summary.tiles);
    for (const id of ['tile_scores', 'tile_max', 'tile_output', 'tile_context']) {
      const a = lazy.step(id, { batch: 1, head: 3 });
      const b = eager.step(id, { batch: 1, head: 3 });
      assert.deepEqual(a.shape, b.shape);
      assert.deepEqual(a.strides, b.strides);
      assert.deepEqual(Array.from(a.data), Array.from(b.data), id);
    }
    assert.deepEqual(lazy.tile(1, 1, { batch: 1, head: 3 }), eager.tile(1, 1, { batch: 1, head: 3 }));
    assert.throws(() => eager.step('q', { batch: 0, head: 0 }), { code: 'bad_value', message: /only of tile_scores, tile_max/ });
  });
});

describe('incremental', () => {
  for (const fixture of loadFixtures()) {
    test(`${fixture.name} as causal self-attention: every output row within 1e-5 of the causal forward pass`, () => {
      const config = causalSelf(fixture.config);
      const naive = engine.run(config);
      const run = engine.run({ ...config, algorithm: 'incremental' });
      const { B, T, C, H, Hkv } = naive.summary;
      assertClose(assert, run.output, naive.output, 1e-5, `${fixture.name} output`);
      const expected = referenceAttention({ B, T, Tk: T, C, H, Hkv, causal: true, keyLengths: config.keyLengths ?? null, x: config.x, kv: null, weights: config.weights });
      assertClose(assert, run.output, expected.output, 1e-5, `${fixture.name} output vs reference`);
      if (fixture.config.mask === 'causal' && !fixture.config.kv) assertClose(assert, run.output, fixture.expected.output.data, 1e-5, `${fixture.name} vs PyTorch`);
      assert.deepEqual(run.warnings.map(String), naive.warnings.map(String));
    });
  }

  test('each decoding step t: the cache [B, Hkv, t+1, D], one row of scores [B, H, 1, t+1], measured bytes', () => {
    for (const Hkv of [4, 2, 1]) {  // MHA, GQA, MQA
      const config = { B: 2, T: 5, C: 16, H: 4, Hkv, mask: 'causal', seed: 8 };
      const run = engine.run({ ...config, algorithm: 'incremental' });
      const naive = engine.run(config);
      const D = 4;
      for (let t = 0; t < 5; t++) {
        const cache = run.step('cache_k', { t });
        assert.deepEqual(cache.shape, [2, Hkv, t + 1, D]);
        assert.deepEqual(cache.axes, ['B', Hkv === 4 ? 'H' : 'Hkv', 't+1', 'D']);
        assert.deepEqual(cache.slice, { t });
        const scores = run.step('decode_scores', { t });
        assert.deepEqual(scores.shape, [2, 4, 1, t + 1]);
        // Row t of the causal masked scores, its first t+1 keys.
        const masked = naive.step('masked').data;
        for (let bh = 0; bh < 8; bh++) {
          for (let j = 0; j <= t; j++) assert.ok(Math.abs(scores.data[bh * (t + 1) + j] - masked[(bh * 5 + t) * 5 + j]) < 1e-6);
        }
        assert.deepEqual(run.step('decode_q', { t }).shape, [2, 4, 1, D]);
        assert.deepEqual(run.step('decode_output', { t }).shape, [2, 1, 16]);
      }
      const bytes = run.cacheBytes();
      assert.equal(bytes.length, 5);
      for (const { t, tokens, shape, bytes: measured, formulaBytes } of bytes) {
        assert.equal(tokens, t + 1);
        assert.deepEqual(shape, [2, Hkv, t + 1, D]);
        assert.equal(measured, formulaBytes);
        assert.equal(formulaBytes, 2 * (t + 1) * 2 * Hkv * D * 4);  // B · tokens · 2·Hkv·D·4
      }
    }
  });

  test('a lazy incremental run decodes up to t on request, as the eager run has it', () => {
    const config = { B: 2, T: 6, C: 12, H: 3, Hkv: 1, mask: 'causal', keyLengths: [6, 2], algorithm: 'incremental' };
    const eager = engine.run(config);
    const lazy = engine.run({ ...config, snapshots: 'lazy' });
    assert.deepEqual(Array.from(lazy.output), Array.from(eager.output));
    for (const id of ['decode_q', 'cache_v', 'decode_scores', 'decode_weights', 'decode_context', 'decode_output']) {
      for (const t of [0, 3, 5]) {
        const a = lazy.step(id, { t });
        const b = eager.step(id, { t });
        assert.deepEqual(a.shape, b.shape, `${id} t=${t}`);
        assert.deepEqual(Array.from(a.data), Array.from(b.data), `${id} t=${t}`);
      }
    }
    assert.deepEqual(lazy.cacheBytes(), eager.cacheBytes());
    assert.throws(() => eager.step('decode_q', { t: 6 }), { code: 'bad_value', field: 't', message: 't=6 is not a whole number from 0 to 5.' });
    assert.throws(() => eager.step('x', { t: 0 }), { code: 'bad_value', message: /A slice by decoding step t is asked only of the decoding steps/ });
    assert.throws(() => lazy.step('decode_q', { t: 1, batch: 0 }), { code: 'bad_value', field: 'step' });
    assert.throws(() => engine.run({ B: 1, T: 3, C: 4, H: 2 }).cacheBytes(), { field: 'algorithm', message: /^cacheBytes\(\) needs a run with algorithm "incremental"/ });
  });

  test('errors name algorithm, in both languages', () => {
    const bad = [
      [{ B: 1, T: 4, C: 8, H: 2, algorithm: 'incremental' }, 'algorithm', /it needs mask "causal"/],
      [{ B: 1, T: 4, Tk: 6, C: 8, H: 2, mask: 'causal', algorithm: 'incremental' }, 'algorithm', /this config is cross-attention/],
      [{ B: 1, T: 4, C: 8, H: 2, algorithm: 'flash' }, 'algorithm', /^algorithm must be "naive", "tiled" or "incremental", not the string "flash"\.$/],
      [{ B: 1, T: 4, C: 8, H: 2, blockQ: 2 }, 'blockQ', /block sizes belong to algorithm "tiled"/],
      [{ B: 1, T: 4, C: 8, H: 2, algorithm: 'tiled', blockK: 0 }, 'blockK', /blockK is the key block size/],
      [{ B: 1, T: 4, C: 8, H: 2, algorithm: 'tiled', blockQ: 1.5 }, 'blockQ', /not a whole number/],
      [{ B: 1, T: 16384, C: 768, H: 12, mask: 'causal', algorithm: 'tiled', snapshots: false }, 'blockQ', /805,306,368 tiles/],
    ];
    for (const [config, field, message] of bad) {
      assert.throws(() => engine.run(config), (error) => {
        assert.ok(error instanceof MhaError);
        assert.equal(error.field, field);
        assert.match(error.message, message);
        assert.match(error.messageIn('zh'), /[\u4e00-\u9fff]/);
        assert.doesNotMatch(error.messageIn('zh'), /\{@|term\./);
        return true;
      });
    }
  });
});

describe('memory and the KV cache as data', () => {
  test('memory(): the naive score matrix of one head against one tile, and the whole matrix', () => {
    const config = { B: 1, T: 16384, C: 768, H: 12, mask: 'causal', blockQ: 64, blockK: 128 };
    const model = engine.memory(config);
    assert.equal(model.naive.scores, 16384 * 16384 * 4);
    assert.equal(model.tiled.scores, 64 * 128 * 4);
    assert.equal(model.scoreMatrixBytes, 12 * 16384 * 16384 * 4);  // 12 GiB
    assert.ok(model.tiled.total < 400 * 2 ** 20, `${model.tiled.total}`);
    assert.ok(model.incremental.total < model.naive.total);
    for (const algorithm of ['naive', 'tiled', 'incremental']) {
      const m = model[algorithm];
      assert.equal(m.total, m.inputs + m.weights + m.working + m.scores + m.snapshots);
    }
    assert.equal(engine.memory({ B: 1, T: 4, Tk: 6, C: 8, H: 2 }).incremental, null);
    assert.throws(() => engine.memory({ B: 1, T: 4, C: 10, H: 4 }), { code: 'not_divisible', field: 'H' });
  });

  test('memoryCurve(): naive grows with T², the tiled working set does not', () => {
    const curve = engine.memoryCurve({ B: 1, T: 100, C: 64, H: 4, blockQ: 64, blockK: 128 });
    assert.ok(curve.some((p) => p.current && p.T === 100));
    assert.deepEqual(curve.map((p) => p.T), [...curve.map((p) => p.T)].sort((a, b) => a - b));
    for (const p of curve) {
      assert.equal(p.naive.scores, p.T * p.T * 4);
      assert.equal(p.tiled.scores, Math.min(64, p.T) * Math.min(128, p.T) * 4);
    }
    const last = curve.at(-1);
    assert.equal(last.T, 2 ** 17);
    assert.ok(last.naive.total > 60 * 2 ** 30 && last.tiled.total < 2 ** 30);
  });

  test('kvCache() and the named 7B-class shapes, with the arithmetic: 2·Hkv·D·4 bytes per token and layer', () => {
    const table = engine.kvCache({ C: 768, H: 12, Hkv: 4, layers: 12, tokens: 1024 });
    assert.deepEqual(table.rows.map((r) => [r.layout, r.Hkv]), [['MHA', 12], ['GQA', 6], ['GQA', 4], ['GQA', 3], ['GQA', 2], ['MQA', 1]]);
    assert.deepEqual(table.rows.filter((r) => r.current).map((r) => r.Hkv), [4]);
    for (const r of table.rows) {
      assert.equal(r.bytesPerTokenPerLayer, 2 * r.Hkv * 64 * 4);
      assert.equal(r.bytesPerToken, r.bytesPerTokenPerLayer * 12);
      assert.equal(r.bytes, r.bytesPerToken * 1024);
    }
    const run = engine.run({ B: 1, T: 3, C: 768, H: 12, Hkv: 4, snapshots: false });
    assert.equal(table.rows.find((r) => r.current).bytesPerTokenPerLayer, run.summary.kvCacheBytesPerToken);
    const [mistral, llama] = engine.namedShapes;
    assert.equal(mistral.id, 'mistral_7b');
    assert.deepEqual([mistral.table.C, mistral.table.H, mistral.table.Hkv, mistral.table.D, mistral.table.layers, mistral.table.tokens], [4096, 32, 8, 128, 32, 4096]);
    const gqa = mistral.table.rows.find((r) => r.current);
    assert.equal(gqa.bytesPerTokenPerLayer, 8192);        // 2 · 8 · 128 · 4
    assert.equal(gqa.bytesPerToken, 256 * 1024);          // × 32 layers
    assert.equal(gqa.bytes, 2 ** 30);                     // × 4,096 tokens: 1 GiB in float32
    assert.equal(mistral.table.rows[0].bytes, 4 * 2 ** 30);  // MHA: 4 GiB
    assert.equal(mistral.table.rows.at(-1).bytes, 2 ** 27);  // MQA: 128 MiB
    assert.equal(llama.table.rows.find((r) => r.current).layout, 'MHA');
    assert.throws(() => engine.kvCache({ C: 768, H: 12, Hkv: 5 }), { code: 'heads_not_divisible', field: 'Hkv' });
    assert.throws(() => engine.kvCache({ C: 768, H: 12, tokens: 2.5 }), { code: 'bad_type', field: 'tokens' });
  });

  test('the catalogue says how each step slices', () => {
    const kinds = Object.fromEntries(engine.catalogue.map((s) => [s.id, s.slice]));
    assert.equal(kinds.weights, 'head');
    assert.equal(kinds.tile_output, 'head');
    assert.equal(kinds.cache_k, 't');
    assert.equal(kinds.q, '');
    assert.deepEqual(new Set(engine.catalogue.map((s) => s.pass)), new Set(['forward', 'backward', 'tiled', 'incremental']));
  });
});
// tests/js/catalogue.test.js checks the .d.ts's step ids, ops and axes against the catalogue.
