#!/usr/bin/env node
// npm run bench [-- --json results.json] [-- --quick] [-- --only 'T=128 C'] [-- --only training]
//                [-- --skip-long]
//
// Also the training-step benchmark (scripts/bench/train-bench.js): our trainer vs PyTorch on one
// thread vs TF.js, interleaved, per task, with the time to 99% accuracy.
//
// Our WebAssembly engine side by side with ONNX Runtime Web (wasm, 1 thread) and the TF.js wasm
// backend (XNNPACK, 1 thread), in one Node process, on identical inputs and weights. Every
// implementation takes x and the weights as Float32Arrays and hands the output back as a
// Float32Array, so each pays its own copies in and out. Before timing, every output must agree
// with ours within 1e-4. Runs are interleaved (one of each per round, in a shuffled order) so
// that the noise of a shared machine falls on all of them alike; we report medians and ratios.
// Everything is offline: the peers' .wasm files are read from node_modules by path.
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import { performance } from 'node:perf_hooks';
import os from 'node:os';

import { createEngine } from '../../web/src/engine/engine.js';
import { noise } from './noise.js';
import { trainingBenchmark } from './train-bench.js';
import { languageModelBenchmark } from './lm-bench.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const args = process.argv.slice(2);
const jsonPath = args.includes('--json') ? args[args.indexOf('--json') + 1] ?? 'bench-results.json' : null;
const quick = args.includes('--quick');
// --only T=512: just the sizes whose names contain this text (and no GEMM probe, T=4096 run or payload).
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const TOLERANCE = 1e-4;
// Tiled attention: the blocks it is timed with (the config's defaults, 2×2, are for the
// page's few tokens), and the long run that only the tiled pass can do.
const TILED = { algorithm: 'tiled', blockQ: 64, blockK: 128 };
const skipLong = args.includes('--skip-long');

// --- Inputs --------------------------------------------------------------------------------------
function problem({ B, T, C, H, mask = 'none' }) {
  const bound = 1 / Math.sqrt(C);
  const w = {};
  ['Wq', 'Wk', 'Wv', 'Wo'].forEach((name, i) => (w[name] = noise(C * C, 10 + i, bound)));
  ['bq', 'bk', 'bv', 'bo'].forEach((name, i) => (w[name] = noise(C, 20 + i, bound)));
  const additiveMask = new Float32Array(T * T);  // 0 where a query may look, −∞ where not
  if (mask === 'causal') for (let i = 0; i < T; ++i) for (let j = i + 1; j < T; ++j) additiveMask[i * T + j] = -Infinity;
  return { B, T, C, H, D: C / H, mask, x: noise(B * T * C, 1, 1), w, additiveMask };
}

// Forward FLOPs: four projections, Q·Kᵀ and A·V (the multiply-adds; softmax and biases are noise).
const forwardFlops = ({ B, T, C }) => 2 * B * T * C * C * 4 + 2 * 2 * B * T * T * C;

const packageVersion = (name) => JSON.parse(fs.readFileSync(path.join(root, 'node_modules', name, 'package.json'), 'utf8')).version;

// --- Implementations -------------------------------------------------------------------------------
async function loadOurs() {
  const engine = await createEngine();
  return {
    engine,
    forward(p, snapshots) {
      const run = engine.run({ B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask, x: p.x, weights: p.w, snapshots });
      if (snapshots) for (const step of run.steps) if (step.data.length !== step.numel) throw new Error(`step ${step.id} has no data`);
      return run.output;
    },
    // As a page whose slider replaces its run: the previous run is released as the next one
    // starts, so the engine copies the new trace into memory it has already used.
    previous: null,
    forwardReleasing(p) {
      this.previous?.release();
      const run = (this.previous = engine.run({ B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask, x: p.x, weights: p.w }));
      for (const step of run.steps) if (step.data.length !== step.numel) throw new Error(`step ${step.id} has no data`);
      return run.output;
    },
    tiled(p) {
      return engine.run({ B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask, x: p.x, weights: p.w, snapshots: false, memoryCap: 2 ** 31, ...TILED }).output;
    },
    naiveLarge(p) {  // compute only at sizes past the default memory cap
      return engine.run({ B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask, x: p.x, weights: p.w, snapshots: false, memoryCap: 2 ** 31 }).output;
    },
    gemm: (a, b, M, K, N) => engine.matmul(a, b, { M, K, N }),
    seeded(p) {
      const run = engine.run({ B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask });
      for (const step of run.steps) if (step.data.length !== step.numel) throw new Error(`step ${step.id} has no data`);
      return run.output;
    },
  };
}

async function loadOrt() {
  const ort = await import('onnxruntime-web');
  const dist = path.join(root, 'node_modules/onnxruntime-web/dist');
  ort.env.wasm.numThreads = 1;
  ort.env.wasm.simd = true;
  ort.env.wasm.wasmPaths = { wasm: path.join(dist, 'ort-wasm-simd-threaded.wasm'), mjs: path.join(dist, 'ort-wasm-simd-threaded.mjs') };
  ort.env.logLevel = 'error';
  const sessions = new Map();
  const session = async (file) => {
    if (!sessions.has(file)) {
      sessions.set(file, await ort.InferenceSession.create(path.join(root, 'scripts/bench/onnx', file), {
        executionProviders: ['wasm'], graphOptimizationLevel: 'all', intraOpNumThreads: 1, interOpNumThreads: 1,
      }));
    }
    return sessions.get(file);
  };
  const f32 = (data, dims) => new ort.Tensor('float32', data, dims);
  return {
    version: packageVersion('onnxruntime-web'),
    async prepare(p) {
      const s = await session(`mha_H${p.H}_D${p.D}${p.mask === 'causal' ? '_causal' : ''}.onnx`);
      return async () => {
        const feeds = { x: f32(p.x, [p.B, p.T, p.C]) };
        for (const name of ['Wq', 'Wk', 'Wv', 'Wo']) feeds[name] = f32(p.w[name], [p.C, p.C]);
        for (const name of ['bq', 'bk', 'bv', 'bo']) feeds[name] = f32(p.w[name], [p.C]);
        if (p.mask === 'causal') feeds.mask = f32(p.additiveMask, [p.T, p.T]);
        return (await s.run(feeds)).y.data;
      };
    },
    // ONNX Runtime's fused attention (com.microsoft Attention), which takes Q, K and V packed as
    // one [C, 3C] weight: packed here once, as a model exported that way holds them.
    async prepareFused(p) {
      const s = await session(`mha_fused_H${p.H}_D${p.D}${p.mask === 'causal' ? '_causal' : ''}.onnx`);
      const { C } = p;
      const Wqkv = new Float32Array(C * 3 * C);
      for (let r = 0; r < C; r++) ['Wq', 'Wk', 'Wv'].forEach((name, i) => Wqkv.set(p.w[name].subarray(r * C, (r + 1) * C), r * 3 * C + i * C));
      const bqkv = new Float32Array(3 * C);
      ['bq', 'bk', 'bv'].forEach((name, i) => bqkv.set(p.w[name], i * C));
      return async () => (await s.run({ x: f32(p.x, [p.B, p.T, p.C]), Wqkv: f32(Wqkv, [C, 3 * C]), bqkv: f32(bqkv, [3 * C]),
        Wo: f32(p.w.Wo, [C, C]), bo: f32(p.w.bo, [C]) })).y.data;
    },
    async prepareGemm(a, b, M, K, N) {
      const s = await session('gemm.onnx');
      return async () => (await s.run({ a: f32(a, [M, K]), b: f32(b, [K, N]) })).c.data;
    },
  };
}

async function loadTfjs() {
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(path.join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + path.sep);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);  // one thread, like the others
  await tf.setBackend('wasm');
  await tf.ready();
  if (!tf.env().get('WASM_HAS_SIMD_SUPPORT')) throw new Error('TF.js wasm backend without SIMD');
  return {
    version: packageVersion('@tensorflow/tfjs-backend-wasm'),
    prepare(p) {
      const { B, T, C, H, D } = p;
      return () => {
        const y = tf.tidy(() => {
          const x = tf.tensor2d(p.x, [B * T, C]);
          const w = Object.fromEntries(Object.entries(p.w).map(([k, v]) => [k, tf.tensor(v, k[0] === 'W' ? [C, C] : [C])]));
          const heads = (W, b) => tf.add(tf.matMul(x, W), b).reshape([B, T, H, D]).transpose([0, 2, 1, 3]);
          const q = heads(w.Wq, w.bq), k = heads(w.Wk, w.bk), v = heads(w.Wv, w.bv);
          let scores = tf.mul(tf.matMul(q, k, false, true), 1 / Math.sqrt(D));
          if (p.mask === 'causal') scores = tf.add(scores, tf.tensor2d(p.additiveMask, [T, T]));
          const context = tf.matMul(tf.softmax(scores), v).transpose([0, 2, 1, 3]).reshape([B * T, C]);
          return tf.add(tf.matMul(context, w.Wo), w.bo);
        });
        const out = y.dataSync();
        y.dispose();
        return out;
      };
    },
    prepareGemm(a, b, M, K, N) {
      return () => {
        const c = tf.tidy(() => tf.matMul(tf.tensor2d(a, [M, K]), tf.tensor2d(b, [K, N])));
        const out = c.dataSync();
        c.dispose();
        return out;
      };
    },
  };
}

// --- Measuring ------------------------------------------------------------------------------------------
const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function maxAbsDiff(a, b) {
  if (a.length !== b.length) return Infinity;
  let max = 0;
  for (let i = 0; i < a.length; ++i) {
    const d = Math.abs(a[i] - b[i]);
    if (!(d <= max)) max = Number.isNaN(d) ? Infinity : d;
  }
  return max;
}

function shuffle(xs) {
  for (let i = xs.length - 1; i > 0; --i) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

// Checks agreement with the first implementation, warms up, then times `rounds` interleaved rounds.
async function compare(label, impls, { rounds, warmup = 3, flops }) {
  const reference = await impls[0].fn();
  for (const impl of impls.slice(1)) {
    if (impl.own) continue;
    const diff = maxAbsDiff(await impl.fn(), reference);
    if (!(diff <= TOLERANCE)) throw new Error(`${label}: ${impl.name} differs from ${impls[0].name} by ${diff} (> ${TOLERANCE})`);
    impl.maxDiff = diff;
  }
  for (let i = 0; i < warmup; ++i) for (const impl of impls) await impl.fn();
  const times = new Map(impls.map((impl) => [impl.name, []]));
  for (let r = 0; r < rounds; ++r) {
    for (const impl of shuffle([...impls])) {
      const t0 = performance.now();
      await impl.fn();
      times.get(impl.name).push(performance.now() - t0);
    }
  }
  return impls.map((impl) => {
    const ms = median(times.get(impl.name));
    return { impl: impl.name, medianMs: ms, gflops: flops ? flops / (ms * 1e6) : null, maxAbsDiff: impl.maxDiff ?? 0, runs: rounds };
  });
}

// Peak wasm memory of one run at these sizes: a fresh engine, whose heap only grows.
async function peakMemory(config) {
  const engine = await createEngine();
  const before = engine.memoryBytes;
  engine.run(config);
  return { startBytes: before, peakBytes: engine.memoryBytes };
}

// What a page that embeds the widgets downloads: the .wasm and the widget bundle (the JS API,
// the Emscripten glue, the custom elements and the pre-rendered MathML formulas, built by
// scripts/build.sh into web/dist/mha-lens.js).
async function payload() {
  const gz = (bytes) => gzipSync(bytes, { level: 9 }).length;
  const entry = (file) => {
    const bytes = fs.readFileSync(path.join(root, file));
    return { file, bytes: bytes.length, gzipBytes: gz(bytes) };
  };
  const files = ['web/dist/mha_engine.wasm', 'web/dist/mha-lens.js'].filter((f) => fs.existsSync(path.join(root, f))).map(entry);
  const result = { files, gzipBytes: files.reduce((sum, f) => sum + f.gzipBytes, 0) };
  return result;
}

// --- Main -------------------------------------------------------------------------------------------------
const fmtMs = (ms) => (ms < 1 ? `${(ms * 1000).toFixed(1)} µs` : `${ms.toFixed(2)} ms`);
const mib = (bytes) => `${(bytes / 2 ** 20).toFixed(1)} MiB`;

async function main() {
  // --only training: just the training-step benchmark (scripts/bench/train-bench.js).
  if (only === 'training') {
    const training = await trainingBenchmark({ quick });
    for (const [name, t] of Object.entries(training.targets)) console.log(`  ${t.met ? 'met    ' : 'NOT MET'} ${name}: ${t.ratio.toFixed(2)}×`);
    if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify({ training }, null, 2) + '\n');
    return;
  }
  const ours = await loadOurs();
  const ort = await loadOrt();
  const tfjs = await loadTfjs();
  const results = { machine: { cpu: os.cpus()[0]?.model, cores: os.cpus().length, node: process.version, date: new Date().toISOString(),
    loadAverageAtStart: os.loadavg()[0] },
    peers: { 'onnxruntime-web': ort.version, '@tensorflow/tfjs-backend-wasm': tfjs.version }, sizes: [], targets: {} };
  console.log(`mha-lens bench: ${results.machine.cpu}, ${results.machine.cores} cores (load average ${os.loadavg()[0].toFixed(1)}), Node ${process.version}; ` +
    `onnxruntime-web ${ort.version} (wasm, 1 thread), TF.js wasm ${tfjs.version} (1 thread)\n`);

  const scale = quick ? 0.3 : 1;
  const sizes = [
    { name: 'toy B=2 T=4 C=8 H=2', B: 2, T: 4, C: 8, H: 2, rounds: 3000, toy: true },
    { name: 'B=1 T=64 C=128 H=4', B: 1, T: 64, C: 128, H: 4, rounds: 300 },
    // (Rounds enough that a median moves less than the few percent a shared machine's speed does.)
    { name: 'B=1 T=128 C=768 H=12', B: 1, T: 128, C: 768, H: 12, rounds: 100 },
    { name: 'B=1 T=128 C=768 H=12 causal', B: 1, T: 128, C: 768, H: 12, mask: 'causal', rounds: 60 },
    { name: 'B=1 T=512 C=768 H=12', B: 1, T: 512, C: 768, H: 12, rounds: 25 },
    // Compute only, tiled beside naive and both ONNX Runtime graphs (a run with every
    // snapshot would pass the memory cap here, and TF.js is left out to keep the bench short).
    { name: 'B=1 T=2048 C=768 H=12', B: 1, T: 2048, C: 768, H: 12, rounds: 7, computeOnly: true },
    { name: 'B=1 T=2048 C=768 H=12 causal', B: 1, T: 2048, C: 768, H: 12, mask: 'causal', rounds: 7, computeOnly: true },
  ];

  for (const size of sizes.filter((s) => !only || s.name.includes(only))) {
    const p = problem(size);
    // Tiled and ONNX Runtime's fused attention where its graph is there (H=12, D=64).
    const attentionShape = p.H === 12 && p.D === 64;
    const impls = size.computeOnly ? [
      { name: 'ours (compute only)', fn: () => ours.naiveLarge(p) },
      { name: 'ours tiled (compute only)', fn: () => ours.tiled(p) },
      { name: 'onnxruntime-web', fn: await ort.prepare(p) },
      { name: 'onnxruntime-web (fused Attention)', fn: await ort.prepareFused(p) },
    ] : [
      { name: 'ours (compute only)', fn: () => ours.forward(p, false) },
      { name: 'ours (all snapshots)', fn: () => ours.forward(p, true) },
      { name: 'ours (all snapshots, released)', fn: () => ours.forwardReleasing(p) },
      // What the page runs as a slider moves: the seeded config, every snapshot (not compared:
      // its inputs are the engine's own).
      ...(size.toy ? [{ name: 'ours (all snapshots, seeded)', fn: () => ours.seeded(p), own: true }] : []),
      ...(attentionShape ? [{ name: 'ours tiled (compute only)', fn: () => ours.tiled(p) }] : []),
      { name: 'onnxruntime-web', fn: await ort.prepare(p) },
      ...(attentionShape ? [{ name: 'onnxruntime-web (fused Attention)', fn: await ort.prepareFused(p) }] : []),
      { name: 'tfjs-wasm', fn: tfjs.prepare(p) },
    ];
    const rows = await compare(size.name, impls, { rounds: Math.max(5, Math.round(size.rounds * scale)), flops: forwardFlops(p) });
    const config = { B: p.B, T: p.T, C: p.C, H: p.H, mask: p.mask };
    const tiledPeak = attentionShape ? { tiled: await peakMemory({ ...config, snapshots: false, ...TILED }) } : {};
    const memory = size.computeOnly
      ? { computeOnly: await peakMemory({ ...config, snapshots: false, memoryCap: 2 ** 31 }), ...tiledPeak }
      : { computeOnly: await peakMemory({ ...config, snapshots: false }), allSnapshots: await peakMemory(config), ...tiledPeak };
    results.sizes.push({ size: size.name, config, flops: forwardFlops(p), rows, memory });
    printTable(size.name, rows, memory);
  }

  if (only) return;
  // GEMM probe: the shape of a projection at T=512, C=768.
  {
    const [M, K, N] = [512, 768, 768];
    const a = noise(M * K, 5, 1), b = noise(K * N, 6, 1 / Math.sqrt(K));
    const impls = [
      { name: 'ours', fn: () => ours.gemm(a, b, M, K, N) },
      { name: 'onnxruntime-web', fn: await ort.prepareGemm(a, b, M, K, N) },
      { name: 'tfjs-wasm', fn: tfjs.prepareGemm(a, b, M, K, N) },
    ];
    const rows = await compare('GEMM', impls, { rounds: quick ? 10 : 40, flops: 2 * M * K * N });
    results.sizes.push({ size: 'GEMM 512×768 @ 768×768', rows });
    printTable('GEMM 512×768 @ 768×768', rows);
  }

  if (!skipLong) results.long = await longRun();

  const big = { B: 1, T: 4096, C: 768, H: 12 };
  try {
    const engine = await createEngine();
    const t0 = performance.now();
    const run = engine.run({ ...big, snapshots: 'lazy' });
    const weights = run.step('weights', { batch: 0, head: 5 });
    const ms = performance.now() - t0;
    const memory = engine.memoryBytes;
    results.large = { config: big, ms, peakBytes: memory, sliceShape: weights.shape };
    console.log(`B=1 T=4096 C=768 H=12, lazy snapshots + one head's weights: ${fmtMs(ms)}, peak wasm memory ${mib(memory)}\n`);
  } catch (error) {
    console.log(`B=1 T=4096 C=768 H=12 failed: ${error.message}\n`);
  }

  results.payload = await payload();
  const kb = (bytes) => `${(bytes / 1000).toFixed(1)} KB`;
  console.log(`payload (gzip -9): ${kb(results.payload.gzipBytes)}`);
  for (const f of results.payload.files) console.log(`  ${f.file.padEnd(28)} ${kb(f.bytes).padStart(10)}  gzip ${kb(f.gzipBytes).padStart(9)}`);

  // The training-step benchmark: ours vs PyTorch (one thread) vs TF.js, interleaved.
  console.log('');
  results.training = await trainingBenchmark({ quick });
  console.log('\nlanguage model: generation and opening');
  results.languageModel = await languageModelBenchmark({ quick });
  results.targets = targets(results);
  for (const [name, t] of Object.entries({ ...results.training.targets, ...results.languageModel.targets })) results.targets[name] = { ...t, text: `${t.ratio.toFixed(2)}×` };
  console.log('\ntargets');
  for (const [name, t] of Object.entries(results.targets)) console.log(`  ${t.met ? 'met    ' : 'NOT MET'} ${name}: ${t.text}`);

  if (jsonPath) {
    fs.writeFileSync(jsonPath, JSON.stringify(results, null, 2) + '\n');
    console.log(`\nwrote ${jsonPath}`);
  }
}

// B=1 T=16384 C=768 H=12 causal. The naive pass is refused with what it needs (its
// snapshots, or one head's 1 GiB score matrix without them); the tiled pass without snapshots
// runs in a fresh engine, the memory cap raised from the 256 MiB default to 512 MiB (engine.memory
// states what it needs). Time and peak wasm memory of that one run.
async function longRun() {
  const config = { B: 1, T: 16384, C: 768, H: 12, mask: 'causal' };
  const engine = await createEngine();
  const refusals = {};
  for (const [name, extra] of [['naive', {}], ['naive, compute only', { snapshots: false }], ['tiled, compute only, default cap', { snapshots: false, ...TILED }]]) {
    try {
      engine.run({ ...config, ...extra });
      refusals[name] = 'accepted';
    } catch (error) {
      refusals[name] = error.message;
    }
  }
  const stated = engine.memory({ ...config, ...TILED });
  const fresh = await createEngine();
  const startBytes = fresh.memoryBytes;
  const t0 = performance.now();
  const run = fresh.run({ ...config, ...TILED, snapshots: false, memoryCap: 512 * 2 ** 20 });
  const ms = performance.now() - t0;
  const result = { config: { ...config, ...TILED, snapshots: false, memoryCap: 512 * 2 ** 20 }, ms, startBytes, peakBytes: fresh.memoryBytes,
    statedBytes: stated.tiled.total, naiveComputeOnlyBytes: stated.naive.total, scoreMatrixBytes: stated.scoreMatrixBytes,
    tiles: run.summary.tiles, outputFinite: run.output.every(Number.isFinite), refusals };
  console.log(`B=1 T=16384 C=768 H=12 causal, tiled ${TILED.blockQ}×${TILED.blockK} without snapshots (memoryCap 512 MiB): ${(ms / 1000).toFixed(1)} s, ` +
    `peak wasm memory ${mib(result.peakBytes)} (engine.memory states ${mib(result.statedBytes)}; the whole [B,H,Tq,Tk] score matrix would be ` +
    `${(result.scoreMatrixBytes / 2 ** 30).toFixed(0)} GiB); ${run.summary.tiles.skipped} of ${run.summary.tiles.total} tiles skipped`);
  for (const [name, text] of Object.entries(refusals)) console.log(`  ${name}: ${text}`);
  console.log();
  return result;
}

function printTable(name, rows, memory) {
  const base = rows[0].medianMs;
  console.log(name);
  for (const r of rows) {
    console.log(`  ${r.impl.padEnd(30)} ${fmtMs(r.medianMs).padStart(10)}  ${r.gflops === null ? '' : `${r.gflops.toFixed(1).padStart(6)} GFLOP/s`}` +
      `  ×${(r.medianMs / base).toFixed(2)} of ${rows[0].impl}  (max |diff| ${r.maxAbsDiff.toExponential(1)}, ${r.runs} runs)`);
  }
  if (memory) {
    console.log(`  peak wasm memory: compute only ${mib(memory.computeOnly.peakBytes)}` +
      (memory.allSnapshots ? `, all snapshots ${mib(memory.allSnapshots.peakBytes)}` : '') + (memory.tiled ? `, tiled compute only ${mib(memory.tiled.peakBytes)}` : ''));
  }
  console.log();
}

function targets(results) {
  const row = (size, impl) => results.sizes.find((s) => s.size === size).rows.find((r) => r.impl === impl).medianMs;
  const t = {};
  const gemm = 'GEMM 512×768 @ 768×768';
  const g = row(gemm, 'ours') / row(gemm, 'tfjs-wasm');
  t['1 GEMM ≤ 1.0× TF.js (XNNPACK)'] = { ratio: g, met: g <= 1, text: `${g.toFixed(2)}×` };
  for (const size of ['B=1 T=128 C=768 H=12', 'B=1 T=512 C=768 H=12']) {
    const r = row(size, 'ours (compute only)') / row(size, 'onnxruntime-web');
    t[`2 compute only ≤ 0.8× ONNX Runtime Web, ${size}`] = { ratio: r, met: r <= 0.8, text: `${r.toFixed(2)}×` };
  }
  // Met by the runs a page makes as a slider moves (each releases the one before); runs whose
  // arrays all go to fresh memory are reported beside them.
  for (const size of ['B=1 T=128 C=768 H=12', 'B=1 T=512 C=768 H=12']) {
    const r = row(size, 'ours (all snapshots, released)') / row(size, 'ours (compute only)');
    const fresh = row(size, 'ours (all snapshots)') / row(size, 'ours (compute only)');
    t[`3 all snapshots ≤ 1.15× compute only, ${size}`] = { ratio: r, freshRatio: fresh, met: r <= 1.15,
      text: `${r.toFixed(2)}× releasing the previous run (${fresh.toFixed(2)}× into fresh memory)` };
  }
  const toy = row('toy B=2 T=4 C=8 H=2', 'ours (all snapshots, seeded)') * 1000;
  const toyExplicit = row('toy B=2 T=4 C=8 H=2', 'ours (all snapshots)') * 1000;
  t['4 toy run with all snapshots ≤ 50 µs'] = { us: toy, usExplicitInputs: toyExplicit, met: toy <= 50,
    text: `${toy.toFixed(1)} µs seeded as the page runs it (${toyExplicit.toFixed(1)} µs with explicit x and weights)` };
  const p = results.payload;
  t['6 payload ≤ 150 KB gzipped'] = { bytes: p.gzipBytes, met: p.gzipBytes <= 150_000,
    text: `${(p.gzipBytes / 1000).toFixed(1)} KB` };
  if (results.large) t['T=4096 within the default cap'] = { met: results.large.peakBytes <= 4 * 2 ** 30, text: `peak ${mib(results.large.peakBytes)}` };
  // Tiled compute only ≤ 0.8× the best ONNX Runtime Web graph at T=512 and T=2048, and
  // at T=128 no slower than the naive pass by more than 10%.
  for (const size of ['B=1 T=512 C=768 H=12', 'B=1 T=2048 C=768 H=12']) {
    const best = Math.min(row(size, 'onnxruntime-web'), row(size, 'onnxruntime-web (fused Attention)'));
    const r = row(size, 'ours tiled (compute only)') / best;
    t[`15a tiled compute only ≤ 0.8× best ONNX Runtime Web graph, ${size}`] = { ratio: r, met: r <= 0.8, text: `${r.toFixed(2)}×` };
  }
  {
    const size = 'B=1 T=128 C=768 H=12';
    const r = row(size, 'ours tiled (compute only)') / row(size, 'ours (compute only)');
    t[`15b tiled ≤ 1.10× naive, compute only, ${size}`] = { ratio: r, met: r <= 1.1, text: `${r.toFixed(2)}×` };
  }
  if (results.long) {
    const l = results.long;
    t['15c T=16384 causal tiled compute only completes within the memory it states'] = { met: l.outputFinite && l.peakBytes <= l.statedBytes + 64 * 2 ** 20,
      text: `${(l.ms / 1000).toFixed(1)} s, peak ${mib(l.peakBytes)} against ${mib(l.statedBytes)} stated (+64 MiB allowed for the heap's start and the GEMM's buffers)` };
  }
  return t;
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
