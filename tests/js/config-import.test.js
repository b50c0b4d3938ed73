// Import config (JSON), the pure part: what is taken from a snapshot or a plain config, and
// every kind of malformed, huge or hostile input refused with its reason, before the engine sees it.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ImportError, MAX_IMPORT_BYTES, MAX_IMPORT_DEPTH, checkImportSize, configFromImport, importConfig, parseImportText } from '../../web/src/logic/page/config-import.js';
import { DEFAULT_STATE, engineConfig } from '../../web/src/logic/page/page-state.js';
import { snapshotJson } from '../../web/src/logic/page/snapshot-file.js';
import { getTestEngine } from './engine-helper.js';

const refused = (fn, code, params) => assert.throws(fn, (error) => {
  assert.ok(error instanceof ImportError, `${error}`);
  assert.equal(error.code, code, error.message);
  if (params) for (const [key, value] of Object.entries(params)) assert.equal(error.params[key], value);
  return true;
});

test('an exported snapshot gives back its config and tokens, nothing else', async () => {
  const engine = await getTestEngine();
  const config = { B: 1, T: 3, C: 12, H: 4, Hkv: 2, mask: 'causal', bias: false, seed: 7, Tk: 5, keyLengths: [4] };
  const run = engine.run(config);
  // What the page's Export button writes (logic/page/snapshot-file.js).
  const state = importConfig(snapshotJson({ config, tokens: ['a', 'b', 'c'], run }));
  assert.deepEqual(state, { tokens: 'a b c', B: 1, Tk: 5, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: '4', bias: false, seed: 7 });
  assert.deepEqual(engineConfig({ ...DEFAULT_STATE, ...state }, 'en'), config, 'the page runs the same config again');
});

test('a plain config: missing fields take the defaults, tokens from T or from text', () => {
  assert.deepEqual(importConfig('{"C": 12, "H": 3}'), { tokens: null, B: 2, Tk: null, C: 12, H: 3, Hkv: null, mask: 'none', keyLengths: '', bias: true, seed: 0 });
  assert.equal(importConfig('{"T": 3}').tokens, 't0 t1 t2');
  assert.equal(importConfig('{"tokens": " I  love\\tattention "}').tokens, 'I love attention');
  assert.equal(importConfig('{"tokens": ["I", "love"], "T": 2}').tokens, 'I love');
  assert.equal(importConfig('{"tokens": ["a b", "c"]}').tokens, 'a b c', 'a token with a space is two tokens, as in the box');
  // Unknown keys of a plain config (weights, x, anything) are not taken.
  const state = importConfig('{"C": 8, "weights": {"Wq": [1]}, "x": [1, 2], "onload": "alert(1)"}');
  assert.deepEqual(Object.keys(state).sort(), ['B', 'C', 'H', 'Hkv', 'Tk', 'bias', 'keyLengths', 'mask', 'seed', 'tokens']);
  // Hostile text is kept as text: the page renders it as text and the engine judges it.
  assert.equal(importConfig('{"tokens": ["<img src=x onerror=alert(1)>"]}').tokens, '<img src=x onerror=alert(1)>');
  assert.equal(importConfig('{"mask": "\\"><script>alert(1)</script>"}').mask, '"><script>alert(1)</script>');
});

test('not JSON, empty, not an object, no config: refused with the reason', () => {
  refused(() => importConfig('{"C": 8,'), 'notJson');
  refused(() => importConfig('<img src=x onerror=alert(1)>'), 'notJson');
  refused(() => importConfig("{'C': 8}"), 'notJson');
  refused(() => importConfig('   '), 'empty');
  refused(() => importConfig(42), 'notJson');
  refused(() => importConfig('[1, 2]'), 'notObject', { type: 'array' });
  refused(() => importConfig('"B"'), 'notObject', { type: 'string' });
  refused(() => importConfig('null'), 'notObject', { type: 'null' });
  refused(() => importConfig('{}'), 'noConfig');
  refused(() => importConfig('{"summary": {"B": 2}}'), 'noConfig');
  refused(() => importConfig('{"tool": "mha-lens", "config": 5}'), 'noConfig');
});

test('wrong types are refused naming the field', () => {
  refused(() => importConfig('{"C": "8"}'), 'wrongType', { field: 'C', expected: 'number' });
  refused(() => importConfig('{"B": [2]}'), 'wrongType', { field: 'B' });
  refused(() => importConfig('{"H": {"valueOf": 2}}'), 'wrongType', { field: 'H' });
  refused(() => importConfig('{"mask": 1}'), 'wrongType', { field: 'mask', expected: 'string' });
  refused(() => importConfig('{"bias": "yes"}'), 'wrongType', { field: 'bias', expected: 'boolean' });
  refused(() => importConfig('{"keyLengths": "4 2"}'), 'wrongType', { field: 'keyLengths' });
  refused(() => importConfig('{"keyLengths": [4, "2"]}'), 'wrongType', { field: 'keyLengths' });
  refused(() => importConfig('{"tokens": [{"a": 1}]}'), 'wrongType', { field: 'tokens' });
  refused(() => importConfig('{"tool": "mha-lens", "config": {"C": true}}'), 'wrongType', { field: 'C' });
  refused(() => importConfig('{"tokens": ["a", "b"], "T": 3}'), 'tokensMismatch', { T: 3, n: 2 });
  refused(() => importConfig('{"T": 1e9}'), 'badT');
  refused(() => importConfig('{"T": 2.5}'), 'badT');
  refused(() => importConfig('{"T": -1}'), 'badT');
});

test('huge input is refused before parsing', () => {
  const big = `{"tokens": "${'a '.repeat(MAX_IMPORT_BYTES / 2)}"}`;
  let parsed = false;
  const realParse = JSON.parse;
  JSON.parse = (...args) => { parsed = true; return realParse(...args); };
  try {
    refused(() => importConfig(big), 'tooLarge', { max: MAX_IMPORT_BYTES });
    // Multi-byte characters count in bytes (UTF-8), not in UTF-16 units.
    refused(() => importConfig(`{"tokens": "${'深'.repeat(Math.ceil(MAX_IMPORT_BYTES / 3) + 10)}"}`), 'tooLarge');
  } finally {
    JSON.parse = realParse;
  }
  assert.equal(parsed, false, 'JSON.parse never saw it');
  refused(() => checkImportSize(MAX_IMPORT_BYTES + 1), 'tooLarge', { size: MAX_IMPORT_BYTES + 1 });
  checkImportSize(MAX_IMPORT_BYTES);
  refused(() => checkImportSize(Number.NaN), 'tooLarge');
  // Just under the limit is read.
  assert.equal(importConfig(`{"C": 8, "pad": "${'x'.repeat(MAX_IMPORT_BYTES - 100)}"}`).C, 8);
});

test('deep nesting is refused before parsing, brackets inside strings do not count', () => {
  refused(() => importConfig(`${'['.repeat(100000)}${']'.repeat(100000)}`), 'tooDeep', { max: MAX_IMPORT_DEPTH });
  refused(() => importConfig(`{"C": 8, "x": ${'{"a":'.repeat(MAX_IMPORT_DEPTH)}1${'}'.repeat(MAX_IMPORT_DEPTH)}}`), 'tooDeep');
  assert.equal(importConfig(`{"C": 12, "tokens": "${'[{'.repeat(1000)} \\" ${'[{'.repeat(10)}"}`).C, 12);
  assert.equal(parseImportText(`${'['.repeat(MAX_IMPORT_DEPTH)}${']'.repeat(MAX_IMPORT_DEPTH)}`).length, 1);
});

test('__proto__, constructor and prototype keys are refused anywhere, and nothing is polluted', () => {
  refused(() => importConfig('{"__proto__": {"polluted": 1}, "C": 8}'), 'forbiddenKey', { key: '__proto__' });
  refused(() => importConfig('{"tool": "mha-lens", "config": {"C": 8, "__proto__": {"B": 99}}}'), 'forbiddenKey');
  refused(() => importConfig('{"C": 8, "summary": [{"constructor": {"prototype": {"x": 1}}}]}'), 'forbiddenKey', { key: 'constructor' });
  refused(() => importConfig('{"C": 8, "prototype": 1}'), 'forbiddenKey');
  assert.equal({}.polluted, undefined);
  assert.equal({}.B, undefined);
});
