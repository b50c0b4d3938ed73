// A trace of a learner's own attention module, as scripts/mha_lens_trace.py writes it (that
// script's docstring documents the format, "mha-lens/trace" version 1): read from untrusted
// text and checked field by field before anything runs, so that a bad file is refused with the
// field at fault (`records[3].data`) and what it should hold. Values come back as Float64Arrays
// with the strings "-Infinity", "Infinity" and "NaN" (JSON has no such numbers) decoded.
// No DOM: tests/js/check-trace.test.js.
import { isPlainObject } from '../../engine/values.js';
import { parseImportText } from '../page/config-import.js';

export const TRACE_FORMAT = 'mha-lens/trace';
export const TRACE_VERSION = 1;
/** A trace larger than this is refused before it is parsed (a B=2 T=128 C=768 trace is ~60 MB). */
export const MAX_TRACE_BYTES = 256 * 2 ** 20;
const MAX_DEPTH = 8; // root → records → record → data is 4 levels
const WEIGHT_NAMES = ['Wq', 'Wk', 'Wv', 'Wo'];
const BIAS_NAMES = ['bq', 'bk', 'bv', 'bo'];
const NON_FINITE = { '-Infinity': -Infinity, Infinity: Infinity, NaN: NaN };

/**
 * A trace that cannot be checked: `code` says why, `field` where (a path into the file), `params`
 * the numbers; `message` says it in English with what the field should hold.
 */
export class TraceError extends Error {
  constructor(code, field, params, message) {
    super(`${field}: ${message}`);
    this.name = 'TraceError';
    this.code = code;
    this.field = field;
    this.params = params;
  }
}

const typeName = (value) => (value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value === 'string' ? `the string ${JSON.stringify(value.slice(0, 40))}` : typeof value);
const isCount = (value, min) => Number.isInteger(value) && value >= min;

function need(ok, code, field, params, message) {
  if (!ok) throw new TraceError(code, field, params, message);
}

function object(value, field, what) {
  need(isPlainObject(value), 'notObject', field, { type: typeName(value) }, `must be an object (${what}), not ${typeName(value)}.`);
  return value;
}

function text(value, field, { optional = false } = {}) {
  if (optional && (value === undefined || value === null)) return null;
  need(typeof value === 'string', 'notText', field, { type: typeName(value) }, `must be a string, not ${typeName(value)}.`);
  return value;
}

/** { shape, data: Float64Array, dtype } from { shape, dtype, data }; `expected` checks the shape. */
export function readTensor(value, field, expected = null) {
  object(value, field, '{ shape, dtype, data }');
  const { shape, data } = value;
  need(Array.isArray(shape) && shape.every((n) => isCount(n, 0)), 'badShape', `${field}.shape`, {},
    `must be a list of whole numbers ≥ 0 (the tensor's sizes), not ${typeName(shape)}${Array.isArray(shape) ? ` ${JSON.stringify(shape).slice(0, 60)}` : ''}.`);
  if (expected) {
    need(shape.length === expected.length && shape.every((n, i) => n === expected[i]), 'wrongShape', `${field}.shape`,
      { shape, expected }, `is [${shape}], but the config makes it [${expected}].`);
  }
  const numel = shape.reduce((a, b) => a * b, 1);
  need(Array.isArray(data), 'badData', `${field}.data`, {}, `must be a list of numbers (row-major), not ${typeName(data)}.`);
  need(data.length === numel, 'dataLength', `${field}.data`, { n: data.length, numel, shape },
    `has ${data.length} values, but shape [${shape}] holds ${numel}.`);
  const out = new Float64Array(numel);
  for (let i = 0; i < numel; i++) {
    const v = data[i];
    if (typeof v === 'number') out[i] = v;
    else if (typeof v === 'string' && Object.hasOwn(NON_FINITE, v)) out[i] = NON_FINITE[v];
    else need(false, 'badValue', `${field}.data[${i}]`, { type: typeName(v) }, `must be a number or "-Infinity", "Infinity", "NaN", not ${typeName(v)}.`);
  }
  if (value.dtype !== undefined) text(value.dtype, `${field}.dtype`);
  return { shape: shape.slice(), data: out, dtype: value.dtype ?? 'float32' };
}

function readConfig(value) {
  const config = object(value, 'config', '{ B, T, C, H, mask, keyLengths, bias, seed }');
  for (const field of ['B', 'T', 'C', 'H']) {
    need(isCount(config[field], 1), 'badSize', `config.${field}`, { value: config[field] }, `must be a whole number ≥ 1, not ${typeName(config[field])}${typeof config[field] === 'number' ? ` ${config[field]}` : ''}.`);
  }
  const { B, T, C, H } = config;
  need(C % H === 0, 'notDivisible', 'config.H', { C, H }, `C=${C} is not divisible by H=${H}: every head needs D = C/H features.`);
  need(config.mask === 'none' || config.mask === 'causal', 'badMask', 'config.mask', { value: config.mask }, `must be "none" or "causal", not ${typeName(config.mask)}.`);
  let keyLengths = null;
  if (config.keyLengths !== undefined && config.keyLengths !== null) {
    need(Array.isArray(config.keyLengths) && config.keyLengths.length === B && config.keyLengths.every((n) => Number.isInteger(n) && n >= 1 && n <= T),
      'badKeyLengths', 'config.keyLengths', { B, T }, `must be B=${B} whole numbers from 1 to T=${T} (each batch row's keys that are not padding), or null.`);
    keyLengths = config.keyLengths.slice();
  }
  need(typeof config.bias === 'boolean', 'badBias', 'config.bias', {}, `must be true or false, not ${typeName(config.bias)}.`);
  return { B, T, C, H, D: C / H, mask: config.mask, keyLengths, bias: config.bias, seed: config.seed ?? null };
}

function readWeights(value, config) {
  const weights = object(value, 'weights', 'Wq, Wk, Wv, Wo [C, C] and bq, bk, bv, bo [C] in the convention Q = X·Wq + bq');
  const { C } = config;
  const out = {};
  for (const name of WEIGHT_NAMES) out[name] = readTensor(weights[name], `weights.${name}`, [C, C]);
  if (config.bias) for (const name of BIAS_NAMES) out[name] = readTensor(weights[name], `weights.${name}`, [C]);
  const from = isPlainObject(weights.from) ? weights.from : {};
  return { tensors: out, source: typeof weights.source === 'string' ? weights.source : 'unknown', from };
}

function readRecord(value, field) {
  const record = object(value, field, '{ name, line, source, shape, data, fromInput }');
  const name = text(record.name, `${field}.name`);
  need(record.line === null || isCount(record.line, 0), 'badLine', `${field}.line`, {}, `must be a line number, not ${typeName(record.line)}.`);
  const source = text(record.source, `${field}.source`, { optional: true }) ?? '';
  need(typeof record.fromInput === 'boolean', 'badFromInput', `${field}.fromInput`, {}, `must be true or false (whether the tensor was computed from x), not ${typeName(record.fromInput)}.`);
  const tensor = readTensor(record, field);
  return {
    name, line: record.line, source, fromInput: record.fromInput, ...tensor,
    kind: record.kind === 'argument' ? 'argument' : 'assignment',
    function: typeof record.function === 'string' ? record.function : null,
  };
}

function readError(value) {
  if (value === undefined || value === null) return null;
  object(value, 'error', '{ type, message, line, source }');
  const [type, message] = ['type', 'message'].map((name) => text(value[name], `error.${name}`));
  return {
    type,
    message,
    line: isCount(value.line, 0) ? value.line : null,
    source: typeof value.source === 'string' ? value.source : null,
  };
}

/** A parsed trace → its checked contents, or a TraceError naming the first field at fault. */
export function readTrace(value) {
  object(value, '(file)', `a trace written by mha_lens_trace.py: "format": "${TRACE_FORMAT}"`);
  need(value.format === TRACE_FORMAT, 'notTrace', 'format', { value: value.format },
    `must be "${TRACE_FORMAT}", not ${typeName(value.format)}: this file was not written by mha_lens_trace.py.`);
  need(Number.isInteger(value.version), 'badVersion', 'version', {}, `must be a whole number, not ${typeName(value.version)}.`);
  need(value.version <= TRACE_VERSION, 'newerVersion', 'version', { version: value.version },
    `is ${value.version}, newer than this mha-lens reads (${TRACE_VERSION}): update mha-lens, or trace with the mha_lens_trace.py it ships.`);
  need(value.version >= 1, 'badVersion', 'version', {}, `must be ${TRACE_VERSION}, not ${value.version}.`);
  const module = object(value.module, 'module', '{ path, class, args, kwargs }');
  const config = readConfig(value.config);
  const inputs = object(value.inputs, 'inputs', '{ x, mask }');
  const x = readTensor(inputs.x, 'inputs.x', [config.B, config.T, config.C]);
  const weights = readWeights(value.weights, config);
  need(Array.isArray(value.records), 'badRecords', 'records', {}, `must be a list of the recorded tensors, not ${typeName(value.records)}.`);
  const records = value.records.map((record, i) => readRecord(record, `records[${i}]`));
  const error = readError(value.error);
  const output = value.output === undefined || value.output === null ? null : readTensor(value.output, 'output');
  need(output !== null || error !== null, 'noOutput', 'output', {}, "is missing: a trace without an error holds the forward's output.");
  const returnedWeights = value.returnedWeights === undefined || value.returnedWeights === null ? null : readTensor(value.returnedWeights, 'returnedWeights');
  return {
    module: { path: text(module.path, 'module.path', { optional: true }) ?? '', className: text(module.class, 'module.class') },
    config, x, weights, records, output, returnedWeights, error,
    mask: isPlainObject(value.call) && isPlainObject(value.call.mask) ? value.call.mask : null,
  };
}

/** Trace text (a file's contents) → readTrace's result. Not JSON, too big or too deep: a TraceError. */
export function parseTrace(textValue) {
  let value;
  try {
    value = parseImportText(textValue, { maxBytes: MAX_TRACE_BYTES, maxDepth: MAX_DEPTH });
  } catch (error) {
    throw new TraceError(error.code ?? 'notJson', '(file)', error.params ?? {}, error.messageIn ? error.messageIn('en') : error.message);
  }
  return readTrace(value);
}

/** The engine config that runs the traced module's computation: the same x, weights and mask. */
export function engineConfig(trace) {
  const { B, T, C, H, mask, keyLengths, bias } = trace.config;
  const weights = {};
  for (const [name, tensor] of Object.entries(trace.weights.tensors)) weights[name] = Float32Array.from(tensor.data);
  const config = { B, T, C, H, mask, bias, x: Float32Array.from(trace.x.data), weights };
  if (keyLengths) config.keyLengths = keyLengths;
  return config;
}
