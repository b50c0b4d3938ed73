// Precomputed attention, as <mha-heatmap> takes it from another model: the `attention` property
// (nested arrays [H][Tq][Tk] or [B][H][Tq][Tk], { shape, data }, or a whole attention file) or
// `src="attention.json"`, whose format scripts/export_attention.py documents and writes:
//   { "format": "mha-lens/attention", "version": 1, "tokens": [...], "keyTokens": [...],
//     "shape": [H, Tq, Tk] or [B, H, Tq, Tk], "data": [...row-major weights in [0, 1]...],
//     "title": "...", "source": "..." }
// Everything is checked before anything is drawn: shapes, lengths, every value finite and in
// [0, 1], labels as text. Nothing in it is ever run or parsed as markup. No DOM:
// tests/js/attention-file.test.js.
import { isPlainObject } from '../../engine/values.js';
import { parseImportText } from '../page/config-import.js';
import { PageError } from '../../text/page-error.js';
import { MAX_AXIS, MAX_PANEL_CELLS, panelFits } from './layout.js';

export const ATTENTION_FORMAT = 'mha-lens/attention';

/** More values than this are refused (4 M floats: 16 MB, checked in about a frame's time). */
export const MAX_ATTENTION_VALUES = 2 ** 22;
/** A file larger than this is refused before it is read or parsed. */
export const MAX_ATTENTION_BYTES = 32 * 2 ** 20;
// A weight may be this much above 1 (float32 rounding of a one-hot softmax row).
const ROUNDING = 1e-5;
const MAX_TEXT = 500;

/** Attention that cannot be drawn: `code` names the reason (words: `attention.error.<code>`). */
export class AttentionError extends PageError {
  constructor(code, params = {}) {
    super({ code, field: 'attention', key: `attention.error.${code}`, params });
    this.name = 'AttentionError';
  }
}

const fail = (code, params) => { throw new AttentionError(code, params); };
const describe = (value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value === 'string' ? JSON.stringify(value.slice(0, 40)) : String(value).slice(0, 40));

// The shape of a rectangular nested array of numbers, or an AttentionError naming where it is not.
function nestedShape(value) {
  const shape = [];
  for (let level = value; Array.isArray(level); level = level[0]) {
    if (level.length === 0) fail('emptyAxis', { axis: shape.length });
    shape.push(level.length);
    if (shape.length > 4) break;
  }
  return shape;
}

function flatten(nested, shape) {
  const total = shape.reduce((a, b) => a * b, 1);
  if (total > MAX_ATTENTION_VALUES) fail('tooBig', { n: total, max: MAX_ATTENTION_VALUES });
  const data = new Float32Array(total);
  let at = 0;
  // One index array, changed in place: its text is made only for a message.
  const path = [];
  const walk = (node, depth) => {
    if (depth === shape.length) {
      data[at++] = checked(node, path);
      return;
    }
    if (!Array.isArray(node) || node.length !== shape[depth]) fail('ragged', { path: `[${path.join('][')}]`, n: Array.isArray(node) ? node.length : describe(node), expected: shape[depth] });
    for (let i = 0; i < node.length; i++) {
      path[depth] = i;
      walk(node[i], depth + 1);
    }
    path.length = depth;
  };
  walk(nested, 0);
  return data;
}

// One weight: a finite number in [0, 1] (up to float32 rounding above 1).
function checked(value, where) {
  if (typeof value === 'number' && value >= 0 && value <= 1 + ROUNDING) return Math.min(value, 1);
  // Where it is, as text, only for the message: not four million strings for a file that is fine.
  const at = Array.isArray(where) ? `[${where.join('][')}]` : `[${where}]`;
  if (typeof value !== 'number') fail('notNumber', { at, got: describe(value) });
  if (!Number.isFinite(value)) fail('notFinite', { at, got: String(value) });
  fail('range', { at, got: String(value) });
}

// A panel too big to draw is refused by its sizes before a single value is read.
function drawable(shape) {
  const [Tq, Tk] = shape.slice(-2);
  if (!panelFits(Tq, Tk)) fail('panelTooBig', { rows: Tq, cols: Tk, max: MAX_PANEL_CELLS, axis: MAX_AXIS });
}

const text = (value) => (typeof value === 'string' ? value.slice(0, MAX_TEXT) : null);

function labels(value, count, field, made) {
  if (value === undefined || value === null) return made;
  if (!Array.isArray(value) || !value.every((label) => typeof label === 'string' || typeof label === 'number')) fail('labels', { field });
  if (value.length !== count) fail('labelCount', { field, n: value.length, expected: count });
  return value.map(String);
}

/**
 * Attention from any of the accepted forms → { shape: [B, H, Tq, Tk], data: Float32Array, tokens,
 * keyTokens, title, source }. An [H, Tq, Tk] array is one batch row (B = 1). `tokens` (labels of
 * the queries: an element's tokens) is used when the value brings none.
 */
export function readAttention(value, { tokens: given } = {}) {
  let shape;
  let data;
  let source = {};
  if (Array.isArray(value)) {
    shape = nestedShape(value);
    if (shape.length < 3 || shape.length > 4) fail('rank', { rank: shape.length });
    drawable(shape);
    data = flatten(value, shape);
  } else if (isPlainObject(value)) {
    source = value;
    if (value.format !== undefined && value.format !== ATTENTION_FORMAT) fail('format', { got: describe(value.format), expected: ATTENTION_FORMAT });
    if (value.version !== undefined && value.version !== 1) fail('version', { got: describe(value.version) });
    if (Array.isArray(value.data) && Array.isArray(value.data[0])) {
      shape = nestedShape(value.data);
      if (value.shape !== undefined && JSON.stringify(value.shape) !== JSON.stringify(shape)) fail('shapeMismatch', { shape: JSON.stringify(value.shape), got: JSON.stringify(shape) });
      if (shape.length < 3 || shape.length > 4) fail('rank', { rank: shape.length });
      drawable(shape);
      data = flatten(value.data, shape);
    } else {
      shape = value.shape;
      if (!Array.isArray(shape) || shape.length < 3 || shape.length > 4 || !shape.every((n) => Number.isInteger(n) && n >= 1)) fail('shape', { got: describe(Array.isArray(shape) ? `[${shape.join(',')}]` : shape) });
      const total = shape.reduce((a, b) => a * b, 1);
      if (total > MAX_ATTENTION_VALUES) fail('tooBig', { n: total, max: MAX_ATTENTION_VALUES });
      drawable(shape);
      const flat = value.data;
      if (!(Array.isArray(flat) || flat instanceof Float32Array || flat instanceof Float64Array)) fail('noData', {});
      if (flat.length !== total) fail('dataLength', { n: flat.length, expected: total, shape: `[${shape.join(',')}]` });
      data = new Float32Array(total);
      for (let i = 0; i < total; i++) data[i] = checked(flat[i], i);
    }
  } else {
    fail('notObject', { got: describe(value) });
  }
  const full = shape.length === 3 ? [1, ...shape] : [...shape];
  const [, , Tq, Tk] = full;
  const madeUp = (n, prefix) => Array.from({ length: n }, (_, i) => `${prefix}${i}`);
  const queryTokens = labels(source.tokens ?? given ?? null, Tq, 'tokens', madeUp(Tq, 't'));
  const keyTokens = labels(source.keyTokens, Tk, 'keyTokens', Tk === Tq ? queryTokens : madeUp(Tk, 's'));
  return { shape: full, data, tokens: queryTokens, keyTokens, title: text(source.title), source: text(source.source) };
}

/** The text of an attention file → readAttention's result; refuses what is not safe JSON first. */
export function parseAttention(json, options) {
  // Four levels at most as nested arrays, plus the object around them.
  // Arrays are not walked for prototype keys: every element of one is checked as a number or a
  // label, which no object passes.
  return readAttention(parseImportText(json, { maxBytes: MAX_ATTENTION_BYTES, maxDepth: 6, walkArrays: false }), options);
}
