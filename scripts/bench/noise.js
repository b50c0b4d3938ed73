// The benchmarks' inputs: mulberry32, as the engine's seeded inputs use, so that every run of every
// benchmark sees the same numbers. `count` values uniform in [-bound, bound).
export function noise(count, seed, bound) {
  const values = new Float32Array(count);
  let state = seed >>> 0;
  for (let i = 0; i < count; ++i) {
    state = (state + 0x6d2b79f5) >>> 0;
    let z = state;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    z = (z ^ (z >>> 14)) >>> 0;
    values[i] = ((z >>> 8) / 8388608 - 1) * bound;
  }
  return values;
}
