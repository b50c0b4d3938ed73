#!/usr/bin/env node
// mha-lens in the terminal:  npx mha-lens walk --B 2 --T 4 --C 8 --H 2
// Prints every step of the walkthrough (formula with numbers, shape, axes, whether it changes
// values, element count) and the shape chain. Exit codes: 0 ok, 2 bad config or usage.
import { parseArgs } from 'node:util';

import { createEngine, MhaError } from './src/engine/engine.js';
import { formatBytes, formatCount, layoutTensor, shapeChain, shapeText } from './src/format.js';
import { translator } from './src/i18n.js';

const USAGE = `Usage: mha-lens walk --B <n> --T <n> --C <n> --H <n> [options]

Sizes:   --B batch  --T query length  --Tk key/value length (cross-attention)
         --C model width  --H heads  --Hkv key/value heads (GQA/MQA)
Options: --mask none|causal   --key-lengths 4,3 (padding mask, one per batch row)
         --seed <n>   --no-bias   --memory-cap <bytes>
Attention: --algorithm naive|tiled|incremental   --block-q <n> --block-k <n> (tiled)
Output:  --json (the whole trace)   --step <id> (that tensor laid out by its axes)
         --t <n> (with --step: a decoding step as it was at step t)   --lang en|zh
Example: mha-lens walk --B 2 --T 4 --C 8 --H 2 --mask causal --step weights
         mha-lens walk --B 1 --T 6 --C 8 --H 2 --mask causal --algorithm tiled --block-q 2 --block-k 3`;

const options = {
  B: { type: 'string' }, T: { type: 'string' }, Tk: { type: 'string' }, C: { type: 'string' },
  H: { type: 'string' }, Hkv: { type: 'string' }, mask: { type: 'string' },
  'key-lengths': { type: 'string' }, seed: { type: 'string' }, bias: { type: 'boolean' },
  'no-bias': { type: 'boolean' }, 'memory-cap': { type: 'string' }, json: { type: 'boolean' },
  step: { type: 'string' }, lang: { type: 'string' }, help: { type: 'boolean', short: 'h' },
  // Tiled and incremental attention (issue 15).
  algorithm: { type: 'string' }, 'block-q': { type: 'string' }, 'block-k': { type: 'string' }, t: { type: 'string' },
};

// "4" → 4; anything else stays text, so that the engine's message quotes what was typed.
const numberOrText = (text) => (/^-?\d+(\.\d+)?(e\d+)?$/i.test(text.trim()) ? Number(text) : text);

function usageError(message) {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

function configFrom(values) {
  const config = {};
  for (const key of ['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'seed']) {
    if (values[key] !== undefined) config[key] = numberOrText(values[key]);
  }
  if (values.mask !== undefined) config.mask = values.mask;
  if (values['key-lengths'] !== undefined) {
    config.keyLengths = values['key-lengths'].split(',').filter((part) => part.trim() !== '').map(numberOrText);
  }
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
    String(i + 1), `${step.id} · ${t(`step.${step.id}`)}`, step.shapeFormula, shapeText(step.shape),
    step.axes.join(','), step.changesValues ? t('cli.yes') : t('cli.no'), formatCount(step.numel),
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((row) => displayWidth(row[c]))));
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => pad(cell, widths[c])).join('  ').trimEnd());

  console.log('');
  if (s.algorithm === 'incremental') printDecoding(run, t);
  else console.log(`${t('cli.chain')}: ${shapeChain(run.steps)}`);
  if (s.algorithm === 'tiled') printTiles(run, t);
  console.log(`${t('cli.parameters')}: ${formatCount(s.parameterCount)} · ${t('cli.kvCache')}: ${formatCount(s.kvCacheBytesPerToken)} ${t('cli.bytesPerToken')} · ${t('cli.flops')}: ${formatCount(s.flops)}`);
  for (const warning of run.warnings) console.log(`${t('cli.warning')}: ${warning.messageIn(lang)}`);
}

// --- Tiled and incremental attention (issue 15) ---------------------------------------------------

const fill = (text, params) => text.replace(/\{(\w+)\}/g, (_, name) => String(params[name] ?? `{${name}}`));

// The tile grid of batch row 0 (the same for every head) and the counts over the whole run.
function printTiles(run, t) {
  const { tiles } = run.summary;
  console.log(`${t('cli.tiles')}: ${fill(t('cli.tileCounts'), { Bq: tiles.blockQ, Bk: tiles.blockK, Nq: tiles.queryBlocks, Nk: tiles.keyBlocks,
    total: formatCount(tiles.total), computed: formatCount(tiles.computed), skipped: formatCount(tiles.skipped) })}`);
  if (tiles.queryBlocks > 32 || tiles.keyBlocks > 32) return;
  console.log(fill(t('cli.tileGrid'), { b: 0 }));
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

function printStep(step, t) {
  console.log(`${step.id} · ${t(`step.${step.id}`)}  ${step.formula}`);
  console.log(`${shapeText(step.shape)}  (${step.axes.join(', ')})  ${t('cli.strides')} [${step.strides}] ${step.contiguous ? t('cli.contiguous') : t('cli.view')}`);
  for (const line of layoutTensor(step)) console.log(line);
}

// −∞ (masked scores) has no JSON form: it is written as null.
const traceJson = (run) => JSON.stringify({
  summary: run.summary,
  warnings: run.warnings,
  steps: run.steps.map((step) => ({ ...step, data: Array.from(step.data, (v) => (Number.isFinite(v) ? v : null)) })),
}, null, 1);

async function main() {
  let parsed;
  try {
    parsed = parseArgs({ options, allowPositionals: true, strict: true });
  } catch (error) {
    usageError(error.message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(USAGE);
    return;
  }
  if (positionals[0] !== 'walk' || positionals.length > 1) usageError(positionals.length ? `Unknown command "${positionals.join(' ')}".` : 'Missing the command: walk.');
  const lang = values.lang ?? 'en';
  if (!['en', 'zh'].includes(lang)) usageError(`--lang must be en or zh, not "${lang}".`);
  const t = translator(lang);

  const engine = await createEngine();
  let run;
  try {
    run = engine.run(configFrom(values));
  } catch (error) {
    if (!(error instanceof MhaError)) throw error;
    process.stderr.write(`${t('cli.error')}: ${error.messageIn(lang)}\n`);
    process.exit(2);
  }
  if (values.json) {
    process.stdout.write(`${traceJson(run)}\n`);
  } else if (values.step !== undefined) {
    try {
      printStep(values.t === undefined ? run.step(values.step) : run.step(values.step, { t: numberOrText(values.t) }), t);
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      process.stderr.write(`${t('cli.error')}: ${error.messageIn(lang)}\n`);
      process.exit(2);
    }
  } else {
    printWalk(run, t, lang);
  }
}

await main();
