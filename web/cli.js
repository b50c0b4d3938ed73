#!/usr/bin/env node
// mha-lens in the terminal:  npx mha-lens walk --B 2 --T 4 --C 8 --H 2
// Prints every step of the walkthrough (formula with numbers, shape, axes, whether it changes
// values, element count) and the shape chain. Exit codes: 0 ok, 2 bad config or usage.
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';

import { createEngine, MhaError } from './src/engine/node.js'; // the API with Node's file system
import { checkLines, checkTrace, DEFAULT_TOLERANCE } from './src/logic/check/check-trace.js';
import { parseTrace, TraceError } from './src/logic/check/trace-file.js';
import { formatCount, layoutTensor, shapeChain, shapeText } from './src/logic/format.js';
import { CLASSIC, numberOrText, readConfig } from './src/logic/config-input.js';
import { stepTitle } from './src/catalogue/steps.js';
import { shapeFormulaOf, shapeFormulaText } from './src/catalogue/shape-formula.js';
import { translator } from './src/text/translate.js';

const USAGE = `Usage: mha-lens walk --B <n> --T <n> --C <n> --H <n> [options]   (no sizes: the seed example)
       mha-lens train --task reverse|sort|previous|induction [--steps N] [--seed S] [--json]
       mha-lens check trace.json [--tolerance 1e-4] [--json]
       mha-lens lm --corpus moby-dick|tang-poems [--prompt "Call me"] [--length 200]
                   [--temperature 0.8] [--top-k 0] [--seed 0] [--train N] [--json]

Sizes:   --B batch  --T query length  --Tk key/value length (cross-attention)
         --C model width  --H heads  --Hkv key/value heads (GQA/MQA)
         (or lowercase, as the elements' attributes: --b --t --tk --c --h --hkv)
Options: --mask none|causal   --key-lengths 4,3 (padding mask, one per batch row)
         --seed <n>   --no-bias   --memory-cap <bytes>
Attention: --algorithm naive|tiled|incremental   --block-q <n> --block-k <n> (tiled)
Output:  --json (the whole trace)   --step <id> (that tensor laid out by its axes)
         --backward (also the backward pass, for L = Σ output: dOutput of ones)
         --at <n> (with --step: a decoding step as it was at step t)   --lang en|zh
         --version (-v)   --help (-h)
Example: mha-lens walk --B 2 --T 4 --C 8 --H 2 --mask causal --step weights
         mha-lens walk --B 1 --T 6 --C 8 --H 2 --mask causal --algorithm tiled --block-q 2 --block-k 3

train:   trains the engine's tiny transformer on a task and prints progress, the final loss,
         the accuracy on fresh batches and each head's job scores (at step 0 and now).
         --task  --steps (default: the task's)  --seed  --layers --heads --width --lr --dropout
         --batch  --json  --lang en|zh

lm:      the character language model trained by this engine (English: Moby-Dick; Chinese: Tang
         five-character verse). Generates --length characters after --prompt with the KV cache,
         and prints the held-out bits per character and each head's job scores. --train N trains
         a new model from scratch for N steps first (--seed, --layers --heads --width --lr --batch).

check:   compares your own attention module, traced by mha_lens_trace.py (in this package's
         scripts/: python3 mha_lens_trace.py file.py:Class --mask causal --out trace.json), with
         the engine's steps on the same inputs and weights: one line per recorded variable, the
         first that matches no step and the known mistake it matches. Exit 0: the module matches;
         1: it does not; 2: a bad file. --tolerance (default ${DEFAULT_TOLERANCE})  --json (the result)`;

const options = {
  B: { type: 'string' }, T: { type: 'string' }, Tk: { type: 'string' }, C: { type: 'string' },
  H: { type: 'string' }, Hkv: { type: 'string' }, mask: { type: 'string' },
  'key-lengths': { type: 'string' }, seed: { type: 'string' }, bias: { type: 'boolean' },
  'no-bias': { type: 'boolean' }, 'memory-cap': { type: 'string' }, json: { type: 'boolean' },
  step: { type: 'string' }, lang: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  backward: { type: 'boolean' },
  task: { type: 'string' }, steps: { type: 'string' }, layers: { type: 'string' }, heads: { type: 'string' },
  width: { type: 'string' }, lr: { type: 'string' }, dropout: { type: 'string' }, batch: { type: 'string' },
  algorithm: { type: 'string' }, 'block-q': { type: 'string' }, 'block-k': { type: 'string' }, at: { type: 'string' },
  corpus: { type: 'string' }, prompt: { type: 'string' }, length: { type: 'string' }, temperature: { type: 'string' },
  'top-k': { type: 'string' }, train: { type: 'string' },
  tolerance: { type: 'string' }, version: { type: 'boolean', short: 'v' },
};
// The sizes, also in lower case as the elements' attributes name them (--b, --t, --tk, …).
const SIZES = ['B', 'T', 'Tk', 'C', 'H', 'Hkv'];
const ALIASES = SIZES.map((field) => field.toLowerCase());
for (const alias of ALIASES) options[alias] = { type: 'string' };

// The options as a user types them, for a message about one that does not exist.
const OPTION_NAMES = Object.keys(options).filter((name) => !ALIASES.includes(name)).map((name) => `--${name}`).join(' ');

function usageError(message) {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

// Options are named as the config fields (--B, --Hkv), or as the element attributes where the
// field is camelCase (--key-lengths); their text is read as every config text is.
function configFrom(values) {
  const { config } = readConfig((field, attribute) => values[field] ?? values[attribute] ?? (SIZES.includes(field) ? values[field.toLowerCase()] : undefined));
  if (values['no-bias']) config.bias = false;
  if (values['memory-cap'] !== undefined) config.memoryCap = numberOrText(values['memory-cap']);
  if (values.algorithm !== undefined) config.algorithm = values.algorithm;
  if (values['block-q'] !== undefined) config.blockQ = numberOrText(values['block-q']);
  if (values['block-k'] !== undefined) config.blockK = numberOrText(values['block-k']);
  return config;
}

// Columns padded by display width: a CJK character takes two cells.
const displayWidth = (text) => [...text].reduce((w, ch) => w + (/[\u1100-\uFFDC]/.test(ch) && !/[→·√ᵀ∞−ℓ■]/.test(ch) ? 2 : 1), 0);
const pad = (text, width) => text + ' '.repeat(Math.max(0, width - displayWidth(text)));

// A step's shape formula in the reader's language (the engine's own is English: "with no mask").
const formulaOf = (step, summary, t) => {
  const parts = shapeFormulaOf(step, summary);
  return parts ? shapeFormulaText(parts, t, { D: summary.D }) : step.shapeFormula;
};

function printWalk(run, t, lang) {
  const s = run.summary;
  const mask = [s.mask === 'causal' ? t('cli.causal') : null, s.keyLengths ? `${t('cli.padding')} [${s.keyLengths}]` : null]
    .filter(Boolean).join(' + ') || t('cli.noMask');
  const sizes = `B=${s.B} T=${s.T}${s.cross ? ` Tk=${s.Tk}` : ''} C=${s.C} H=${s.H}${s.Hkv < s.H ? ` Hkv=${s.Hkv}` : ''} (D=${s.D})`;
  const algorithm = s.algorithm === 'naive' ? '' : ` · ${t(`cli.algorithm.${s.algorithm}`)}`;
  console.log(`mha-lens · ${sizes} · ${s.cross ? t('cli.cross') : t('cli.self')} · ${mask} · ${s.bias ? t('cli.bias') : t('cli.noBias')}${algorithm}`);
  console.log('');

  const header = ['#', t('cli.step'), t('cli.formula'), t('cli.shape'), t('cli.axes'), t('cli.changes'), t('cli.elements')];
  const rows = run.steps.map((step, i) => [
    String(i + 1), `${step.id} · ${stepTitle(t, step.id, run.summary)}`, formulaOf(step, run.summary, t), shapeText(step.shape),
    step.axes.join(','), step.changesValues ? t('cli.yes') : t('cli.no'), formatCount(step.numel),
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((row) => displayWidth(row[c]))));
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => pad(cell, widths[c])).join('  ').trimEnd());

  console.log('');
  if (s.algorithm === 'incremental') printDecoding(run, t);
  else console.log(`${t('cli.chain')}: ${shapeChain(run.steps)}`);
  if (s.algorithm === 'tiled') printTiles(run, t);
  if (run.gradients) console.log(`${t('cli.backwardChain')}: ${backwardChain(run.steps)}`);
  console.log(`${t('cli.parameters')}: ${formatCount(s.parameterCount)} · ${t('cli.kvCache')}: ${formatCount(s.kvCacheBytesPerToken)} ${t('cli.bytesPerToken')} · ${t('cli.flops')}: ${formatCount(s.flops)}`);
  for (const warning of run.warnings) console.log(`${t('cli.warning')}: ${warning.messageIn(lang)}`);
}

// --- Tiled and incremental attention ---------------------------------------------------

// The tile grid of batch row 0 (the same for every head) and the counts over the whole run.
function printTiles(run, t) {
  const { tiles } = run.summary;
  console.log(`${t('cli.tiles')}: ${t('cli.tileCounts', { Bq: tiles.blockQ, Bk: tiles.blockK, Nq: tiles.queryBlocks, Nk: tiles.keyBlocks,
    total: formatCount(tiles.total), computed: formatCount(tiles.computed), skipped: formatCount(tiles.skipped) })}`);
  if (tiles.queryBlocks > 32 || tiles.keyBlocks > 32) return;
  console.log(t('cli.tileGrid', { b: 0 }));
  const grid = run.tiles({ batch: 0 });
  for (let i = 0; i < tiles.queryBlocks; i++) {
    console.log(`  ${grid.filter((tile) => tile.i === i).map((tile) => (tile.skipped ? '·' : '■')).join(' ')}`);
  }
}

// One decoding step's shapes (the last, t = T−1), and the cache's measured bytes at every step.
function printDecoding(run, t) {
  const last = run.summary.T - 1;
  const chain = run.steps.filter((step) => step.id !== 'x').map((step) => `${step.id} ${shapeText(run.step(step.id, { t: last }).shape)}`);
  console.log(`${t('cli.decodeChain')} (t=${last}): ${chain.join(' → ')}`);
  console.log('');
  console.log(t('cli.cacheHeader'));
  const rows = run.cacheBytes().map((c) => [`t=${c.t}`, shapeText(c.shape), formatCount(c.bytes), formatCount(c.formulaBytes)]);
  const header = ['', `${t('cli.cacheShape')} (K, V)`, t('cli.measured'), t('cli.formulaBytes')];
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((row) => displayWidth(row[c]))));
  for (const row of [header, ...rows]) console.log(`  ${row.map((cell, c) => pad(cell, widths[c])).join('  ').trimEnd()}`);
}

function printStep(step, t, summary) {
  console.log(`${step.id} · ${stepTitle(t, step.id, summary)}  ${step.formula}`);
  console.log(`${shapeText(step.shape)}  (${step.axes.join(', ')})  ${t('cli.strides')} [${step.strides}] ${step.contiguous ? t('cli.contiguous') : t('cli.view')}`);
  for (const line of layoutTensor(step)) console.log(line);
}

// The gradients' shapes from dY back to dX, the three of Q, K and V side by side.
const BACKWARD_CHAIN = ['d_output', 'd_concat', 'd_context', 'd_weights', 'd_masked', 'd_scores',
  ['d_q_heads', 'd_k_heads', 'd_v_heads'], ['d_q', 'd_k', 'd_v'], ['d_x', 'd_source']];
function backwardChain(steps) {
  const byId = new Map(steps.map((step) => [step.id, step]));
  return BACKWARD_CHAIN.map((ids) => [ids].flat().filter((id) => byId.has(id)))
    .filter((ids) => ids.length)
    .map((ids) => `${ids.join('/')} ${ids.map((id) => shapeText(byId.get(id).shape)).join('/')}`)
    .join(' → ');
}

// The trace as JSON ({ summary, warnings, gradients?, steps }, or one step with --step), written
// piece by piece as stdout drains: a T = 1024 trace is hundreds of megabytes of text, more than
// one string can hold. −∞ (masked scores) has no JSON form: it is written as null.
async function writeJson(run, step) {
  const write = (text) => (process.stdout.write(text) ? null : once(process.stdout, 'drain'));
  const CHUNK = 1 << 16;
  const values = async (data) => {
    await write('[');
    for (let at = 0; at < data.length; at += CHUNK) {
      const part = Array.from(data.subarray(at, at + CHUNK), (v) => (Number.isFinite(v) ? v : null));
      await write((at ? ',' : '') + JSON.stringify(part).slice(1, -1));
    }
    await write(']');
  };
  const stepJson = async (s) => {
    await write(`${JSON.stringify({ ...s, data: undefined }).slice(0, -1)},"data":`);
    await values(s.data);
    await write('}');
  };
  if (step) {
    await stepJson(step);
    await write('\n');
    return;
  }
  await write(`{"summary":${JSON.stringify(run.summary)},"warnings":${JSON.stringify(run.warnings)}`);
  if (run.gradients) {
    await write(',"gradients":{');
    for (const [i, [name, data]] of Object.entries(run.gradients).entries()) {
      await write(`${i ? ',' : ''}${JSON.stringify(name)}:`);
      await values(data);
    }
    await write('}');
  }
  await write(',"steps":[\n');
  for (const [i, s] of run.steps.entries()) {
    if (i) await write(',\n');
    await stepJson(s);
  }
  await write(']}\n');
}

async function main() {
  // A reader piping into head or less closes the pipe early: stop quietly.
  process.stdout.on('error', (error) => {
    if (error.code === 'EPIPE') process.exit(0);
    throw error;
  });
  let parsed;
  try {
    parsed = parseArgs({ args: joinNegativeValues(process.argv.slice(2)), options, allowPositionals: true, strict: true });
  } catch (error) {
    usageError(argumentMessage(error));
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (values.version) {
    console.log(JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')).version);
    return;
  }
  if (positionals[0] === 'check') {
    await check(positionals.slice(1), values);
    return;
  }
  if (!['walk', 'train', 'lm'].includes(positionals[0]) || positionals.length > 1) {
    usageError(positionals.length ? `Unknown command "${positionals.join(' ')}".` : 'Missing the command: walk, train, lm or check.');
  }
  const lang = values.lang ?? 'en';
  if (!['en', 'zh'].includes(lang)) usageError(`--lang must be en or zh, not "${lang}".`);
  const t = translator(lang);
  if (positionals[0] === 'train') {
    await train(values, t, lang);
    return;
  }
  if (positionals[0] === 'lm') {
    await languageModel(values, lang);
    return;
  }

  const engine = await createEngine();
  let run;
  try {
    let config = configFrom(values);
    if (SIZES.every((field) => config[field] === undefined)) {
      // No sizes at all: the seed example the page opens with, said on stderr (stdout may be JSON).
      config = { ...CLASSIC, ...config };
      process.stderr.write(`${t('cli.seedExample', { sizes: Object.entries(CLASSIC).map(([k, v]) => `--${k} ${v}`).join(' ') })}\n`);
    }
    if (values.backward) {
      // dOutput of ones: the gradients of L = Σ output. Sizes are checked first, so that a bad
      // size is reported as such and never allocates.
      engine.validate(config);
      config.dOutput = new Float32Array(config.B * config.T * config.C).fill(1);
    }
    run = engine.run(config);
  } catch (error) {
    if (!(error instanceof MhaError)) throw error;
    process.stderr.write(`${t('cli.error')}: ${error.messageIn(lang)}\n`);
    process.exit(2);
  }
  let step = null;
  if (values.step !== undefined) {
    try {
      step = values.at === undefined ? run.step(values.step) : run.step(values.step, { t: numberOrText(values.at) });
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      process.stderr.write(`${t('cli.error')}: ${error.messageIn(lang)}\n`);
      process.exit(2);
    }
  }
  if (values.json) await writeJson(run, step);
  else if (step) printStep(step, t, run.summary);
  else printWalk(run, t, lang);
}

// parseArgs reads "--B -2" as two options; the value is meant, and the engine's range message
// says what is wrong with it. "--seed -1" → "--seed=-1".
function joinNegativeValues(args) {
  const joined = [];
  for (let i = 0; i < args.length; i++) {
    const name = /^--([\w-]+)$/.exec(args[i])?.[1];
    if (name && options[name]?.type === 'string' && /^-(\d|\.\d|Infinity)/.test(args[i + 1] ?? '')) joined.push(`${args[i]}=${args[++i]}`);
    else joined.push(args[i]);
  }
  return joined;
}

// parseArgs's own words for a bad option, in ours: the option and what there is.
function argumentMessage(error) {
  const option = /'(-[^']*)'/.exec(error.message)?.[1] ?? '';
  if (error.code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return `Unknown option ${option}. The options are: ${OPTION_NAMES}.`;
  if (error.code === 'ERR_PARSE_ARGS_INVALID_OPTION_VALUE') return `${option.split(' ')[0]} ${/argument missing/.test(error.message) ? 'needs a value' : 'takes no value'}.`;
  return error.message;
}

// mha-lens train: the trainer of the JS API (web/src/engine/trainer.js) in the terminal.
async function train(values, t, lang) {
  const engine = await createEngine({ trainer: true });
  const fail = (error) => {
    if (!(error instanceof MhaError)) throw error;
    process.stderr.write(`${t('cli.error')}: ${error.messageIn(lang)}\n`);
    process.exit(2);
  };
  const options = {};
  if (values.task !== undefined) options.task = values.task;
  for (const key of ['seed', 'layers', 'heads', 'width', 'lr', 'dropout', 'batch']) {
    if (values[key] !== undefined) options[key] = numberOrText(values[key]);
  }
  let trainer;
  try {
    trainer = engine.trainer(options);
  } catch (error) {
    fail(error);
  }
  const steps = values.steps === undefined ? trainer.task.steps : numberOrText(values.steps);
  const startScores = trainer.headScores();
  const task = trainer.task;
  const o = trainer.options;
  if (!values.json) {
    console.log(`mha-lens train · ${task.name} (${task.causal ? t('cli.causal') : t('cli.train.full')}, T=${task.T}, vocab=${task.vocab}) · `
      + `${o.layers} ${t('cli.train.layers')} × ${o.heads} ${t('cli.train.heads')}, width ${o.width}${o.mlp ? ', MLP' : ''} · ${formatCount(trainer.parameterCount)} ${t('cli.parameters')} · seed ${o.seed}`);
  }
  const losses = [];
  const chunk = Number.isInteger(steps) && steps >= 1 ? Math.max(1, Math.round(steps / 10)) : steps;
  const started = performance.now();
  let last;
  try {
    do {
      last = trainer.train(typeof chunk === 'number' && Number.isInteger(steps) ? Math.min(chunk, steps - trainer.step) : chunk);
      losses.push(...last.losses);
      if (!values.json) {
        const perStep = (performance.now() - started) / trainer.step;
        console.log(`step ${String(last.step).padStart(6)}  loss ${last.loss.toFixed(4)}  ${t('cli.train.batchAccuracy')} ${(100 * last.accuracy).toFixed(1)}%  (${perStep.toFixed(2)} ms/${t('cli.train.step')})`);
      }
    } while (trainer.step < steps);
  } catch (error) {
    fail(error);
  }
  const evaluation = trainer.evaluate();
  const heads = trainer.headScores();
  if (values.json) {
    process.stdout.write(`${JSON.stringify({ task, options: o, step: trainer.step, loss: last.loss, losses, evaluation, heads, headsAtStart: startScores }, null, 1)}\n`);
    return;
  }
  console.log('');
  console.log(`${t('cli.train.final')} ${last.loss.toFixed(4)} · ${t('cli.train.accuracy', { n: formatCount(evaluation.sequences) })}: ${(100 * evaluation.accuracy).toFixed(2)}%`);
  console.log(`${t('cli.train.scores', { job: task.job, target: task.jobTarget })}:`);
  heads.forEach((head, i) => {
    const jobs = [task.job, ...Object.keys(head.jobs).filter((job) => job !== task.job)];
    const text = jobs.map((job) => `${job} ${head.jobs[job].toFixed(3)} (${t('cli.train.atStart')}: ${startScores[i].jobs[job].toFixed(3)})`).join(' · ');
    console.log(`layer ${head.layer} head ${head.head}: ${text}`);
  });
}

// mha-lens lm: the language model of the JS API (web/src/engine/language-model.js) in the terminal.
async function languageModel(values, lang) {
  const lmOptions = ['corpus', 'prompt', 'length', 'temperature', 'top-k', 'seed', 'train', 'json', 'lang', 'layers', 'heads', 'width', 'lr', 'batch'];
  const extra = Object.keys(values).find((name) => !lmOptions.includes(name));
  if (extra) usageError(`lm takes ${lmOptions.map((name) => `--${name}`).join(' ')}, not --${extra}.`);
  if (values.corpus === undefined) usageError('lm needs --corpus moby-dick or --corpus tang-poems.');
  const engine = await createEngine({ trainer: true });
  const fail = (error) => {
    if (!(error instanceof MhaError)) throw error;
    process.stderr.write(`error: ${error.messageIn(lang)}\n`);
    process.exit(2);
  };
  const number = (name, fallback) => (values[name] === undefined ? fallback : numberOrText(values[name]));
  try {
    const trainSteps = number('train', 0);
    const shape = {};
    for (const key of ['layers', 'heads', 'width', 'lr', 'batch']) if (values[key] !== undefined) shape[key] = numberOrText(values[key]);
    const fromScratch = values.train !== undefined;
    const lm = engine.languageModel(fromScratch ? { corpus: values.corpus, trained: false, seed: number('seed', 0), ...shape } : { corpus: values.corpus });
    const log = (line) => { if (!values.json) console.log(line); };
    const o = lm.options;
    log(`mha-lens lm · ${lm.corpus} · ${o.layers} layers × ${o.heads} heads, width ${o.width}, context T=${o.T} · ${formatCount(lm.parameterCount)} parameters · ${fromScratch ? `new, seed ${o.seed}` : `trained, step ${lm.step}`}`);
    const curve = [];
    if (fromScratch) {
      const started = performance.now();
      const chunk = Math.max(1, Math.round(trainSteps / 10));
      curve.push({ step: 0, bits: lm.evaluate({ windows: 64 }).bits });
      while (lm.step < trainSteps) {
        const last = lm.train(Math.min(chunk, trainSteps - lm.step));
        const bits = lm.evaluate({ windows: 64 }).bits;
        curve.push({ step: last.step, loss: last.loss, bits });
        log(`step ${String(last.step).padStart(6)}  loss ${last.loss.toFixed(4)}  held-out ${bits.toFixed(3)} bits/char  (${((performance.now() - started) / lm.step).toFixed(1)} ms/step)`);
      }
    }
    const prompt = values.prompt ?? (lm.corpus === 'tang-poems' ? '春' : 'Call me');
    const encoded = lm.encode(prompt);
    const started = performance.now();
    const text = lm.generate(prompt, { length: number('length', 200), temperature: number('temperature', 0.8), topK: number('top-k', 0), seed: number('seed', 0) });
    const ms = performance.now() - started;
    const evaluation = lm.evaluate();
    const heads = lm.headScores();
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ corpus: lm.corpus, options: o, step: lm.step, prompt, unknown: encoded.unknown, text, generationMs: ms, heldoutBits: evaluation.bits, heads, curve }, null, 1)}\n`);
      return;
    }
    if (encoded.unknown.length) log(`(not in the vocabulary, read as "${encoded.chars[encoded.unknown[0].index]}": ${encoded.unknown.map((u) => JSON.stringify(u.char)).join(' ')})`);
    log('');
    log(`${prompt}${text}`);
    log('');
    log(`${Array.from(text).length} characters in ${ms.toFixed(0)} ms · held-out ${evaluation.bits.toFixed(3)} bits/char`);
    for (const head of heads) {
      log(`layer ${head.layer} head ${head.head}: ${Object.entries(head.jobs).map(([job, score]) => `${job} ${score.toFixed(3)}`).join(' · ')}`);
    }
  } catch (error) {
    fail(error);
  }
}

// mha-lens check trace.json: a learner's module, traced by scripts/mha_lens_trace.py, against
// the engine (web/src/logic/check/check-trace.js). Exit 0 when it matches, 1 when not, 2 on a bad file.
async function check(files, values) {
  const extra = Object.keys(values).filter((name) => !['json', 'tolerance'].includes(name));
  if (extra.length) usageError(`check takes a trace file and --tolerance or --json, not --${extra[0]}: the sizes, mask and weights are in the trace.`);
  if (files.length !== 1) usageError(files.length ? `check takes one trace file, not ${files.length}.` : 'check needs a trace file: mha-lens check trace.json (written by mha_lens_trace.py).');
  const tolerance = values.tolerance === undefined ? DEFAULT_TOLERANCE : Number(values.tolerance);
  if (!(tolerance > 0 && tolerance < 1)) usageError(`--tolerance must be a number between 0 and 1, not "${values.tolerance}".`);
  const fail = (message) => {
    process.stderr.write(`error: ${files[0]}: ${message}\n`);
    process.exit(2);
  };
  let text;
  try {
    text = readFileSync(files[0], 'utf8');
  } catch (error) {
    fail(error.code === 'ENOENT' ? 'no such file.' : error.code === 'EISDIR' ? 'is a folder, not a trace file.' : `cannot be read (${error.code ?? error.message}).`);
  }
  let result;
  try {
    const trace = parseTrace(text);
    result = checkTrace(trace, await createEngine(), { tolerance });
  } catch (error) {
    if (error instanceof TraceError) fail(error.message);
    if (error instanceof MhaError) fail(`the engine cannot run this trace's config: ${error.message}`);
    throw error;
  }
  if (values.json) process.stdout.write(`${JSON.stringify(result, null, 1)}\n`);
  else console.log(checkLines(result).join('\n'));
  process.exitCode = result.ok ? 0 : 1;
}

await main();
