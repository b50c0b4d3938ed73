// Builds and loads the native and WebAssembly probes of roofline.js and gemm.js: small binaries
// outside the CMake build, with the engine's own floating-point flags (-O3, -ffp-contract=off,
// -msimd128 for wasm), under build/bench/.
import fs from 'node:fs';
import path from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

export const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..');
export const outDir = path.join(root, 'build/bench');
export const here = path.dirname(fileURLToPath(import.meta.url));

const FLAGS = ['-std=c++17', '-O3', '-DNDEBUG', '-ffp-contract=off', '-Wall', '-Wextra'];
// Debian's em++ needs Debian's acorn, outside node's default search path (TOOLCHAIN.md §1).
const emEnv = { ...process.env, NODE_PATH: ['/usr/share/nodejs', process.env.NODE_PATH].filter(Boolean).join(':') };

function run(tool, args) {
  try {
    execFileSync(tool, args, { env: emEnv, stdio: ['ignore', 'inherit', 'inherit'] });
  } catch (error) {
    throw new Error(`${tool} failed (${error.message.split('\n')[0]}); the probes need g++ and em++ (scripts/setup.sh)`);
  }
}

/**
 * Compiles `units` (each {source, defines = [], includes = []}) into one native executable and one
 * standalone .wasm module. Returns their paths.
 */
export function buildProbe(name, units) {
  fs.mkdirSync(outDir, { recursive: true });
  const objects = { native: [], wasm: [] };
  units.forEach(({ source, defines = [], includes = [] }, i) => {
    const unitFlags = [...FLAGS, ...defines.map((d) => `-D${d}`), ...includes.map((dir) => `-I${dir}`)];
    const base = path.join(outDir, `${name}.${i}`);
    run('g++', [...unitFlags, '-c', source, '-o', `${base}.o`]);
    run('em++', [...unitFlags, '-msimd128', '-c', source, '-o', `${base}.wasm.o`]);
    objects.native.push(`${base}.o`);
    objects.wasm.push(`${base}.wasm.o`);
  });
  const native = path.join(outDir, name);
  const wasm = path.join(outDir, `${name}.wasm`);
  run('g++', [...objects.native, '-o', native]);
  run('em++', [...objects.wasm, '-O3', '--no-entry', '-sSTANDALONE_WASM', '-sALLOW_MEMORY_GROWTH=1', '-o', wasm]);
  return { native, wasm };
}

/** Instantiates a standalone probe module (no WASI: the probes print nothing and never exit). */
export async function loadWasm(file) {
  const imports = {
    env: { emscripten_notify_memory_growth() {} },
    wasi_snapshot_preview1: { proc_exit(code) { throw new Error(`wasm probe exited with ${code}`); } },
  };
  const { instance } = await WebAssembly.instantiate(fs.readFileSync(file), imports);
  instance.exports._initialize?.();
  return instance.exports;
}

/** Runs the native probe, returning its JSON lines as objects. */
export function runNative(file, args) {
  const out = execFileSync(file, args.map(String), { encoding: 'utf8', maxBuffer: 1 << 26 });
  return out.trim().split('\n').map((line) => JSON.parse(line));
}

export const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];

/** Seconds for fn(), timed with the monotonic clock. */
export function seconds(fn) {
  const start = performance.now();
  fn();
  return (performance.now() - start) / 1000;
}

/**
 * One timed call: wall-clock seconds, and this process's CPU seconds, which leave out the time the
 * scheduler gave other processes (but not what they do to the caches or a shared core).
 */
export function timeCall(fn) {
  const cpuStart = process.cpuUsage();
  const wall = seconds(fn);
  const cpu = process.cpuUsage(cpuStart);
  return { wall, cpu: (cpu.user + cpu.system) / 1e6 };
}
