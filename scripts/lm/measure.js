#!/usr/bin/env node
// The language models' figures, trained beside untrained (the recipe's model at step 0), as the
// README and web/docs/language-model.md quote them, measured on held-out text in wasm:
//   held-out bits per character (256 windows of T+1 spread over the held-out text) and the
//   unigram baseline; each head's jobs (previousChar, induction on rows repeating a held-out
//   passage, halfLine, line); generation at temperature 0.8 after a held-out prompt: the share of
//   generated words that are words of the training text (English) or of lines in the verse's
//   shape (Chinese).
//   node scripts/lm/measure.js [--json] [--length 2000]
import { readFileSync } from 'node:fs';

import { createEngine } from '../../web/src/engine/engine.js';
import { RECIPES } from './make_checkpoints.js';

const WORD = /[A-Za-z]+(?:['’][A-Za-z]+)*/g;

/** Share of the generated words that are words of the training text (lower-cased). */
export function englishShare(text, words) {
  const found = (text.match(WORD) ?? []).map((w) => w.toLowerCase());
  return { share: found.length ? found.filter((w) => words.has(w)).length / found.length : 0, words: found.length };
}

/** Share of whole generated lines (split after 。 and newlines; the first and last may be cut) shaped 5，5。 */
export function verseShare(text) {
  const pieces = text.split(/(?<=[。\n])/).slice(1, -1).filter((p) => p !== '\n').map((p) => p.replace(/\n$/, ''));
  const shaped = pieces.filter((p) => /^[^，。\n]{5}，[^，。\n]{5}。$/u.test(p));
  return { share: pieces.length ? shaped.length / pieces.length : 0, lines: pieces.length };
}

/** The unigram baseline: training frequencies with add-one smoothing, in bits per held-out character. */
export function unigramBits(train, heldout, V) {
  const counts = new Float64Array(V).fill(1);
  for (const id of train) counts[id]++;
  const total = train.length + V;
  let bits = 0;
  for (const id of heldout) bits -= Math.log2(counts[id] / total);
  return bits / heldout.length;
}

export async function measure({ length = 2000 } = {}) {
  const engine = await createEngine({ trainer: true });
  const out = {};
  for (const corpus of Object.keys(RECIPES)) {
    const trained = engine.languageModel({ corpus });
    const untrained = engine.languageModel({ corpus, trained: false, ...RECIPES[corpus].options });
    const vocab = trained.vocab;
    const folder = new URL(`../../web/corpora/${corpus}/`, import.meta.url);
    const width = corpus === 'tang-poems' ? 2 : 1;
    const ids = (file) => {
      const raw = readFileSync(new URL(`${file}.${width === 1 ? 'u8' : 'u16'}`, folder));
      return width === 1 ? raw : new Uint16Array(raw.buffer.slice(raw.byteOffset, raw.byteOffset + raw.byteLength));
    };
    const heldout = ids('heldout');
    const trainIds = ids('train');
    const T = trained.context;
    const start = Math.floor(heldout.length / 3);
    const prompt = Array.from(heldout.subarray(start, start + T / 2), (id) => vocab[id]).join('');
    let words = null;
    if (corpus === 'moby-dick') words = new Set((Array.from(trainIds, (id) => vocab[id]).join('').match(WORD) ?? []).map((w) => w.toLowerCase()));
    const row = {};
    for (const [name, lm] of [['untrained', untrained], ['trained', trained]]) {
      const text = lm.generate(prompt, { length, temperature: 0.8, seed: 1234 });
      const heads = lm.headScores();
      row[name] = {
        step: lm.step,
        bits: lm.evaluate().bits,
        heads,
        best: Object.fromEntries(['previousChar', 'induction', 'halfLine', 'line'].map((job) => [job, Math.max(...heads.map((h) => h.jobs[job]))])),
        generated: corpus === 'moby-dick' ? englishShare(text, words) : verseShare(text),
        sample: text.slice(0, 300),
      };
    }
    row.unigramBits = Number(unigramBits(trainIds, heldout, vocab.length).toFixed(3));
    row.prompt = prompt;
    out[corpus] = row;
    trained.dispose();
    untrained.dispose();
  }
  return out;
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const at = process.argv.indexOf('--length');
  const figures = await measure({ length: at > 0 ? Number(process.argv[at + 1]) : 2000 });
  if (process.argv.includes('--json')) {
    console.log(JSON.stringify(figures, null, 1));
  } else {
    for (const [corpus, row] of Object.entries(figures)) {
      console.log(`\n${corpus} (prompt ${JSON.stringify(row.prompt)}; unigram ${row.unigramBits ?? '?'} bits/char)`);
      console.log('| | step | held-out bits/char | previousChar | induction | halfLine | line | generated |');
      console.log('|---|---|---|---|---|---|---|---|');
      for (const name of ['untrained', 'trained']) {
        const r = row[name];
        const g = r.generated.words !== undefined ? `${(100 * r.generated.share).toFixed(0)} % of ${r.generated.words} words are English` : `${(100 * r.generated.share).toFixed(0)} % of ${r.generated.lines} lines verse-shaped`;
        console.log(`| ${name} | ${r.step} | ${r.bits.toFixed(3)} | ${r.best.previousChar.toFixed(2)} | ${r.best.induction.toFixed(2)} | ${r.best.halfLine.toFixed(2)} | ${r.best.line.toFixed(2)} | ${g} |`);
      }
      console.log('\nper head (trained): ' + row.trained.heads.map((h) => `L${h.layer}H${h.head} ${Object.entries(h.jobs).map(([k, v]) => `${k} ${v.toFixed(2)}`).join(' ')}`).join('; '));
      console.log(`\nsample (trained): ${row.trained.sample}`);
    }
  }
}
