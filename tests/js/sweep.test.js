// The input sweep of thousands of configs from a fixed seed through ONE engine. Every valid
// one must match the independent plain-JS reference (tests/js/reference.js) within 1e-5 on q,
// scores, weights and output (a tiled run on q and output, a decoding run on its weights and
// output); every invalid one must throw an Error whose `field` is the field at
// fault and whose message names it. The engine must still answer correctly at the end.
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { compare } from './helpers.js';
import { referenceAttention } from './reference.js';

const SEED = 0x5eed6;
const VALID = 10000;
const INVALID = 10000;
const TOLERANCE = 1e-5;

// mulberry32: a small PRNG so that the sweep is the same on every run.
function prng(seed) {
  let state = seed >>> 0;
  const next = () => {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
  const int = (lo, hi) => lo + Math.floor(next() * (hi - lo + 1));  // inclusive
  const pick = (list) => list[Math.floor(next() * list.length)];
  const chance = (p) => next() < p;
  return { next, int, pick, chance };
}

// Values that JSON.stringify cannot turn into text (it throws RangeError and TypeError).
const DEEP = Array.from({ length: 100000 }).reduce((inner) => [inner], 1);
const CIRCULAR = { note: 'contains itself' };
CIRCULAR.self = CIRCULAR;

const divisors = (n) => Array.from({ length: n }, (_, i) => i + 1).filter((d) => n % d === 0);

// Values in [-scale, scale): as a Float32Array or a plain array, which the API takes alike.
function tensor(r, count, scale) {
  const values = Float32Array.from({ length: count }, () => (2 * r.next() - 1) * scale);
  return r.chance(0.5) ? values : Array.from(values);
}

// A valid config across every feature, sizes kept small so that thousands run in seconds.
function validConfig(r) {
  const H = r.pick([1, 2, 3, 4, 6]);
  const D = r.int(1, 4);
  const C = H * D;
  const B = r.int(1, 3);
  const T = r.int(1, 6);
  const config = { B, T, C, H, seed: r.int(0, 0xffffffff) };
  const hkv = r.next();
  if (hkv < 0.25) config.Hkv = 1;                          // MQA
  else if (hkv < 0.5) config.Hkv = r.pick(divisors(H));    // GQA (or H itself)
  let Tk = T;
  let cross = false;
  if (r.chance(0.4)) {                                     // cross-attention
    Tk = r.int(1, 7);
    cross = true;
    config.Tk = Tk;
    if (Tk === T || r.chance(0.5)) config.kv = tensor(r, B * Tk * C, 1);
  }
  if (r.chance(0.4)) config.mask = 'causal';
  else if (r.chance(0.2)) config.mask = 'none';
  if (r.chance(0.35)) config.keyLengths = Array.from({ length: B }, () => r.int(0, Tk));
  if (r.chance(0.4)) config.bias = false;
  else if (r.chance(0.3)) config.bias = true;
  if (r.chance(0.5)) config.x = tensor(r, B * T * C, 1);
  if (r.chance(0.5)) {
    const Hkv = config.Hkv ?? H;
    const bound = 1 / Math.sqrt(C);
    const w = { Wq: tensor(r, C * H * D, bound), Wk: tensor(r, C * Hkv * D, bound), Wv: tensor(r, C * Hkv * D, bound), Wo: tensor(r, C * C, bound) };
    if (config.bias !== false) Object.assign(w, { bq: tensor(r, H * D, bound), bk: tensor(r, Hkv * D, bound), bv: tensor(r, Hkv * D, bound), bo: tensor(r, C, bound) });
    config.weights = w;
  }
  // The same attention computed tiled (FlashAttention) or decoded token by token (KV cache, causal
  // self-attention only). Blocks from 1 up to past the sequence, or the defaults.
  const algorithm = r.next();
  if (algorithm < 0.2) {
    config.algorithm = 'tiled';
    if (r.chance(0.8)) Object.assign(config, { blockQ: r.int(1, 8), blockK: r.int(1, 8) });
  } else if (algorithm < 0.35 && config.mask === 'causal' && !cross) {
    config.algorithm = 'incremental';
  }
  // Without snapshots only the output comes back: possible to check when x (and kv) are explicit.
  if (config.x && (!cross || config.kv) && r.chance(0.3)) config.snapshots = false;
  // A lazy run computes each step when asked (run.step), whole or one {batch, head} at a time.
  else if (r.chance(0.05)) config.snapshots = 'lazy';
  return { config, cross, Tk };
}

// An invalid config of one kind, and the field its error must name.
function invalidConfig(r) {
  // A valid config of the naive algorithm (the kinds below that make cross-attention would make an
  // incremental one fail for its algorithm first); the algorithms' own errors are a kind of their own.
  const base = () => {
    const { algorithm, blockQ, blockK, ...config } = validConfig(r).config;
    return config;
  };
  const kinds = [
    () => {  // a size that is zero, negative, fractional, NaN, ±Infinity, huge, a string, a boolean, ...
      const key = r.pick(['B', 'T', 'C', 'H', 'Tk', 'Hkv']);
      const bad = r.pick([0, -1, -r.int(2, 1e6), 0.5, 2.5, NaN, Infinity, -Infinity, 1e20, 2e6, 1e7, '4', 'four', true, [4], {}]);
      const config = { ...base(), [key]: bad };
      if (key === 'Tk') delete config.kv;
      return [config, key];
    },
    () => {  // a required size missing
      const key = r.pick(['B', 'T', 'C', 'H']);
      const config = base();
      delete config[key];
      return [config, key];
    },
    () => {  // C not divisible by H
      const H = r.pick([2, 3, 4, 5, 6, 7, 8]);
      const C = H * r.int(1, 4) + r.int(1, H - 1);
      return [{ B: r.int(1, 3), T: r.int(1, 5), C, H }, 'H'];
    },
    () => {  // H not divisible by Hkv, or Hkv > H
      const H = r.pick([2, 3, 4, 6, 8]);
      const Hkv = r.chance(0.5) ? r.pick([...Array(H - 1).keys()].map((i) => i + 1).filter((d) => H % d !== 0).concat([H + 1])) : H + r.int(1, 5);
      return [{ B: 1, T: 3, C: H * 2, H, Hkv }, 'Hkv'];
    },
    () => {  // keyLengths: wrong count, out of [0, Tk], fractional, not numbers, not an array
      const config = base();
      const Tk = config.Tk ?? config.T;
      const kind = r.int(0, 5);
      if (kind === 0) return [{ ...config, keyLengths: Array(config.B + r.int(1, 2)).fill(1) }, 'keyLengths'];
      if (kind === 1 && config.B > 1) return [{ ...config, keyLengths: Array(config.B - 1).fill(1) }, 'keyLengths'];
      const lengths = Array(config.B).fill(0);
      const b = r.int(0, config.B - 1);
      if (kind <= 2) { lengths[b] = r.chance(0.5) ? Tk + r.int(1, 9) : -r.int(1, 9); return [{ ...config, keyLengths: lengths }, 'keyLengths']; }
      if (kind === 3) { lengths[b] = 0.5; return [{ ...config, keyLengths: lengths }, `keyLengths[${b}]`]; }
      if (kind === 4) { lengths[b] = r.pick(['1', null, NaN, [1]]); return [{ ...config, keyLengths: lengths }, `keyLengths[${b}]`]; }
      return [{ ...config, keyLengths: r.pick(['2', 3, {}, true]) }, 'keyLengths'];
    },
    () => {  // an explicit tensor too short, too long, of the wrong type, or holding NaN/±Infinity/huge values
      const config = base();
      const Hkv = config.Hkv ?? config.H;
      const D = config.C / config.H;
      const Tk = config.Tk ?? config.T;
      if (!config.kv && (config.Tk === undefined || Tk === config.T)) config.Tk = Tk;  // kv below must be cross
      const sizes = { x: config.B * config.T * config.C, kv: config.B * Tk * config.C };
      const wsizes = { Wq: config.C * config.H * D, Wk: config.C * Hkv * D, Wv: config.C * Hkv * D, Wo: config.C * config.C, bq: config.H * D, bk: Hkv * D, bv: Hkv * D, bo: config.C };
      const kind = r.int(0, 6);
      // Kind 6, a finite value too large for float32's products, is only an error where it meets
      // itself: x = 1e30 in self-attention gives scores of about 1e60 (1e30 in one bias need not).
      const name = kind === 6 ? 'x' : r.pick(['x', 'kv', 'Wq', 'Wk', 'Wv', 'Wo', 'bq', 'bk', 'bv', 'bo']);
      if (kind === 6) { delete config.kv; delete config.Tk; delete config.keyLengths; }
      const field = sizes[name] ? name : `weights.${name}`;
      const size = sizes[name] ?? wsizes[name];
      let value;
      let expected = field;
      if (kind === 0) value = tensor(r, size - r.int(1, size), 0.5);
      else if (kind === 1) value = tensor(r, size + r.int(1, 5), 0.5);
      else if (kind === 2) value = r.pick(['abc', 5, true, { 0: 1 }]);
      else if (kind === 3) { value = Array.from(tensor(r, size, 0.5)); const i = r.int(0, size - 1); value[i] = r.pick(['1', null, [1], {}]); expected = `${field}[${i}]`; }
      else { value = Array.from(tensor(r, size, 0.5)); value[r.int(0, size - 1)] = kind === 4 ? NaN : kind === 5 ? r.pick([Infinity, -Infinity, 1e39]) : r.pick([1e30, -1e30, 3e38]); if (r.chance(0.5)) value = Float32Array.from(value); }
      if (field.startsWith('weights.')) {
        config.bias = true;
        const bound = 0.3;
        config.weights = { Wq: tensor(r, wsizes.Wq, bound), Wk: tensor(r, wsizes.Wk, bound), Wv: tensor(r, wsizes.Wv, bound), Wo: tensor(r, wsizes.Wo, bound), bq: tensor(r, wsizes.bq, bound), bk: tensor(r, wsizes.bk, bound), bv: tensor(r, wsizes.bv, bound), bo: tensor(r, wsizes.bo, bound) };
        config.weights[name] = value;
      } else {
        config[name] = value;
      }
      return [config, expected];
    },
    () => {  // weights: a missing matrix, biases with bias false, an unknown entry, not an object
      const config = base();
      const C = config.C;
      const Hkv = config.Hkv ?? config.H;
      const full = { Wq: new Float32Array(C * C), Wk: new Float32Array(C * (C / config.H) * Hkv), Wv: new Float32Array(C * (C / config.H) * Hkv), Wo: new Float32Array(C * C), bq: new Float32Array(C), bk: new Float32Array((C / config.H) * Hkv), bv: new Float32Array((C / config.H) * Hkv), bo: new Float32Array(C) };
      const kind = r.int(0, 3);
      if (kind === 0) { const name = r.pick(['Wq', 'Wk', 'Wv', 'Wo', 'bq', 'bk', 'bv', 'bo']); delete full[name]; return [{ ...config, bias: true, weights: full }, `weights.${name}`]; }
      if (kind === 1) { const name = r.pick(['bq', 'bk', 'bv', 'bo']); const w = { Wq: full.Wq, Wk: full.Wk, Wv: full.Wv, Wo: full.Wo, [name]: full[name] }; return [{ ...config, bias: false, weights: w }, `weights.${name}`]; }
      if (kind === 2) { const name = r.pick(['Wz', 'wq', 'W_q', 'in_proj_weight']); return [{ ...config, bias: true, weights: { ...full, [name]: [1] } }, `weights.${name}`]; }
      return [{ ...config, weights: r.pick(['abc', 3, true, [1, 2]]) }, 'weights'];
    },
    () => {  // an unknown key, including near misses of known ones and an empty name
      const key = r.pick(['heads', 'b', 'Mask', 'key_lengths', 'memorycap', 'dropout', 'constructor', 'x ', 'Wq', '']);
      return [{ ...base(), [key]: 1 }, key === '' ? 'config' : key];
    },
    () => {  // sizes whose product overflows 32 bits, with or without snapshots and cap
      const big = r.pick([65536, 100000, 1000000]);
      const config = { B: big, T: big, C: r.pick([1, 2]), H: 1, Tk: r.pick([undefined, 1]) };
      if (r.chance(0.5)) Object.assign(config, { snapshots: false, memoryCap: 9e15 });
      return [config, SIZE_TO_LOWER];
    },
    () => {  // above the memory cap, or a memory cap that is not a positive whole number
      const config = { ...base(), snapshots: true };  // the cap limits the snapshots a run holds
      if (r.chance(0.7)) return [{ ...config, memoryCap: r.int(1, 70) }, SIZE_TO_LOWER];
      return [{ ...config, memoryCap: r.pick([0, -5, 1.5, 'big', NaN, null]) }, 'memoryCap'];
    },
    () => {  // an option outside its values: mask, bias, seed, snapshots
      const key = r.pick(['mask', 'bias', 'seed', 'snapshots']);
      const bad = { mask: ['future', 'Causal', 1, null, true], bias: ['yes', 1, null], seed: [-1, 2 ** 32, 1.5, 'seed', NaN], snapshots: ['no', 0, null] }[key];
      return [{ ...base(), [key]: r.pick(bad) }, key];
    },
    () => {  // tiled and incremental: an unknown algorithm, a bad block size, blocks without
      // tiling, decoding without a causal mask or across two sequences
      const kind = r.int(0, 4);
      const { kv, Tk, keyLengths, ...config } = base();
      if (kind === 0) return [{ ...config, algorithm: r.pick(['flash', 'Tiled', 'FlashAttention', 1, null, true, ['tiled']]) }, 'algorithm'];
      const block = r.pick(['blockQ', 'blockK']);
      if (kind === 1) return [{ ...config, algorithm: 'tiled', [block]: r.pick([0, -2, 1.5, '4', 2e6, NaN, Infinity, [2]]) }, block];
      if (kind === 2) return [{ ...config, algorithm: r.pick([undefined, 'naive', 'incremental']), mask: 'causal', [block]: r.int(1, 9) }, block];
      if (kind === 3) return [{ ...config, algorithm: 'incremental', mask: r.pick([undefined, 'none']) }, 'algorithm'];
      return [{ ...config, algorithm: 'incremental', mask: 'causal', Tk: config.T + r.int(1, 3) }, 'algorithm'];
    },
    () => [r.pick([null, 42, 'B=2', [2, 4, 8, 2], true]), 'config'],  // not an object at all
    () => {  // a value nested 100,000 deep, or containing itself (JSON could carry neither)
      const field = r.pick(['B', 'H', 'Tk', 'mask', 'keyLengths', 'x', 'weights.Wk', 'weights', 'memoryCap', 'extra']);
      const value = r.chance(0.5) ? DEEP : CIRCULAR;
      const config = base();
      if (field === 'weights.Wk') config.weights = { Wq: [1], Wk: value };
      else config[field] = value;
      // The engine reads no deeper than a config goes: an array's first entry, which should be a
      // number, is named; the circular object {note, self} is read key by key, and "note" is not a
      // weight's name.
      // A tensor's length is checked before its values: [[[…]]] has 1 value, usually the wrong count.
      if (value === DEEP && ['x', 'weights.Wk'].includes(field)) return [config, [field, `${field}[0]`]];
      if (value === DEEP && field === 'keyLengths') return [config, `${field}[0]`];
      return [config, field === 'weights' && value === CIRCULAR ? 'weights.note' : field];
    },
  ];
  return r.pick(kinds)();
}

function checkValid(engine, { config, cross, Tk }, where) {
  const run = engine.run(config);
  const snapshots = config.snapshots !== false;
  const x = config.x ?? run.step('x').data;
  const kv = cross ? (config.kv ?? run.step('source').data) : null;
  const expected = referenceAttention({
    B: config.B, T: config.T, Tk, C: config.C, H: config.H, Hkv: config.Hkv ?? config.H,
    causal: config.mask === 'causal', keyLengths: config.keyLengths ?? null, x, kv, weights: config.weights ?? run.weights,
  });
  const actual = { output: run.output };
  const algorithm = config.algorithm ?? 'naive';
  // A tiled run has q but no scores or weights; a decoding run's weights are decode_weights, row t
  // made at step t (0 past the cache, as the reference's masked weights).
  const compared = { naive: { q: 'q', scores: 'scores', weights: 'weights' }, tiled: { q: 'q' }, incremental: { weights: 'decode_weights' } }[algorithm];
  if (snapshots) for (const [name, id] of Object.entries(compared)) actual[name] = run.step(id).data;
  if (config.snapshots === 'lazy' && algorithm === 'incremental') {
    // One decoding step computed on its own: row t of the reference's weights, its first t+1.
    const { B, H, T } = config;
    const t = (B * 7 + H) % T;
    actual.weights_t = run.step('decode_weights', { t }).data;
    expected.weights_t = Array.from({ length: B * H }, (_, bh) => Array.from(expected.weights.slice((bh * T + t) * T, (bh * T + t) * T + t + 1))).flat();
  } else if (config.snapshots === 'lazy' && algorithm === 'tiled') {
    // One head's tiles computed on its own: its scores are the reference's scaled, masked scores.
    const { B, H, T, C } = config;
    const batch = (B * 7 + H) % B;
    const head = (T * 5 + B) % H;
    const scale = 1 / Math.sqrt(C / H);
    const masked = run.step('tile_scores', { batch, head }).data;
    const start = (batch * H + head) * T * Tk;
    actual.scores_head = masked.map((v) => (v === -Infinity ? 0 : v));
    expected.scores_head = Array.from(expected.scores.slice(start, start + T * Tk), (v, i) => (masked[i] === -Infinity ? 0 : v * scale));
  } else if (config.snapshots === 'lazy') {
    // One head of the weights, computed on its own, must be that head's block of the reference.
    const { B, H, T } = config;
    const batch = (B * 7 + H) % B;
    const head = (T * 5 + B) % H;
    const start = (batch * H + head) * T * Tk;
    actual.weights_head = run.step('weights', { batch, head }).data;
    expected.weights_head = expected.weights.slice(start, start + T * Tk);
  }
  for (const [id, values] of Object.entries(actual)) {
    const { maxAbs, firstBad, reason } = compare(values, expected[id], TOLERANCE);
    if (firstBad >= 0) {
      assert.fail(`${where}: ${id} differs from the reference: ${reason ?? `max |diff| ${maxAbs}, first at ${firstBad} (${values[firstBad]} vs ${expected[id][firstBad]})`}\nconfig: ${describe(config)}`);
    }
  }
  return run;
}

// A config too big for memory names the size to lower first: one of these, which its message names.
const SIZE_TO_LOWER = ['B', 'T', 'Tk', 'C', 'H'];

function checkInvalid(engine, config, field, where) {
  let error = null;
  try {
    engine.run(config);
  } catch (caught) {
    error = caught;
  }
  const context = `${where}: ${describe(config)}`;
  assert.ok(error, `${context} was accepted; expected an error naming ${field}`);
  assert.ok(error instanceof Error && error instanceof MhaError, `${context}: threw ${error}`);
  if (Array.isArray(field)) {
    assert.ok(field.includes(error.field), `${context}: error.field ${error.field} is not one of ${field}; message: ${error.message}`);
    if (field === SIZE_TO_LOWER) assert.equal(error.code, 'memory_cap', `${context}: ${error.message}`);
  } else {
    assert.equal(error.field, field, `${context}: error.field; message: ${error.message}`);
  }
  assert.ok(error.message.includes(error.field), `${context}: the message does not name ${error.field}: ${error.message}`);
  assert.notEqual(error.code, 'internal', `${context}: ${error.message}`);
}

function describe(config) {
  if (config === DEEP || config === CIRCULAR) return config === DEEP ? '[100,000 levels deep]' : '{contains itself}';
  try {
    return JSON.stringify(config, (_key, value) => {
      if (value === DEEP) return '[100,000 levels deep]';
      if (value === CIRCULAR) return '{contains itself}';
      if (ArrayBuffer.isView(value) || (Array.isArray(value) && value.length > 8)) return `[${value.length} values]`;
      if (typeof value === 'number' && !Number.isFinite(value)) return String(value);
      return value;
    });
  } catch {
    return String(config);
  }
}

test(`input sweep: ${VALID + INVALID} configs from seed ${SEED}, one engine`, { timeout: 240_000 }, async () => {
  const engine = await createEngine();
  const r = prng(SEED);
  const probe = { B: 2, T: 5, Tk: 3, C: 12, H: 6, Hkv: 2, mask: 'causal', keyLengths: [3, 1], seed: 99 };
  const first = engine.run(probe).output;

  let valid = 0;
  let invalid = 0;
  const fields = new Map();
  while (valid < VALID || invalid < INVALID) {
    // Interleaved, so that every valid run follows errors and must not be disturbed by them.
    if (valid < VALID && (invalid >= INVALID || r.chance(VALID / (VALID + INVALID)))) {
      checkValid(engine, validConfig(r), `valid #${valid}`);
      valid++;
    } else {
      const [config, field] = invalidConfig(r);
      checkInvalid(engine, config, field, `invalid #${invalid}`);
      const kind = field === SIZE_TO_LOWER ? 'a size to lower' : String(field).replace(/\[\d+\]$/, '[i]');
      fields.set(kind, (fields.get(kind) ?? 0) + 1);
      invalid++;
    }
  }

  // Still the same engine, still right: the first run again, bit for bit, and one more checked run.
  assert.deepEqual(engine.run(probe).output, first);
  checkValid(engine, { config: { ...probe, x: new Float32Array(2 * 5 * 12).fill(0.25) }, cross: true, Tk: 3 }, 'after the sweep');
  // Every kind of field was exercised.
  for (const field of ['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'keyLengths', 'keyLengths[i]', 'x', 'x[i]', 'kv', 'weights', 'weights.Wq', 'weights.Wk', 'weights.bo', 'memoryCap', 'a size to lower', 'mask', 'bias', 'seed', 'snapshots', 'config', 'extra', 'algorithm', 'blockQ', 'blockK']) {
    assert.ok(fields.get(field) > 0, `no invalid config named ${field}`);
  }
});

// Sizes where 32-bit arithmetic breaks: near 2^15 and 2^16 (whose products pass 2^31 and 2^32)
// and near 2^31 and 2^32 themselves, alone and in pairs, with and without snapshots and with a
// cap far above what wasm can address. Each either runs (an output of B·T·C finite values) or is
// refused with an MhaError that names a size or the cap; no trap, no internal error, no leak.
test('sizes near 2^15, 2^16, 2^31 and 2^32, and their products, run or are refused by name', { timeout: 240_000 }, async () => {
  const engine = await createEngine();
  const near = (n) => [n - 1, n, n + 1];
  const edges = [...near(2 ** 15), ...near(2 ** 16), ...near(2 ** 31), ...near(2 ** 32)];
  const keys = ['B', 'T', 'Tk', 'C', 'H'];
  const small = { B: 1, T: 2, C: 2, H: 1 };
  const configs = [];
  for (const key of keys) for (const value of edges) configs.push({ ...small, [key]: value, ...(key === 'C' ? { H: 1 } : {}) });
  for (const [a, b] of [['B', 'T'], ['T', 'C'], ['B', 'C'], ['T', 'Tk'], ['C', 'H']]) {
    for (const x of near(2 ** 15).concat(near(2 ** 16))) for (const y of [2 ** 15, 2 ** 16 + 1]) configs.push({ ...small, [a]: x, [b]: y });
  }
  const options = [{}, { snapshots: false }, { snapshots: 'lazy' }, { snapshots: false, memoryCap: 9e15 }, { memoryCap: 2 ** 40 }];
  const handles = engine.liveHandles;
  let ran = 0, refusals = 0;
  for (const config of configs) {
    for (const option of options) {
      const full = { ...config, ...option };
      let run = null;
      try {
        run = engine.run(full);
      } catch (error) {
        assert.ok(error instanceof MhaError, `${JSON.stringify(full)}: ${error}`);
        assert.ok(['bad_size', 'memory_cap', 'not_divisible', 'heads_not_divisible'].includes(error.code), `${JSON.stringify(full)}: ${error.code} ${error.message}`);
        assert.ok(['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'memoryCap'].includes(error.field), `${JSON.stringify(full)}: field ${error.field}`);
        assert.ok(error.message.includes(error.field), error.message);
        refusals++;
        continue;
      }
      assert.equal(run.output.length, config.B * config.T * config.C, JSON.stringify(full));
      assert.ok(run.output.every(Number.isFinite), JSON.stringify(full));
      ran++;
    }
  }
  assert.ok(ran > 20 && refusals > 100, `${ran} ran, ${refusals} refused`);
  assert.equal(engine.liveHandles, handles);
  assert.ok(engine.memoryBytes <= 1.5 * 2 ** 30, `wasm memory ${engine.memoryBytes}`);
  assert.equal(engine.run({ B: 2, T: 4, C: 8, H: 2 }).output.length, 64);
});
