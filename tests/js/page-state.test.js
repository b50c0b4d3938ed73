import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEFAULT_STATE, DEFAULT_TOKENS, MAX_URL_LENGTH, decodeState, encodeLocation, encodeState, engineConfig, isStateHash } from '../../web/src/logic/page/page-state.js';
import { parseKeyLengths, parseTokens } from '../../web/src/logic/config-input.js';
import { getTestEngine } from './engine-helper.js';

test('a state survives the URL round trip, language included', () => {
  const state = { ...DEFAULT_STATE, tokens: '我 爱 自然语言处理', B: 3, Tk: 6, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: '6 3 1', bias: false, seed: 42, step: 'weights', view: 'masked', batch: 2, head: 3, scale: 'head', average: true };
  const params = encodeState(state, 'zh');
  assert.deepEqual(decodeState(`?${params}`), { state, lang: 'zh', cut: null });
});

test('defaults stay out of the URL, and an empty URL gives the classic example', () => {
  assert.equal(encodeState(DEFAULT_STATE, null).toString(), '');
  const { state, lang, cut } = decodeState('');
  assert.equal(cut, null);
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

test('defaults stay out of the URL however the controls hold them (text, not numbers)', () => {
  // The controls hand the state text: "8" is C's default 8, "0" the default seed, "" no key lengths.
  const edited = { ...DEFAULT_STATE, B: '2', C: '8', H: ' 2 ', seed: '0', keyLengths: '', Tk: '', Hkv: '', mask: 'none', bias: true, tokens: null, batch: '0', head: 0 };
  assert.equal(encodeState(edited, null).toString(), '');
  assert.equal(encodeState({ ...edited, seed: '7' }, null).toString(), 'seed=7');
  assert.equal(encodeState({ ...edited, C: '16', H: '4' }, 'en').toString(), 'c=16&h=4&lang=en');
});

test('a long token list goes in the hash, a longer one is cut and the URL says how many there were', () => {
  const short = encodeLocation({ ...DEFAULT_STATE, tokens: 'a b c' }, 'en');
  assert.deepEqual(short, { search: '?tokens=a+b+c&lang=en', hash: '' });
  // 400 tokens: too long for the query, not for the hash.
  const words = Array.from({ length: 400 }, (_, i) => `w${i}`);
  const medium = encodeLocation({ ...DEFAULT_STATE, tokens: words.join(' '), C: 16 }, 'en');
  assert.equal(medium.search, '?c=16&lang=en');
  assert.ok(isStateHash(medium.hash));
  assert.ok(!isStateHash('#trained'));
  assert.deepEqual(decodeState(medium.search, medium.hash).state.tokens.split(' '), words);
  // 1,200 Chinese tokens (a 16,856-character URL): cut to fit, with t=1200.
  const many = Array.from({ length: 1200 }, (_, i) => `词${i}`);
  const base = '/mha-lens/index.html';
  const long = encodeLocation({ ...DEFAULT_STATE, tokens: many.join(' ') }, 'zh', { base });
  assert.ok(base.length + long.search.length + long.hash.length <= MAX_URL_LENGTH, `${base.length + long.search.length + long.hash.length} characters`);
  assert.match(long.search, /[?&]t=1200\b/);
  const back = decodeState(long.search, long.hash);
  const tokens = back.state.tokens.split(' ');
  assert.equal(tokens.length, 1200, 'T stays 1,200: the same run');
  assert.ok(back.cut.given > 100 && back.cut.given < 1200, `${back.cut.given} labels kept`);
  assert.deepEqual(back.cut, { given: back.cut.given, total: 1200 });
  assert.deepEqual(tokens.slice(0, back.cut.given), many.slice(0, back.cut.given));
  assert.equal(tokens[back.cut.given], `t${back.cut.given}`, 'the rest are named t<i>');
  assert.equal(engineConfig(back.state).T, 1200);
});

test('the hash is read only when it holds tokens; a broken escape stays text', () => {
  assert.equal(decodeState('?c=16', '#trained').state.tokens, null);
  assert.equal(decodeState('', '#tokens=a%20b').state.tokens, 'a b');
  assert.equal(decodeState('', '#tokens=%E0%A4').state.tokens, '%E0%A4');
  assert.equal(decodeState('?tokens=x+y', '#tokens=a').state.tokens, 'x y', 'the query wins');
  assert.equal(decodeState('?t=99999999', '#tokens=a').cut, null, 'no millions of made-up labels');
});
