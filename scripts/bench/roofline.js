#!/usr/bin/env node
// node scripts/bench/roofline.js [--rounds 40] [--json out.json]
//
// The single-precision ceiling of one core for the GEMM's instruction mix (f32x4 multiplies and
// adds, no FMA), measured by register-only loops (scripts/bench/roofline/probe.cpp), as
// WebAssembly SIMD128 run by this Node's V8 and natively (SSE through GCC vector extensions), and
// the core's clock from a chain of dependent integer adds (one cycle each). Every figure is the
// best of the rounds: on a shared machine the best round is the one least disturbed.
//
// The probes:
//   mul_add_chains_n   n chains of acc = acc·1 + 0: the ceiling (one multiply per add, as in GEMM)
//   mul_add_6x6        6 multiply chains and 6 add chains, each its own op (latency-bound at 6)
//   mul_only_8, add_only_8   each kind alone: the ports of each
//   add_latency_1, mul_latency_1   one chain: flops per cycle = 4 / latency in cycles
//   kernel_l1_RxC      the GEMM micro-kernel (R×C register tile) on L1-resident packed panels
import fs from 'node:fs';
import path from 'node:path';
import { pathToFileURL } from 'node:url';

import { buildProbe, here, loadWasm, runNative, seconds } from './roofline/build.js';

// About 2 ms a probe: a short window is more often one the scheduler left alone on a shared machine.
const ITERATIONS = 1 << 21;  // a whole number of kernel_l1's 256-deep passes

export function buildRoofline() {
  return buildProbe('roofline', [{ source: path.join(here, 'probe.cpp') }]);
}

/** Best GFLOP/s of each wasm probe over `rounds` rounds, after a warm-up that lets V8 tier up. */
export function wasmProbes(exports, rounds, only = () => true) {
  const names = Object.keys(exports).filter((name) => exports[`flops_${name}`] && only(name));
  // Liftoff (V8's baseline tier) runs a function until it has used its budget; a long loop in one
  // call would be timed in Liftoff's code. Short calls first, until TurboFan's code is in place.
  for (const name of names) for (let i = 0; i < 3000; ++i) exports[name](2048, 1, 0);
  const best = {};
  for (let round = 0; round < rounds; ++round) {
    for (const name of names) {
      const s = seconds(() => exports[name](ITERATIONS, 1, 0));
      best[name] = Math.max(best[name] ?? 0, (exports[`flops_${name}`]() * ITERATIONS) / s / 1e9);
    }
  }
  return best;
}

/** Best GFLOP/s of each native probe and the best clock (Hz) over `rounds` rounds. */
export function nativeProbes(file, rounds) {
  const best = {};
  let hz = 0;
  for (const line of runNative(file, [rounds])) {
    if (line.probe === 'clock') hz = Math.max(hz, line.hz);
    else best[line.probe] = Math.max(best[line.probe] ?? 0, line.flops / line.seconds / 1e9);
  }
  return { best, hz };
}

export const ceilingOf = (best) => Math.max(...Object.entries(best).filter(([name]) => name.startsWith('mul_add_chains_')).map(([, g]) => g));

async function main() {
  const args = process.argv.slice(2);
  const option = (name, fallback) => (args.includes(name) ? args[args.indexOf(name) + 1] : fallback);
  const rounds = Number(option('--rounds', 40));
  const jsonPath = option('--json', null);

  const { native, wasm } = buildRoofline();
  const wasmBest = wasmProbes(await loadWasm(wasm), rounds);
  const { best: nativeBest, hz } = nativeProbes(native, rounds);
  const ghz = hz / 1e9;

  console.log(`clock (dependent integer adds, best of ${rounds}): ${ghz.toFixed(2)} GHz; node ${process.version}`);
  console.log(`${'probe'.padEnd(20)} ${'wasm GFLOP/s'.padStart(13)} ${'flop/cycle'.padStart(10)} ${'native GFLOP/s'.padStart(15)} ${'flop/cycle'.padStart(10)}`);
  for (const name of Object.keys(wasmBest)) {
    const w = wasmBest[name], n = nativeBest[name];
    console.log(`${name.padEnd(20)} ${w.toFixed(1).padStart(13)} ${(w / ghz).toFixed(2).padStart(10)} ${n.toFixed(1).padStart(15)} ${(n / ghz).toFixed(2).padStart(10)}`);
  }
  const ceiling = { wasm: ceilingOf(wasmBest), native: ceilingOf(nativeBest) };
  console.log(`ceiling (best mul_add_chains): wasm ${ceiling.wasm.toFixed(1)} GFLOP/s (${(ceiling.wasm / ghz).toFixed(1)} flop/cycle), ` +
              `native ${ceiling.native.toFixed(1)} GFLOP/s (${(ceiling.native / ghz).toFixed(1)} flop/cycle)`);
  if (jsonPath) fs.writeFileSync(jsonPath, JSON.stringify({ ghz, ceiling, wasm: wasmBest, native: nativeBest }, null, 2));
}

if (import.meta.url === pathToFileURL(process.argv[1]).href) await main();
