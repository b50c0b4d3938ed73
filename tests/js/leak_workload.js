// The mixed workload of the leak checks (tests/js/leaks.test.js, scripts/leak_check.js): run i of
// a fixed cycle of sizes, features, successes and errors, through one engine. The largest run
// comes every 500 runs, so the wasm heap reaches its high-water mark within the first 1,000 runs;
// after that, neither the memory size nor the count of live Embind handles may change.
import { MhaError } from '../../web/src/engine/engine.js';

const SIZES = [
  { B: 1, T: 3, C: 8, H: 2 },
  { B: 2, T: 16, C: 32, H: 4, Hkv: 2, mask: 'causal' },
  { B: 3, T: 5, Tk: 9, C: 24, H: 6, Hkv: 1, keyLengths: [9, 0, 4] },
  { B: 2, T: 24, C: 32, H: 8, mask: 'causal', keyLengths: [24, 7] },
  { B: 1, T: 1, C: 1, H: 1 },
  { B: 2, T: 7, Tk: 7, C: 12, H: 3, bias: false },
  { B: 1, T: 128, C: 16, H: 4, snapshots: 'lazy' },  // one head asked for: kind 3 below
];

const ERRORS = [
  { B: 2, T: 4, C: 10, H: 4 },                         // not divisible
  { B: 2, T: 4, C: 8, H: 2, keyLengths: [4] },          // keyLengths count
  { B: 1, T: 2, C: 2, H: 1, x: [1, 2, NaN, 4] },        // NaN in a tensor
  { B: 1, T: 2, C: 2, H: 1, x: [1e30, 1, 1, 1] },       // would overflow float32
  { B: 1, T: 4096, C: 768, H: 12 },                     // above the memory cap
  { B: 65536, T: 65536, C: 1, H: 1, snapshots: false, memoryCap: 9e15 },  // wraps 32 bits
  { B: 2, T: 4, C: 8, H: 2, heads: 2 },                 // unknown key
  { B: '2', T: 4, C: 8, H: 2 },                         // wrong type
  null,                                                  // not an object (refused in JS)
  { B: 1, T: 4, C: 8, H: 2, algorithm: 'incremental' },  // decoding needs a causal mask
  { B: 1, T: 4, C: 8, H: 2, algorithm: 'tiled', blockK: 0 },  // a block below 1
];

// Tiled and incremental attention: every third group of eight runs tiled, every third
// decodes token by token where the size is causal self-attention (the others run naive).
function withAlgorithm(config, i) {
  const algorithm = (i >> 3) % 3;
  if (algorithm === 1) return { ...config, algorithm: 'tiled', blockQ: 1 + (i % 5), blockK: 1 + ((i >> 1) % 7) };
  if (algorithm === 2 && config.mask === 'causal' && config.Tk === undefined) return { ...config, algorithm: 'incremental' };
  return config;
}

const torch = (C, bias) => ({
  in_proj_weight: new Float32Array(3 * C * C).fill(0.1),
  out_proj_weight: new Float32Array(C * C).fill(0.2),
  ...(bias ? { in_proj_bias: new Float32Array(3 * C), out_proj_bias: new Float32Array(C) } : {}),
});

/** Run number i; returns 'ok' or 'error'. Throws only if the engine breaks a promise. */
export function mixedRun(engine, i) {
  const kind = i % 10;
  try {
    if (kind < 6) {
      // Once in 500 runs one large enough to grow the heap past its initial 16 MiB (its weights
      // alone are), without snapshots so that it stays within the memory cap. (It stays naive, so
      // that the heap's high-water mark is reached by run 504.)
      const size = i % 500 === 4 ? { B: 1, T: 256, C: 1024, H: 8, mask: 'causal', snapshots: false } : withAlgorithm(SIZES[(i >> 1) % SIZES.length], i);
      const config = { ...size, seed: i >>> 0 };
      if (kind === 1) config.snapshots = false;
      if (kind === 5) config.snapshots = 'lazy';
      if (kind === 2) config.x = new Float32Array(config.B * config.T * config.C).fill((i % 7) / 7);
      if (kind === 4 && config.algorithm) config.snapshots = 'lazy';
      const run = engine.run(config);
      if (!(run.output.length === config.B * config.T * config.C)) throw new Error(`run ${i}: wrong output length`);
      if (config.snapshots === 'lazy') run.step(config.H > 1 ? 'weights' : 'q', config.H > 1 ? { batch: 0, head: 1 } : undefined);
      if (kind === 4) engine.validate(config);
      if (kind === 3) run.step('no_such_step');  // an error from a result, after a success
      // A lazy run's slices, computed on request: one head's tiles, a decoding step as it was at t.
      if (kind === 4 && config.algorithm === 'tiled') run.tile(0, 0, { batch: 0, head: config.H - 1 });
      if (kind === 4 && config.algorithm === 'incremental') run.step('cache_v', { t: config.T - 1 });
      if (kind === 5 && config.algorithm === 'incremental') run.cacheBytes();
      return 'ok';
    }
    if (kind === 6) {
      const C = 1 + (i % 5);
      const packed = torch(C, i % 2 === 0);
      if (i % 4 < 2) engine.fromTorch(packed);
      else engine.fromLinear({ 'q_proj.weight': packed.in_proj_weight.subarray(0, C * C), 'k_proj.weight': packed.in_proj_weight.subarray(C * C, 2 * C * C), 'v_proj.weight': packed.in_proj_weight.subarray(2 * C * C), 'out_proj.weight': packed.out_proj_weight });
      return 'ok';
    }
    if (kind === 7) engine.fromTorch({ ...torch(3, true), out_proj_bias: undefined });
    else engine.run(ERRORS[(i >> 1) % ERRORS.length]);
  } catch (error) {
    if (!(error instanceof MhaError) || !error.field) throw new Error(`run ${i}: ${error}`);
    return 'error';
  }
  throw new Error(`run ${i}: an invalid config was accepted`);
}
