// Every message the engine can give is rendered in English and Chinese from its key and
// parameters (cpp/src/messages.cpp, through web/src/text/render.js): nothing parses a sentence.
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { renderMessage } from '../../web/src/text/render.js';

const base = { B: 2, T: 4, C: 8, H: 2 };
// One config per kind of problem the engine words differently.
const INVALID = [
  { ...base, B: 0 }, { ...base, T: -1 }, { ...base, Tk: 0 }, { ...base, C: 0 }, { ...base, H: 0 }, { ...base, Hkv: 0 },
  { ...base, T: 2_000_000 }, { ...base, B: 1e300 }, { ...base, C: 2.5 }, { ...base, H: NaN }, { ...base, B: Infinity },
  { ...base, B: '2' }, { ...base, B: null }, { ...base, B: [2] }, { ...base, B: {} }, { B: 2, T: 4, C: 8 }, { B: 2, T: 4, H: 2 },
  { B: 2, C: 8, H: 2 }, { T: 4, C: 8, H: 2 },
  { ...base, C: 10, H: 4 }, { ...base, C: 24, H: 6, Hkv: 4 }, { ...base, Hkv: 4 },
  { ...base, keyLengths: [4] }, { ...base, keyLengths: [4, 9] }, { ...base, keyLengths: 'all' }, { ...base, keyLengths: [1.5, 2] },
  { ...base, x: new Float32Array(3) }, { ...base, x: [...new Array(63).fill(0), NaN] }, { ...base, x: [...new Array(63).fill(0), -Infinity] },
  { ...base, x: 'abc' }, { ...base, x: [1, 'a'] }, { ...base, kv: new Float32Array(5) },
  { ...base, x: new Array(64).fill(1e30), weights: { Wq: new Array(64).fill(1e30), Wk: new Array(64).fill(1), Wv: new Array(64).fill(1), Wo: new Array(64).fill(1), bq: new Array(8).fill(0), bk: new Array(8).fill(0), bv: new Array(8).fill(0), bo: new Array(8).fill(0) } },
  { ...base, weights: {} }, { ...base, bias: false, weights: { Wq: new Array(64).fill(0), Wk: new Array(64).fill(0), Wv: new Array(64).fill(0), Wo: new Array(64).fill(0), bq: new Array(8).fill(0) } },
  { ...base, weights: { Wz: [1] } }, { ...base, weights: 5 },
  { ...base, mask: 'future' }, { ...base, mask: 3 }, { ...base, seed: -1 }, { ...base, seed: 2 ** 33 }, { ...base, bias: 'yes' },
  { ...base, snapshots: 'no' }, { ...base, memoryCap: 0 }, { ...base, memoryCap: 'lots' },
  { ...base, heads: 2 }, { ...base, hkv: 2 }, { ...base, '': 1 },
  { B: 1, T: 4096, C: 768, H: 12 }, { B: 1_000_000, T: 1_000_000, C: 1_000_000, H: 1_000_000, snapshots: false },
  { B: 1, T: 2048, C: 768, H: 12 }, { B: 1, T: 1, C: 8192, H: 8, snapshots: false }, { ...base, x: new BigInt64Array(64) },
  { ...base, keyLengths: [1, , ] }, { ...base, '\uDC00': 1 }, { ...base, x: [...new Array(63).fill(0), 1e39] },
  null, [1, 2],
];

let engine;
before(async () => {
  engine = await createEngine();
});

const hasChinese = (text) => /[\u4e00-\u9fff]/.test(text);

test('every entry of the message table has both languages', () => {
  const entries = Object.entries(engine.messages);
  assert.ok(entries.length > 60);
  for (const [key, { en, zh }] of entries) {
    assert.ok(en.length > 0 && zh.length > 0, key);
    if (!key.startsWith('term.')) assert.ok(hasChinese(zh), `${key} has no Chinese: ${zh}`);
  }
});

// An error's message in both languages: rendered, with its numbers, and no slot left over.
function checkRendered(error) {
  assert.ok(error.key in engine.messages, `${error.key} is not in the table`);
  assert.ok(error.key.startsWith(error.code), `${error.key} is not a ${error.code}`);
  const en = error.messageIn('en'), zh = error.messageIn('zh');
  assert.equal(en, error.message);
  assert.equal(en, renderMessage(engine.messages, error.key, error.params, 'en'));
  assert.ok(hasChinese(zh), `untranslated: ${en}`);
  for (const text of [en, zh]) assert.doesNotMatch(text, /\{@?\w+\}|term\./, text);
  // The numbers the message names survive the translation.
  for (const number of en.match(/\d+(\.\d+)?/g) ?? []) assert.ok(zh.includes(number), `${number} lost in: ${zh}`);
}

test('every engine error renders in both languages, keeping its numbers', () => {
  const keys = new Set();
  for (const config of INVALID) {
    let caught;
    try {
      engine.run(config);
    } catch (error) {
      caught = error;
    }
    assert.ok(caught, 'a config was accepted');
    checkRendered(caught);
    keys.add(caught.key);
  }
  assert.ok(keys.size >= 25, `${keys.size} kinds of message`);
});

test('fromTorch errors, unknown steps, slices, matmul and warnings render in both languages too', () => {
  const errors = [];
  const collect = (fn) => { try { fn(); } catch (error) { errors.push(error); } };
  collect(() => engine.fromTorch({ in_proj_weight: new Float32Array(47), out_proj_weight: new Float32Array(16) }));
  collect(() => engine.fromTorch({ in_proj_weight: new Float32Array(48), in_proj_bias: new Float32Array(12), out_proj_weight: new Float32Array(16) }));
  collect(() => engine.fromTorch({ in_proj_weight: 'w', out_proj_weight: new Float32Array(16) }));
  collect(() => engine.fromTorch(7));
  collect(() => engine.run(base).step('attention'));
  collect(() => engine.run({ ...base, snapshots: false }).step('weights'));
  collect(() => engine.fromTorch({ C: 2.5, in_proj_weight: new Float32Array(48), out_proj_weight: new Float32Array(16) }));
  const deep = {};
  let cursor = deep;
  for (let i = 0; i < 100_000; i++) cursor = cursor.next = {};
  collect(() => engine.run({ ...base, seed: deep }));
  const loop = {};
  loop.self = loop;
  collect(() => engine.run({ ...base, mask: loop }));
  collect(() => engine.run(base).step('q', { batch: 0, head: 0 }));
  collect(() => engine.run(base).step('weights', { batch: 5, head: 0 }));
  collect(() => engine.run(base).step('weights', { batch: '1', head: 0 }));
  collect(() => engine.run(base).step(Symbol('q')));
  collect(() => engine.matmul(new Float32Array(4), new Float32Array(4), { M: 0, K: 2, N: 2 }));
  collect(() => engine.matmul(new Float32Array(3), new Float32Array(4), { M: 2, K: 2, N: 2 }));
  collect(() => engine.matmul(new Float32Array(4), new Float32Array(4)));
  collect(() => engine.matmul(new Float32Array(65536), new Float32Array(65536), { M: 65536, K: 1, N: 65536 }));
  const released = engine.run(base);
  released.release();
  collect(() => released.step('q'));
  assert.equal(errors.length, 18);
  for (const error of errors) checkRendered(error);
  const warnings = engine.run({ ...base, keyLengths: [4, 0] }).warnings;
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].messageIn('zh'), '批次第 1 行、查询 0–3：所有键都被掩码，因此注意力权重全为 0（PyTorch 对这样的行返回 NaN）。');
});

test('the wording reads as intended', () => {
  assert.throws(() => engine.run({ ...base, C: 10, H: 4 }), (error) => {
    // A list parameter is a list: each language joins it its own way.
    assert.deepEqual(error.params, { C: '10', H: '4', divisors: ['1', '2', '5', '10'] });
    assert.equal(error.messageIn('zh'), 'C=10 不能被 H=4 整除：每个头需要 D = C/H 个特征。请从 C=10 的约数中选 H：1、2、5、10。');
    return true;
  });
  assert.throws(() => engine.run({ ...base, B: '2' }), (error) => error.messageIn('zh') === 'B 必须是≥ 1 的整数，而不是字符串 "2"。');
  assert.throws(() => engine.run(base).step('weights', { batch: '1', head: 0 }), { message: 'batch="1" is not a whole number from 0 to 1.' });
});
