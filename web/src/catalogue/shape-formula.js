// A step's shape formula as parts — shapes (axis symbols and their sizes), operators and words —
// read from the catalogue (each entry's `operands`, the template step-text.js fills in for
// `step.shapeFormula`). The page shows it twice: with numbers, in the reader's language
// ("[2,2,4,4] @ [2,2,4,4] → [2,2,4,4]"), and with named axes ("[B,H,Tq,D] @ [B,H,D,Tk] →
// [B,H,Tq,Tk]"), so equal sizes cannot hide which axis is which. tests/js/shape-formula.test.js
// checks the English numbers against the engine's own shapeFormula. No DOM.

import { axisName, axisSize } from './step-text.js';
import { entryOf } from './steps.js';

export { axisSize };

// The operands' words, by the template text they stand for (written in English in the catalogue).
// Anything else between two shapes must be operators only (tests/js/shape-formula.test.js).
const WORDS = {
  'softmax over Tk of ': 'formula.softmaxOverTk',
  'softmax backward over Tk of ': 'formula.softmaxBackwardOverTk',
  'softmax over t+1 of ': 'formula.softmaxOverT1',
  ' in ': 'formula.in',
  ' tiles': 'formula.tiles',
  ' per tile': 'formula.perTile',
  ' per token': 'formula.perToken',
};
const OPERATORS = /^[\s\d@×+/√ᵀ−]*$/u;

// The mask's own shape, broadcast over the scores, as step-text.js's maskOperand names it.
const MASKS = {
  both: { key: 'formula.mask.both', axes: ['B', '1', 'Tq', 'Tk'] },
  causal: { key: 'formula.mask.causal', axes: ['Tq', 'Tk'] },
  padding: { key: 'formula.mask.padding', axes: ['B', '1', '1', 'Tk'] },
};

const shape = (symbols, summary) => {
  const axes = symbols.map((symbol) => axisName(symbol, summary));
  return { kind: 'shape', axes, sizes: symbols.map((symbol) => axisSize(symbol, summary)) };
};

/**
 * The parts of `step`'s shape formula, from its catalogue `operands` template and the run's
 * `summary`: [{ kind: 'shape', axes, sizes } | { kind: 'op', text } | { kind: 'word', key } |
 * { kind: 'head' }], the last shape being the step's own. An input has its shape only. Null for
 * a template with per-run slots.
 */
export function shapeFormulaParts(operands, step, summary) {
  // A template with slots the engine fills per run ({dx_operands}: one term per projection) is
  // shown as the engine wrote it.
  if (/\{(?!\+\[|mask\}|D\})/u.test(operands ?? '')) return null;
  const parts = [];
  const text = (value) => {
    if (!value) return;
    if (OPERATORS.test(value)) parts.push({ kind: 'op', text: value });
    else if (WORDS[value]) parts.push({ kind: 'word', key: WORDS[value] });
    else throw new Error(`shape formula of ${step.id}: no words for "${value}"`);
  };
  const template = operands ?? '';
  const pattern = /\{\+\[([^\]]*)\]\}|\{mask\}|\{D\}|\[([^\]]*)\]/gu;
  let at = 0;
  for (const match of template.matchAll(pattern)) {
    text(template.slice(at, match.index));
    at = match.index + match[0].length;
    if (match[0].startsWith('{+')) {
      if (summary.bias) parts.push({ kind: 'op', text: ' + ' }, shape(match[1].split(','), summary));
    } else if (match[0] === '{mask}') {
      const causal = summary.mask === 'causal';
      const padding = Array.isArray(summary.keyLengths);
      const mask = causal && padding ? MASKS.both : causal ? MASKS.causal : padding ? MASKS.padding : null;
      if (mask) parts.push({ kind: 'op', text: ' + ' }, { kind: 'word', key: mask.key }, { kind: 'op', text: ' ' }, shape(mask.axes, summary));
      else parts.push({ kind: 'op', text: ' ' }, { kind: 'word', key: 'formula.mask.none' });
    } else if (match[0] === '{D}') {
      parts.push({ kind: 'head' });
    } else {
      parts.push(shape(match[2].split(','), summary));
    }
  }
  text(template.slice(at));
  if (parts.length) parts.push({ kind: 'op', text: ' → ' });
  parts.push({ kind: 'shape', axes: step.axes, sizes: step.shape });
  return parts;
}

/**
 * The parts as text: with numbers (`symbols` false: "[2,4,8] @ [8,8] + [8] → [2,4,8]") or axis
 * symbols ("[B,T,C] @ [C,H·D] + [H·D] → [B,T,H·D]"), words from `t` (the reader's language).
 */
export function shapeFormulaText(parts, t, { symbols = false, D } = {}) {
  return parts.map((part) => {
    if (part.kind === 'shape') return `[${(symbols ? part.axes : part.sizes).join(',')}]`;
    if (part.kind === 'word') return t(part.key);
    if (part.kind === 'head') return symbols ? 'D' : String(D);
    return part.text;
  }).join('');
}

/**
 * The parts of a run's step, or null (show the engine's own text) for a template with per-run
 * slots, or for an axis this run has no size for.
 */
export function shapeFormulaOf(step, summary) {
  const entry = entryOf(step.id);
  if (!entry) return null;
  const parts = shapeFormulaParts(entry.operands, step, summary);
  return parts && parts.every((part) => part.kind !== 'shape' || part.sizes.every((size) => size !== undefined)) ? parts : null;
}
