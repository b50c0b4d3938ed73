// The language model's benchmark (npm run bench): generation with the KV cache in characters per
// second, against recomputing the whole window for every character (lm.next on the text so far,
// the full forward pass), at 128 characters; and the time to open each shipped model (the
// checkpoint and the held-out text, with the files already read: the main-thread work a page
// pays). Medians of interleaved rounds; wasm in Node, one thread.
//   node scripts/bench/lm-bench.js [--quick]
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { createEngine } from '../../web/src/engine/engine.js';

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

export async function languageModelBenchmark({ quick = false, log = console.log } = {}) {
  const engine = await createEngine({ trainer: true });
  const rounds = quick ? 3 : 7;
  const results = { rounds, corpora: {} };
  for (const [corpus, prompt] of [['moby-dick', 'Call me Ishmael.'], ['tang-poems', '春眠不觉晓，']]) {
    const opened = [];
    for (let r = 0; r < rounds; r++) {
      const t0 = performance.now();
      engine.languageModel({ corpus }).dispose();
      opened.push(performance.now() - t0);
    }
    const lm = engine.languageModel({ corpus });
    const total = 128;
    const length = total - Array.from(prompt).length;
    const cached = [];
    const recompute = [];
    let text = '';
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now();
      const stream = lm.stream(prompt, { temperature: 0.8, seed: r });
      let generated = '';
      while (Array.from(generated).length < length) generated += stream.next(Math.min(16, length - Array.from(generated).length)).text;
      cached.push(performance.now() - t0);
      text = prompt + generated;
      // The same characters, each from a full forward pass over the text before it.
      const chars = Array.from(text);
      t0 = performance.now();
      for (let n = Array.from(prompt).length; n < chars.length; n++) lm.next(chars.slice(0, n).join(''), { topK: 1 });
      recompute.push(performance.now() - t0);
    }
    const row = {
      openMs: median(opened),
      cachedCharsPerSecond: length / (median(cached) / 1000),
      recomputeCharsPerSecond: length / (median(recompute) / 1000),
      speedUp: median(recompute) / median(cached),
      characters: total,
      cacheBytesAt128: lm.stream(text.slice(0, -1)).cacheBytes,
    };
    results.corpora[corpus] = row;
    log(`${corpus}: open ${row.openMs.toFixed(1)} ms; generation to ${total} characters: KV cache ${row.cachedCharsPerSecond.toFixed(0)} chars/s, `
      + `recompute ${row.recomputeCharsPerSecond.toFixed(0)} chars/s (${row.speedUp.toFixed(1)}× faster with the cache; cache ${(row.cacheBytesAt128 / 1024).toFixed(0)} KiB)`);
    lm.dispose();
  }
  const en = results.corpora['moby-dick'];
  results.targets = {
    'generation ≥ 200 characters/s with the cache (English)': { ratio: en.cachedCharsPerSecond / 200, met: en.cachedCharsPerSecond >= 200 },
    'opening a trained model ≤ 100 ms (English)': { ratio: en.openMs / 100, met: en.openMs <= 100 },
  };
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await languageModelBenchmark({ quick: process.argv.includes('--quick') });
  for (const [name, t] of Object.entries(results.targets)) console.log(`${t.met ? 'met    ' : 'NOT MET'} ${name}: ${t.ratio.toFixed(2)}×`);
}
