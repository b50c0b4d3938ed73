#!/usr/bin/env node
// mha-lens in the terminal:  npx mha-lens walk --B 2 --T 4 --C 8 --H 2
// Prints every step of the walkthrough (formula with numbers, shape, axes, whether it changes
// values, element count) and the shape chain. Exit codes: 0 ok, 2 bad config or usage.
import { parseArgs } from 'node:util';

import { createEngine, MhaError } from './src/engine/engine.js';
import { formatCount, layoutTensor, shapeChain, shapeText } from './src/logic/format.js';
import { numberOrText, readConfig } from './src/model/config-input.js';
import { stepTitle } from './src/model/steps.js';
import { rememberCatalogue, shapeFormulaOf, shapeFormulaText } from './src/model/shape-formula.js';
import { translator } from './src/text/translate.js';

const USAGE = `Usage: mha-lens walk --B <n> --T <n> --C <n> --H <n> [options]

Sizes:   --B batch  --T query length  --Tk key/value length (cross-attention)
         --C model width  --H heads  --Hkv key/value heads (GQA/MQA)
Options: --mask none|causal   --key-lengths 4,3 (padding mask, one per batch row)
         --seed <n>   --no-bias   --memory-cap <bytes>
Output:  --json (the whole trace)   --step <id> (that tensor laid out by its axes)
         --lang en|zh
Example: mha-lens walk --B 2 --T 4 --C 8 --H 2 --mask causal --step weights`;

const options = {
  B: { type: 'string' }, T: { type: 'string' }, Tk: { type: 'string' }, C: { type: 'string' },
  H: { type: 'string' }, Hkv: { type: 'string' }, mask: { type: 'string' },
  'key-lengths': { type: 'string' }, seed: { type: 'string' }, bias: { type: 'boolean' },
  'no-bias': { type: 'boolean' }, 'memory-cap': { type: 'string' }, json: { type: 'boolean' },
  step: { type: 'string' }, lang: { type: 'string' }, help: { type: 'boolean', short: 'h' },
};

function usageError(message) {
  process.stderr.write(`${message}\n\n${USAGE}\n`);
  process.exit(2);
}

// Options are named as the config fields (--B, --Hkv), or as the element attributes where the
// field is camelCase (--key-lengths); their text is read as every config text is.
function configFrom(values) {
  const { config } = readConfig((field, attribute) => values[field] ?? values[attribute]);
  if (values['no-bias']) config.bias = false;
  if (values['memory-cap'] !== undefined) config.memoryCap = numberOrText(values['memory-cap']);
  return config;
}

// Columns padded by display width: a CJK character takes two cells.
const displayWidth = (text) => [...text].reduce((w, ch) => w + (/[\u1100-\uFFDC]/.test(ch) && !/[→·√ᵀ∞−]/.test(ch) ? 2 : 1), 0);
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
  console.log(`mha-lens · ${sizes} · ${s.cross ? t('cli.cross') : t('cli.self')} · ${mask} · ${s.bias ? t('cli.bias') : t('cli.noBias')}`);
  console.log('');

  const header = ['#', t('cli.step'), t('cli.formula'), t('cli.shape'), t('cli.axes'), t('cli.changes'), t('cli.elements')];
  const rows = run.steps.map((step, i) => [
    String(i + 1), `${step.id} · ${stepTitle(t, step.id, run.summary)}`, formulaOf(step, run.summary, t), shapeText(step.shape),
    step.axes.join(','), step.changesValues ? t('cli.yes') : t('cli.no'), formatCount(step.numel),
  ]);
  const widths = header.map((_, c) => Math.max(...[header, ...rows].map((row) => displayWidth(row[c]))));
  for (const row of [header, ...rows]) console.log(row.map((cell, c) => pad(cell, widths[c])).join('  ').trimEnd());

  console.log('');
  console.log(`${t('cli.chain')}: ${shapeChain(run.steps)}`);
  console.log(`${t('cli.parameters')}: ${formatCount(s.parameterCount)} · ${t('cli.kvCache')}: ${formatCount(s.kvCacheBytesPerToken)} ${t('cli.bytesPerToken')} · ${t('cli.flops')}: ${formatCount(s.flops)}`);
  for (const warning of run.warnings) console.log(`${t('cli.warning')}: ${warning.messageIn(lang)}`);
}

function printStep(step, t, summary) {
  console.log(`${step.id} · ${stepTitle(t, step.id, summary)}  ${step.formula}`);
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
  rememberCatalogue(engine.catalogue);
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
      printStep(run.step(values.step), t, run.summary);
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
