// The character language model of the JS API (web/src/engine/language-model.js): the shipped
// checkpoints are what scripts/lm/make_checkpoints.js's recipes make (their first steps trained
// again here in wasm, against the digest the native run recorded), they reach the README's
// figures on held-out text, greedy generation is next()'s argmax, the KV-cache stream is one
// stream however it is chunked, a layer's walkthrough Run is the model's block, text outside the
// vocabulary is shown, and every bad input is named.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { DIGEST_STEP, RECIPES } from '../../scripts/lm/make_checkpoints.js';
import MANIFEST from '../../web/checkpoints/language-models.json' with { type: 'json' };
import { fnv1a } from '../../scripts/make_checkpoints.js';
import { englishShare } from '../../scripts/lm/measure.js';

let engine;
const models = {};
before(async () => {
  engine = await createEngine({ trainer: true });
  for (const corpus of Object.keys(RECIPES)) models[corpus] = engine.languageModel({ corpus, trained: true });
});

const lastWord = (bytes) => new DataView(bytes.buffer, bytes.byteOffset + bytes.byteLength - 4).getUint32(0, true).toString(16).padStart(8, '0');

test('each shipped checkpoint is its recipe: its first steps trained again in wasm give the recorded digest', () => {
  assert.deepEqual(Object.keys(MANIFEST.models).sort(), Object.keys(RECIPES).sort());
  for (const [corpus, entry] of Object.entries(MANIFEST.models)) {
    assert.deepEqual(entry.options, RECIPES[corpus].options, `${corpus}: the recipe recorded is the script's`);
    assert.equal(entry.digest.step, DIGEST_STEP);
    const fresh = engine.languageModel({ corpus, trained: false, ...entry.options });
    fresh.train(entry.digest.step);
    assert.equal(lastWord(fresh.save()), entry.digest.checksum, `${corpus}: the trainer after ${entry.digest.step} steps`);
    fresh.dispose();
    const bytes = new Uint8Array(readFileSync(new URL(`../../web/checkpoints/${entry.file}`, import.meta.url)));
    assert.equal(bytes.length, entry.bytes);
    assert.equal(lastWord(bytes), entry.checksum, `${corpus}: the file is the one the run wrote`);
    assert.ok(bytes.length <= 1.5 * 2 ** 20, `${corpus}: ${bytes.length} bytes`);
    assert.equal(models[corpus].step, entry.steps);
    assert.ok(fnv1a(bytes).length === 8);
  }
});

test('the English model reaches its targets on held-out text', () => {
  const lm = models['moby-dick'];
  const bits = lm.evaluate().bits;
  assert.ok(bits <= 2.3, `held-out ${bits} bits/char`);
  const heads = lm.headScores();
  const best = (job) => Math.max(...heads.map((h) => h.jobs[job]));
  assert.ok(best('previousChar') >= 0.9, `previous-character head ${best('previousChar')}`);
  assert.ok(best('induction') >= 0.5, `induction head ${best('induction')}`);
  // At temperature 0.8 at least half the generated words are words of the training text.
  const vocab = lm.vocab;
  const train = readFileSync(new URL('../../web/corpora/moby-dick/train.u8', import.meta.url));
  const words = new Set((Array.from(train, (id) => vocab[id]).join('').match(/[A-Za-z]+(?:['’][A-Za-z]+)*/g) ?? []).map((w) => w.toLowerCase()));
  const sample = lm.generate('It was the whale that ', { length: 400, temperature: 0.8, seed: 5 });
  const { share, words: count } = englishShare(sample, words);
  assert.ok(count >= 40 && share >= 0.5, `${(100 * share).toFixed(0)} % of ${count} words: ${sample}`);
  // The untrained model beside it: the same figures at step 0.
  const untrained = engine.languageModel({ corpus: 'moby-dick', trained: false, ...RECIPES['moby-dick'].options });
  assert.ok(untrained.evaluate({ windows: 32 }).bits > 5);
  assert.ok(Math.max(...untrained.headScores(undefined, { windows: 32 }).map((h) => h.jobs.previousChar)) < 0.2);
  untrained.dispose();
});

test('the Chinese model is well below the unigram baseline and writes verse-shaped lines', () => {
  const lm = models['tang-poems'];
  const bits = lm.evaluate().bits;
  assert.ok(bits < 8.82 - 1.5, `held-out ${bits} bits/char against the unigram's 8.82`);
  const text = lm.generate('春眠不觉晓，', { length: 240, temperature: 0.8, seed: 1 });
  const lines = text.split(/(?<=[。\n])/).slice(1, -1).filter((line) => line !== '\n').map((line) => line.replace(/\n$/, ''));
  const shaped = lines.filter((line) => /^[^，。\n]{5}，[^，。\n]{5}。$/u.test(line));
  assert.ok(lines.length >= 5 && shaped.length / lines.length >= 0.9, `${shaped.length} of ${lines.length} lines: ${text}`);
});

test('greedy generation is the argmax of next() one character at a time, across a window rebuild', () => {
  const lm = models['tang-poems'];
  const prompt = '白日依山尽，';
  const generated = Array.from(lm.generate(prompt, { length: 70, temperature: 0 }));  // 76 > T = 64: the cache is rebuilt
  let text = prompt;
  for (const char of generated) {
    assert.equal(char, lm.next(text, { topK: 1 })[0].char, `after ${text}`);
    text += char;
  }
});

test('next() is a distribution, sorted; a stream is one stream however it is chunked', () => {
  const lm = models['moby-dick'];
  const all = lm.next('Call me Ishmae', { topK: 0 });
  assert.equal(all.length, lm.vocab.length);
  assert.ok(Math.abs(all.reduce((sum, { p }) => sum + p, 0) - 1) < 1e-4);
  for (let i = 1; i < all.length; i++) assert.ok(all[i - 1].p >= all[i].p);
  assert.equal(all[0].char, 'l');
  const whole = lm.generate('The whale', { length: 30, temperature: 0.8, topK: 10, seed: 3 });
  const stream = lm.stream('The whale', { temperature: 0.8, topK: 10, seed: 3 });
  const first = stream.next(12);
  const second = stream.next(18);
  assert.equal(first.text + second.text, whole);
  assert.ok(second.cacheBytes > first.cacheBytes);
  assert.equal(second.cacheBytes, 2 * lm.options.layers * second.cached * lm.options.width * 4);
});

test('attention is [1, H, n, n] per layer over the text, causal, and changes with the text', () => {
  const lm = models['moby-dick'];
  const a = lm.attention('the cat sat');
  const b = lm.attention('the the the');
  assert.equal(a.length, 2);
  const { heads } = lm.options;
  assert.equal(a[0].weights.length, heads * 11 * 11);
  assert.deepEqual(a[0].chars, Array.from('the cat sat'));
  for (let row = 0; row < 11; row++) {
    let sum = 0;
    for (let key = 0; key < 11; key++) {
      const w = a[0].weights[row * 11 + key];
      if (key > row) assert.equal(w, 0);
      sum += w;
    }
    assert.ok(Math.abs(sum - 1) < 1e-5);
  }
  assert.notDeepEqual(Array.from(a[1].weights), Array.from(b[1].weights));
});

test('a layer as a walkthrough Run: its output is the block computed from its own x and weights', () => {
  const lm = models['moby-dick'];
  const run = lm.run('Call me Ishmael.', { layer: 1 });
  const x = run.step('x').data;
  const out = run.step('output').data;
  const { C, T, H } = run.summary;
  assert.equal(T, 16);
  assert.equal(out.length, T * C);
  // An independent plain-loop block: Q, K, V, causal softmax(QKᵀ/√D), ·V, Wo.
  const w = run.weights;
  const D = C / H;
  const proj = (W, b) => Array.from({ length: T }, (_, t) => Array.from({ length: C }, (_, j) => {
    let sum = b[j];
    for (let k = 0; k < C; k++) sum += x[t * C + k] * W[k * C + j];
    return sum;
  }));
  const q = proj(w.Wq, w.bq); const k = proj(w.Wk, w.bk); const v = proj(w.Wv, w.bv);
  const concat = Array.from({ length: T }, () => new Array(C).fill(0));
  for (let h = 0; h < H; h++) {
    for (let i = 0; i < T; i++) {
      const s = [];
      for (let j = 0; j <= i; j++) {
        let dot = 0;
        for (let d = 0; d < D; d++) dot += q[i][h * D + d] * k[j][h * D + d];
        s.push(dot / Math.sqrt(D));
      }
      const top = Math.max(...s);
      const e = s.map((value) => Math.exp(value - top));
      const total = e.reduce((a, b) => a + b, 0);
      for (let j = 0; j <= i; j++) for (let d = 0; d < D; d++) concat[i][h * D + d] += (e[j] / total) * v[j][h * D + d];
    }
  }
  let worst = 0;
  for (let t = 0; t < T; t++) {
    for (let j = 0; j < C; j++) {
      let sum = w.bo[j];
      for (let kk = 0; kk < C; kk++) sum += concat[t][kk] * w.Wo[kk * C + j];
      worst = Math.max(worst, Math.abs(sum - out[t * C + j]));
    }
  }
  assert.ok(worst < 1e-5, `worst ${worst}`);
  run.release?.();
});

test('characters outside the vocabulary are shown, not dropped', () => {
  const en = models['moby-dick'].encode('whale ☃ fish');
  assert.deepEqual(en.unknown, [{ index: 6, char: '☃' }]);
  assert.equal(en.ids.length, 12);
  const zh = models['tang-poems'].encode('春風');  // 風 is traditional: the corpus is simplified
  assert.deepEqual(zh.unknown, [{ index: 1, char: '風' }]);
  assert.equal(zh.chars[1], '□');
});

test('bad input is named: empty or over-long text, unknown corpus and options, options with a trained model', () => {
  const lm = models['moby-dick'];
  const field = (fn) => {
    try {
      fn();
    } catch (error) {
      assert.ok(error instanceof MhaError, String(error));
      return `${error.field} ${error.key}`;
    }
    return 'no error';
  };
  assert.equal(field(() => lm.next('')), 'text lm.empty_text');
  assert.equal(field(() => lm.next('a'.repeat(100001))), 'text lm.text_too_long');
  assert.equal(field(() => lm.next(42)), 'text bad_type.value');
  assert.equal(field(() => lm.bitsPerChar('a')), 'text lm.text_too_short');
  assert.equal(field(() => lm.generate('Call', { length: 0 })), 'length bad_option.range');
  assert.equal(field(() => lm.generate('Call', { temperature: -1 })), 'temperature bad_option.range');
  assert.equal(field(() => lm.generate('Call', { topK: 1.5 })), 'topK bad_option.whole');
  assert.equal(field(() => lm.run('Call', { layer: 2 })), 'layer bad_option.range');
  assert.equal(field(() => engine.languageModel({ corpus: 'shakespeare' })), 'corpus lm.unknown_corpus');
  assert.equal(field(() => engine.languageModel({ corpus: 'moby-dick', layers: 3 })), 'layers lm.option_when_trained');
  assert.equal(field(() => engine.languageModel({ corpus: 'moby-dick', trained: false, heads: 3 })), 'heads bad_option.heads');
  assert.equal(field(() => engine.languageModel({ corpus: 'moby-dick', trained: false, colour: 1 })), 'colour lm.unknown_option');
  const task = engine.trainer({ task: 'previous' });
  assert.equal(field(() => engine.languageModel({ checkpoint: task.save() })), 'checkpoint lm.not_a_language_model');
  task.dispose();
  // The model is still usable after every refusal.
  assert.equal(lm.next('Call me Ishmae', { topK: 1 })[0].char, 'l');
});

test('a saved model opens again exactly; a new one trains deterministically', () => {
  const a = engine.languageModel({ corpus: 'moby-dick', trained: false, seed: 1, layers: 1, width: 32, heads: 2, T: 32, batch: 4 });
  const first = a.train(5);
  const b = engine.languageModel({ checkpoint: a.save() });
  assert.deepEqual(Array.from(a.train(3).losses), Array.from(b.train(3).losses));
  const c = engine.languageModel({ corpus: 'moby-dick', trained: false, seed: 1, layers: 1, width: 32, heads: 2, T: 32, batch: 4 });
  assert.deepEqual(Array.from(c.train(5).losses), Array.from(first.losses));
  const shipped = engine.languageModel({ checkpoint: a.save({ parametersOnly: true, float16: true }) });
  assert.ok(Math.abs(shipped.bitsPerChar('Call me Ishmael.') - a.bitsPerChar('Call me Ishmael.')) < 0.01);
  for (const lm of [a, b, c, shipped]) lm.dispose();
});

test('mha-lens lm generates after a prompt, trains from scratch, and names a bad corpus', async () => {
  const { execFile } = await import('node:child_process');
  const cli = new URL('../../web/cli.js', import.meta.url).pathname;
  const run = (args) => new Promise((resolve) => {
    execFile(process.execPath, [cli, 'lm', ...args], { timeout: 240000 }, (error, stdout, stderr) => resolve({ code: error ? error.code : 0, stdout, stderr }));
  });
  const generated = await run(['--corpus', 'moby-dick', '--prompt', 'Call me', '--length', '40', '--seed', '2', '--json']);
  assert.equal(generated.code, 0, generated.stderr);
  const out = JSON.parse(generated.stdout);
  assert.equal(Array.from(out.text).length, 40);
  assert.equal(out.text, models['moby-dick'].generate('Call me', { length: 40, temperature: 0.8, seed: 2 }));
  assert.ok(out.heldoutBits < 2.5);
  const trained = await run(['--corpus', 'tang-poems', '--train', '4', '--layers', '1', '--width', '32', '--heads', '2', '--length', '10']);
  assert.equal(trained.code, 0, trained.stderr);
  assert.match(trained.stdout, /step +4 +loss/);
  const bad = await run(['--corpus', 'shakespeare']);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /moby-dick or tang-poems/);
});
