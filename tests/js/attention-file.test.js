// Precomputed attention (web/src/logic/heatmap/attention-file.js): the example file written by
// scripts/export_attention.py reads back as its shape and values, every accepted form gives the
// same result, and everything malformed is refused with a message in both languages.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { AttentionError, parseAttention, readAttention } from '../../web/src/logic/heatmap/attention-file.js';
import { ROOT } from './helpers.js';

const EXAMPLE = readFileSync(`${ROOT}web/examples/attention.json`, 'utf8');

test('the example file from scripts/export_attention.py reads as [1, 2, 8, 8] with its tokens', () => {
  const raw = JSON.parse(EXAMPLE);
  const attention = parseAttention(EXAMPLE);
  assert.deepEqual(attention.shape, [1, ...raw.shape]);
  assert.deepEqual(Array.from(attention.data), Array.from(Float32Array.from(raw.data)));
  assert.deepEqual(attention.tokens, raw.tokens);
  assert.deepEqual(attention.keyTokens, raw.tokens, 'keys default to the query tokens');
  assert.equal(attention.title, raw.title);
  assert.equal(attention.source, raw.source);
});

test('nested arrays, { shape, data } and a whole file are the same attention', () => {
  const nested = [[[0.25, 0.75], [1, 0]], [[0.5, 0.5], [0.1, 0.9]]]; // [H=2, Tq=2, Tk=2]
  const flat = nested.flat(2);
  const a = readAttention(nested, { tokens: ['x', 'y'] });
  const b = readAttention({ shape: [2, 2, 2], data: flat }, { tokens: ['x', 'y'] });
  const c = readAttention({ format: 'mha-lens/attention', version: 1, tokens: ['x', 'y'], shape: [1, 2, 2, 2], data: Float32Array.from(flat) });
  for (const attention of [a, b, c]) {
    assert.deepEqual(attention.shape, [1, 2, 2, 2]);
    assert.deepEqual(Array.from(attention.data), Array.from(Float32Array.from(flat)));
    assert.deepEqual(attention.tokens, ['x', 'y']);
  }
  assert.deepEqual(readAttention(nested).tokens, ['t0', 't1'], 'labels made up when none are given');
  const cross = readAttention({ shape: [1, 2, 3], data: [0.2, 0.3, 0.5, 1, 0, 0] });
  assert.deepEqual(cross.keyTokens, ['s0', 's1', 's2']);
  assert.equal(readAttention({ shape: [1, 1, 1], data: [1.000001] }).data[0], 1, 'float32 rounding above 1 is kept at 1');
});

test('bad shapes, lengths and values are refused, naming where, in English and Chinese', () => {
  const cases = [
    [() => readAttention('weights'), 'notObject'],
    [() => readAttention({ format: 'bertviz', shape: [1, 1, 1], data: [1] }), 'format'],
    [() => readAttention({ version: 2, shape: [1, 1, 1], data: [1] }), 'version'],
    [() => readAttention({ shape: [2, 2], data: [1, 0, 0, 1] }), 'shape'],
    [() => readAttention({ shape: [1, 0, 2], data: [] }), 'shape'],
    [() => readAttention({ shape: [1, 2.5, 2], data: [] }), 'shape'],
    [() => readAttention({ shape: [1, 2, 2], data: [0.5, 0.5, 1] }), 'dataLength'],
    [() => readAttention({ shape: [1, 1, 2], data: [0.5, NaN] }), 'notFinite'],
    [() => readAttention({ shape: [1, 1, 2], data: [0.5, Infinity] }), 'notFinite'],
    [() => readAttention({ shape: [1, 1, 2], data: [1.5, 0] }), 'range'],
    [() => readAttention({ shape: [1, 1, 2], data: [-0.1, 1] }), 'range'],
    [() => readAttention({ shape: [1, 1, 2], data: ['0.5', 0.5] }), 'notNumber'],
    [() => readAttention({ shape: [1, 1, 2], data: [0.5, 0.5], tokens: ['a', 'b', 'c'] }), 'labelCount'],
    [() => readAttention({ shape: [1, 1, 2], data: [0.5, 0.5], tokens: [{}] }), 'labels'],
    [() => readAttention([[[0.5, 0.5], [1]]]), 'ragged'],
    [() => readAttention([[0.5, 0.5]]), 'rank'],
    [() => readAttention({ shape: [4096, 4096, 4096], data: [] }), 'tooBig'],
    [() => readAttention({ shape: [1, 1, 4096, 4096], data: [] }), 'tooBig'],
    [() => readAttention({ shape: [1, 1, 2048, 2048], data: new Float32Array(2048 * 2048) }), 'panelTooBig'],
    [() => readAttention({ shape: [1, 1, 150000, 2], data: new Float32Array(300000) }), 'panelTooBig'],
  ];
  for (const [call, code] of cases) {
    assert.throws(call, (error) => {
      assert.ok(error instanceof AttentionError, `${code}: ${error}`);
      assert.equal(error.code, code);
      const en = error.messageIn('en');
      const zh = error.messageIn('zh');
      assert.ok(!en.startsWith('attention.error') && !zh.startsWith('attention.error'), `${code} has words`);
      assert.notEqual(en, zh);
      assert.doesNotMatch(en, /\{\w+\}/, `${code}: every slot filled`);
      return true;
    });
  }
  const range = (() => { try { readAttention({ shape: [1, 1, 3], data: [0, 0, 7] }); } catch (error) { return error; } })();
  assert.match(range.messageIn('en'), /\[2\]/, 'names the index');
  assert.match(range.messageIn('en'), /7/, 'and the value');
});

test('the file text is checked as safe JSON before it is read', () => {
  assert.throws(() => parseAttention('{"shape": [1,1,1], "data": [1], "__proto__": {"x": 1}}'), (error) => error.code === 'forbiddenKey');
  assert.throws(() => parseAttention('<script>alert(1)</script>'), (error) => error.code === 'notJson');
  assert.throws(() => parseAttention('[[[[[[[[1]]]]]]]]'), (error) => error.code === 'tooDeep');
  assert.equal(Object.prototype.x, undefined);
});

test('a file of 65,536 tiny heads or of a long axis is read in well under a second, arrays not walked for keys', () => {
  const many = JSON.stringify({ shape: [65536, 1, 2, 2], data: new Array(65536 * 4).fill(0.5) });
  let start = performance.now();
  assert.deepEqual(parseAttention(many).shape, [65536, 1, 2, 2]);
  const manyMs = performance.now() - start;
  const long = JSON.stringify({ shape: [1, 1, 2048, 64], data: new Array(2048 * 64).fill(0.25) });
  start = performance.now();
  assert.deepEqual(parseAttention(long).shape, [1, 1, 2048, 64]);
  assert.ok(manyMs < 1000 && performance.now() - start < 1000, `${manyMs} ms`);
  // An object inside the data is refused as what it is, not let through unwalked.
  assert.throws(() => parseAttention('{"shape": [1, 1, 2], "data": [0.5, {"__proto__": {"x": 1}}]}'), (error) => error.code === 'notNumber');
  assert.throws(() => parseAttention('{"shape": [1, 1, 2], "data": [0.5, 0.5], "__proto__": {"x": 1}}'), (error) => error.code === 'forbiddenKey');
});
