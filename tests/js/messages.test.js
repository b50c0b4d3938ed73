// Every message the engine can give has a Chinese wording (web/src/messages.js).
import assert from 'node:assert/strict';
import { before, test } from 'node:test';

import { createEngine } from '../../web/src/engine.js';
import { localizeMessage } from '../../web/src/messages.js';

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
  null, [1, 2],
];

let engine;
before(async () => {
  engine = await createEngine();
});

const hasChinese = (text) => /[\u4e00-\u9fff]/.test(text);

test('every engine error has a Chinese wording that keeps its numbers', () => {
  const untranslated = [];
  let count = 0;
  for (const config of INVALID) {
    let message;
    try {
      engine.run(config);
    } catch (error) {
      message = error.message;
    }
    assert.ok(message, `no error for ${JSON.stringify(config)}`);
    count++;
    const zh = localizeMessage(message, 'zh');
    if (zh === message || !hasChinese(zh)) untranslated.push(message);
    // The numbers the message names survive the translation.
    for (const number of message.match(/\d+(\.\d+)?/g) ?? []) assert.ok(zh.includes(number), `${number} lost in: ${zh}`);
  }
  assert.deepEqual(untranslated, []);
  assert.ok(count >= 50, `${count} invalid configs`);
});

test('fromTorch errors, unknown steps and warnings are translated too', () => {
  const messages = [];
  const collect = (fn) => { try { fn(); } catch (error) { messages.push(error.message); } };
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
  collect(() => engine.matmul(new Float32Array(4), new Float32Array(4), { M: 0, K: 2, N: 2 }));
  collect(() => engine.matmul(new Float32Array(3), new Float32Array(4), { M: 2, K: 2, N: 2 }));
  const released = engine.run(base);
  released.release();
  collect(() => released.step('q'));
  messages.push(...engine.run({ ...base, keyLengths: [4, 0] }).warnings);
  assert.equal(messages.length, 14 + 4);
  for (const message of messages) {
    const zh = localizeMessage(message, 'zh');
    assert.ok(zh !== message && hasChinese(zh), `untranslated: ${message}`);
  }
});

test('the wording reads as intended, and English passes through unchanged', () => {
  const message = 'C=10 is not divisible by H=4: every head needs D = C/H features. Choose H from the divisors of C=10: 1, 2, 5, 10.';
  assert.equal(localizeMessage(message, 'zh'), 'C=10 不能被 H=4 整除：每个头需要 D = C/H 个特征。请从 C=10 的约数中选 H：1, 2, 5, 10。');
  assert.equal(localizeMessage(message, 'en'), message);
  assert.equal(localizeMessage('B must be a whole number ≥ 1, not the string "2".', 'zh'), 'B 必须是≥ 1 的整数，而不是字符串 "2"。');
});
