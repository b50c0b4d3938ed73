import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_STATE, DEFAULT_TOKENS, decodeState, encodeState, engineConfig } from '../../web/src/logic/page-state.js';
import { parseKeyLengths, parseTokens } from '../../web/src/model/config-input.js';
import { getTestEngine } from './engine-helper.js';

test('a state survives the URL round trip, language included', () => {
  const state = { ...DEFAULT_STATE, tokens: '我 爱 自然语言处理', B: 3, Tk: 6, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: '6 3 1', bias: false, seed: 42, step: 'weights', view: 'masked', batch: 2, head: 3 };
  const params = encodeState(state, 'zh');
  assert.deepEqual(decodeState(`?${params}`), { state, lang: 'zh' });
});

test('defaults stay out of the URL, and an empty URL gives the classic example', () => {
  assert.equal(encodeState(DEFAULT_STATE, null).toString(), '');
  const { state, lang } = decodeState('');
  assert.deepEqual(state, DEFAULT_STATE);
  assert.equal(lang, null);
  const config = engineConfig(state, 'zh');
  assert.deepEqual([config.B, config.T, config.C, config.H], [2, 4, 8, 2], 'B=2, T=4, C=8, H=2');
  assert.equal(parseTokens(DEFAULT_TOKENS.en).length, 4, 'both default sentences have T = 4 tokens');
});

test('unreadable values reach the engine as they are, so its message can name them', async () => {
  const { state } = decodeState('?c=ten&h=&lang=fr');
  assert.equal(state.C, 'ten');
  const engine = await getTestEngine();
  assert.throws(() => engine.run(engineConfig(state)), (error) => error.field === 'C');
  assert.equal(decodeState('?lang=fr').lang, null);
});

test('T follows the tokens, blank Tk/Hkv are left to the engine, key lengths parse', () => {
  const config = engineConfig({ ...DEFAULT_STATE, tokens: '  the  cat sat ', Tk: '', Hkv: null, keyLengths: '3，1' });
  assert.equal(config.T, 3);
  assert.ok(!('Tk' in config) && !('Hkv' in config));
  assert.deepEqual(config.keyLengths, [3, 1]);
  assert.equal(parseKeyLengths('  '), null);
  assert.deepEqual(parseKeyLengths('4 x'), [4, 'x']);
  assert.deepEqual(parseTokens('我 爱\t深度学习'), ['我', '爱', '深度学习']);
});
