#!/usr/bin/env node
// node scripts/bench/gemm.js [<other checkout>] [--rounds 40] [--native] [--no-engine]
//
// This checkout's GEMM kernel beside another checkout's (any checkout of this project with
// cpp/src/matmul.cpp; its built web/dist/ too for the engine.matmul row), in one process:
//   1. the kernels alone, as WebAssembly: both matmul.cpp files compiled into one module (the
//      other's with -Dmha=mha_base, scripts/bench/roofline/gemm_probe.cpp), run on the same
//      buffers in rotating order with the roofline's ceiling probe, so that every round measures
//      the GEMM and the ceiling under the same load. Outputs compared bit for bit with each other
//      and with gemm_reference, at the timed sizes and at awkward ones;
//   2. with --native, the same natively (one binary, the same alternation), and its outputs'
//      bits checked equal to the wasm build's (a hash of every c at the timed sizes);
//   3. engine.matmul of both checkouts' built engines (what bench.js's GEMM row times: the copies
//      into and out of the wasm heap included).
// Figures, in GFLOP/s (2·M·K·N flops): the median and the best wall-clock time of the interleaved
// rounds; the ratio other ÷ this of those times and of the median CPU times (> 1: this is faster);
// this checkout's share of the ceiling, best over best (wall clock), and median over median in CPU
// time (the wasm ceiling probe runs in the same rounds). A shared machine's load takes whole
// milliseconds from a call now and then: the best and the CPU times see least of it.
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { buildProbe, here, loadWasm, median, root, runNative, timeCall } from './roofline/build.js';
import { buildRoofline, ceilingOf, nativeProbes } from './roofline.js';
import { noise } from './noise.js';

const args = process.argv.slice(2);
const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
const positional = args.filter((a, i) => !a.startsWith('--') && args[i - 1] !== '--rounds');
if (!positional[0]) {
  console.error('usage: node scripts/bench/gemm.js <other checkout> [--rounds 40] [--native] [--no-engine]');
  process.exit(2);
}
const otherRoot = path.resolve(positional[0]);
const rounds = Number(option('--rounds', 40));
if (!fs.existsSync(path.join(otherRoot, 'cpp/src/matmul.cpp'))) {
  console.error(`${otherRoot}/cpp/src/matmul.cpp not found: pass a checkout of mha-lens to compare with`);
  process.exit(2);
}

// The projection at T=512, C=768 (the bench's GEMM row), a shorter one, and one head's Q·Kᵀ
// (b read transposed) and A·V at T=512, D=64; then awkward sizes, checked bit for bit only.
const timed = [
  { M: 512, K: 768, N: 768, bT: 0 },
  { M: 128, K: 768, N: 768, bT: 0 },
  { M: 512, K: 64, N: 512, bT: 1 },
  { M: 512, K: 512, N: 64, bT: 0 },
];
const checkedOnly = [
  { M: 509, K: 771, N: 1037, bT: 0 },
  { M: 67, K: 257, N: 1031, bT: 1 },
  { M: 3, K: 1, N: 13, bT: 0 },
];
const label = ({ M, K, N, bT }) => `${M}×${K} @ ${K}×${N}${bT ? ' (b transposed)' : ''}`;
const gflops = ({ M, K, N }, s) => (2 * M * K * N) / s / 1e9;
const fmt = (x, digits = 1) => x.toFixed(digits);

// FNV-1a over the bits of c, as gemm_probe.cpp's native main computes it.
function bitsHash(bits) {
  let hash = 2166136261;
  for (let i = 0; i < bits.length; ++i) hash = Math.imul(hash ^ bits[i], 16777619) >>> 0;
  return hash;
}

const { wasm: gemmWasm, native: gemmNative } = buildProbe('gemm', [
  { source: path.join(here, 'gemm_probe.cpp'), includes: [path.join(root, 'cpp/include')] },
  { source: path.join(root, 'cpp/src/matmul.cpp'), includes: [path.join(root, 'cpp/include')] },
  { source: path.join(otherRoot, 'cpp/src/matmul.cpp'), includes: [path.join(otherRoot, 'cpp/include')], defines: ['mha=mha_base'] },
]);
const roofline = buildRoofline();
console.log(`this: ${root}  other: ${otherRoot}  rounds: ${rounds}  node ${process.version}`);

// --- 1. wasm kernels, with the ceiling probe in every round -----------------------------------------
const g = await loadWasm(gemmWasm);
const probe = await loadWasm(roofline.wasm);
const CEILING_PROBE = 'mul_add_chains_12', CEILING_ITERATIONS = 1 << 21;
for (let i = 0; i < 3000; ++i) probe[CEILING_PROBE](2048, 1, 0);  // V8 tiers it up (roofline.js)
const CEILING_FLOPS = probe[`flops_${CEILING_PROBE}`]() * CEILING_ITERATIONS;
const ceilingRound = () => timeCall(() => probe[CEILING_PROBE](CEILING_ITERATIONS, 1, 0));

function wasmCase({ M, K, N, bT }) {
  const heap = () => new Float32Array(g.memory.buffer);  // fresh each time: memory growth detaches views
  const alloc = (values) => { const p = g.floats(values.length); heap().set(values, p / 4); return p; };
  const a = alloc(noise(M * K, 1, 1)), b = alloc(noise(K * N, 2, 1)), bias = alloc(noise(N, 3, 1));
  const c = [g.floats(M * N), g.floats(M * N), g.floats(M * N)];  // this, other, gemm_reference
  const call = (which) => g.run(which, M, K, N, a, b, bT, c[which], bias);
  [0, 1, 2].forEach(call);
  const bits = (p) => new Uint32Array(g.memory.buffer, p, M * N);
  const firstDifference = (x, y) => { const bx = bits(x), by = bits(y); return bx.findIndex((v, i) => v !== by[i]); };
  return { call, hash: bitsHash(bits(c[0])), firstDiff: { other: firstDifference(c[0], c[1]), reference: firstDifference(c[0], c[2]) } };
}

const wasmRows = [];
const wasmHashes = new Map();
let allIdentical = true;
for (const size of [...timed, ...checkedOnly]) {
  const { call, hash, firstDiff } = wasmCase(size);
  wasmHashes.set(label(size), hash);
  const identical = firstDiff.other < 0 && firstDiff.reference < 0;
  allIdentical &&= identical;
  if (!identical) console.log(`${label(size)}: outputs DIFFER, first index vs other ${firstDiff.other}, vs gemm_reference ${firstDiff.reference}`);
  if (!timed.includes(size)) continue;
  for (let i = 0; i < 3; ++i) { call(0); call(1); }  // V8 tiers both up
  const times = { this: [], other: [] }, ceiling = [];
  const steps = [() => times.this.push(timeCall(() => call(0))), () => times.other.push(timeCall(() => call(1))), () => ceiling.push(ceilingRound())];
  for (let round = 0; round < rounds; ++round) for (let i = 0; i < 3; ++i) steps[(round + i) % 3]();
  wasmRows.push({ size, identical, times, ceiling });
}
console.log(`wasm: every output bit-identical to the other checkout's and to gemm_reference ` +
            `(${timed.length + checkedOnly.length} sizes, ${checkedOnly.map(label).join(', ')} among them): ${allIdentical}`);

// times.this, times.other: [{wall, cpu}] seconds per call; ceiling: the same for the ceiling probe
// (or ceilingBest, GFLOP/s, measured apart).
function printRows(title, rows) {
  console.log(`\n${title}`);
  console.log(`${'size'.padEnd(31)} ${'this med/best'.padStart(14)} ${'other med/best'.padStart(15)} ${'ratio med'.padStart(9)} ${'ratio best'.padStart(10)} ${'ratio cpu'.padStart(9)}` +
              `  ${'ceiling best'.padStart(12)}  ${'share best'.padStart(10)}  ${'share cpu'.padStart(9)}`);
  for (const { size, times, ceiling, ceilingBest } of rows) {
    const stats = (samples) => ({
      med: median(samples.map((s) => s.wall)), best: Math.min(...samples.map((s) => s.wall)), cpu: median(samples.map((s) => s.cpu)),
    });
    const t = stats(times.this), o = stats(times.other);
    const top = ceilingBest ?? CEILING_FLOPS / 1e9 / Math.min(...ceiling.map((s) => s.wall));
    const shareCpu = ceiling ? gflops(size, t.cpu) / (CEILING_FLOPS / 1e9 / median(ceiling.map((s) => s.cpu))) : null;
    console.log(`${label(size).padEnd(31)} ${`${fmt(gflops(size, t.med))}/${fmt(gflops(size, t.best))}`.padStart(14)} ` +
                `${`${fmt(gflops(size, o.med))}/${fmt(gflops(size, o.best))}`.padStart(15)} ${fmt(o.med / t.med, 2).padStart(8)}× ${fmt(o.best / t.best, 2).padStart(9)}× ${fmt(o.cpu / t.cpu, 2).padStart(8)}×` +
                `  ${fmt(top).padStart(12)}  ${`${fmt((100 * gflops(size, t.best)) / top, 0)}%`.padStart(10)}  ${shareCpu === null ? '–'.padStart(9) : `${fmt(100 * shareCpu, 0)}%`.padStart(9)}`);
  }
}
printRows('wasm, the kernels alone (GFLOP/s)', wasmRows);

// --- 2. native kernels ---------------------------------------------------------------------------
if (args.includes('--native')) {
  const ceilingBest = ceilingOf(nativeProbes(roofline.native, 20).best);
  let sameBits = true;
  const nativeRows = [...timed, ...checkedOnly].map((size) => {
    const [head, ...lines] = runNative(gemmNative, [size.M, size.K, size.N, timed.includes(size) ? rounds : 0, size.bT]);
    sameBits &&= head.identical && head.hash === wasmHashes.get(label(size));
    return { size, times: { this: lines.map((l) => l.this), other: lines.map((l) => l.base) }, ceilingBest };
  });
  console.log(`\nnative: every output bit-identical to the other checkout's and to the wasm build's: ${sameBits}`);
  printRows('native, the kernels alone (GFLOP/s; ceiling: roofline.js native, best of 20 rounds before)', nativeRows.filter((r) => timed.includes(r.size)));
  allIdentical &&= sameBits;
}

// --- 3. engine.matmul ------------------------------------------------------------------------------
if (!args.includes('--no-engine')) {
  const api = (checkout) => pathToFileURL(path.join(checkout, 'web/src/engine/engine.js')).href;
  const engines = {
    this: await (await import(api(root))).createEngine(),
    other: await (await import(api(otherRoot))).createEngine(),
  };
  const size = timed[0];
  const a = noise(size.M * size.K, 1, 1), b = noise(size.K * size.N, 2, 1);
  const outputs = Object.fromEntries(Object.entries(engines).map(([key, engine]) => [key, engine.matmul(a, b, size)]));
  const ours = new Uint32Array(outputs.this.buffer), theirs = new Uint32Array(outputs.other.buffer);
  const identical = ours.every((v, i) => v === theirs[i]);
  allIdentical &&= identical;
  console.log(`\nengine.matmul: this and the other engine's outputs bit-identical: ${identical}`);
  const times = { this: [], other: [] }, ceiling = [];
  const steps = [() => times.this.push(timeCall(() => engines.this.matmul(a, b, size))),
                 () => times.other.push(timeCall(() => engines.other.matmul(a, b, size))), () => ceiling.push(ceilingRound())];
  for (let round = 0; round < rounds; ++round) for (let i = 0; i < 3; ++i) steps[(round + i) % 3]();
  printRows('engine.matmul (copies into and out of the wasm heap included)', [{ size, times, ceiling }]);
}
if (!allIdentical) process.exitCode = 1;
