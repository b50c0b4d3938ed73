// The one reader of config text: element attributes, the page's controls and URL, the CLI and
// imported JSON read the same text as the same value.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { CLASSIC, CONFIG_ATTRIBUTES, CONFIG_FIELDS, configFromAttributes, configFromProperty, numberOrText, parseBias, readConfig } from '../../web/src/logic/config-input.js';
import { decodeState, engineConfig } from '../../web/src/logic/page/page-state.js';
import { configAttributes, EMBED_ATTRIBUTES } from '../../web/src/logic/page/embed-code.js';
import { getTestEngine } from './engine-helper.js';
import { ROOT } from './helpers.js';

const attributes = (values) => (name) => (name in values ? values[name] : null);

test('no attributes: the classic example with t0… labels', () => {
  const { config, tokens } = configFromAttributes(attributes({}));
  assert.deepEqual(config, CLASSIC);
  assert.deepEqual(tokens, ['t0', 't1', 't2', 't3']);
});

test('every attribute maps to its field, tokens set T', async () => {
  const { config, tokens } = configFromAttributes(attributes({
    b: '3', t: '9', tk: '5', c: '12', h: '4', hkv: '2', mask: 'causal', 'key-lengths': '5 4 1', bias: 'false', seed: '17', tokens: '我 爱 深度学习',
  }));
  assert.deepEqual(config, { B: 3, T: 3, Tk: 5, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: [5, 4, 1], bias: false, seed: 17 });
  assert.deepEqual(tokens, ['我', '爱', '深度学习']);
  assert.equal(CONFIG_ATTRIBUTES.length, 11);
  const run = (await getTestEngine()).run(config);
  assert.deepEqual(run.step('weights').shape, [3, 4, 3, 5]);
});

test('bad values reach the engine unchanged, so its message names the attribute\'s field', async () => {
  const engine = await getTestEngine();
  for (const [values, field] of [[{ c: 'ten' }, 'C'], [{ h: '3' }, 'H'], [{ 'key-lengths': '9 9' }, 'keyLengths'], [{ mask: 'sideways' }, 'mask'], [{ hkv: '3' }, 'Hkv']]) {
    const { config } = configFromAttributes(attributes(values));
    assert.throws(() => engine.run(config), (error) => error.field === field, JSON.stringify(values));
  }
  assert.equal(configFromAttributes(attributes({ bias: '' })).config.bias, true, 'a bare bias attribute means on');
  assert.equal(configFromAttributes(attributes({ t: '6' })).tokens.length, 6);
});

test('the config property: tokens as an array or text', () => {
  assert.deepEqual(configFromProperty({ C: 12, H: 3, tokens: ['a', 'b', 'c'] }), { config: { ...CLASSIC, B: 1, C: 12, H: 3, T: 3 }, tokens: ['a', 'b', 'c'] }, 'one sentence: one batch row');
  assert.equal(configFromProperty({ B: 3, tokens: ['a'] }).config.B, 3, 'unless B is given');
  assert.equal(configFromProperty({ C: 12 }).config.B, CLASSIC.B, 'no tokens: the classic example');
  assert.equal(configFromProperty({ tokens: 'x y' }).config.T, 2);
  assert.equal(configFromProperty({ T: 5 }).tokens.length, 5);
});

test('numbers: decimal text is a number, blank is not given, anything else stays text', () => {
  const cases = [['12', 12], [' 12 ', 12], ['-3', -3], ['+4', 4], ['2.5', 2.5], ['.5', 0.5], ['1e3', 1000], ['1E-2', 0.01],
    ['', null], ['   ', null], ['ten', 'ten'], ['0x10', '0x10'], ['0b11', '0b11'], ['Infinity', 'Infinity'], ['1e999', '1e999'],
    ['NaN', 'NaN'], ['4 2', '4 2'], [7, 7]];
  for (const [text, value] of cases) assert.equal(numberOrText(text), value, JSON.stringify(text));
});

test('bias: true/false/1/0/on/off (and yes/no) in any case, a bare attribute is on, other text goes to the engine', async () => {
  for (const text of ['', 'true', 'TRUE', '1', 'on', 'On', 'yes', ' true ']) assert.equal(parseBias(text), true, JSON.stringify(text));
  for (const text of ['false', 'False', '0', 'off', 'OFF', 'no', ' 0 ']) assert.equal(parseBias(text), false, JSON.stringify(text));
  assert.equal(parseBias(false), false);
  assert.equal(parseBias('maybe'), 'maybe');
  await assert.rejects(getTestEngine().then((engine) => engine.run({ ...CLASSIC, bias: parseBias('maybe') })), (error) => error.field === 'bias');
});

test('the same text reads the same in an attribute, the page\'s URL and controls, and the CLI', () => {
  const texts = ['12', ' 12 ', '1e1', '0x10', 'ten', '-2', ''];
  for (const text of texts) {
    const fromAttribute = configFromAttributes((name) => (name === 'c' ? text : null)).config.C;
    const fromUrl = engineConfig(decodeState(`?c=${encodeURIComponent(text)}`).state).C;
    const fromControl = engineConfig({ C: text, tokens: 'a b' }).C;
    const fromCli = readConfig((field) => ({ C: text })[field]).config.C;
    const expected = numberOrText(text) ?? undefined;
    assert.deepEqual([fromAttribute ?? undefined, fromUrl, fromControl, fromCli], [expected ?? CLASSIC.C, expected, expected, expected], JSON.stringify(text));
  }
  for (const text of ['off', '0', 'false', 'on', '1', 'true', '']) {
    const fromAttribute = configFromAttributes((name) => (name === 'bias' ? text : null)).config.bias;
    const fromUrl = engineConfig(decodeState(`?bias=${text}`).state).bias;
    assert.deepEqual([fromAttribute, fromUrl], [parseBias(text), parseBias(text)], `bias=${JSON.stringify(text)}`);
  }
});

test('the CLI reads its options with the same reader', () => {
  const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, 'walk', ...args], { encoding: 'utf8', timeout: 30_000 });
  // 0x2 is text to every reader: the engine names it, quoting what was typed.
  const hex = cli('--B', '0x2', '--T', '4', '--C', '8', '--H', '2');
  assert.equal(hex.status, 2);
  assert.match(hex.stderr, /B must be a whole number ≥ 1, not the string "0x2"/);
  // "4 2" and "4，2" are key lengths wherever they are typed.
  const spaced = cli('--B', '2', '--T', '4', '--C', '8', '--H', '2', '--key-lengths', '4 2');
  assert.equal(spaced.status, 0, spaced.stderr);
  assert.match(spaced.stdout, /padding mask \[4,2\]/);
});

test('one map of attributes to fields: elements, URL, embed code and the iframe route use it', () => {
  assert.deepEqual(CONFIG_FIELDS.map(({ field }) => field), ['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'mask', 'keyLengths', 'bias', 'seed', 'tokens']);
  for (const name of CONFIG_ATTRIBUTES) assert.ok(EMBED_ATTRIBUTES.includes(name), `the iframe route takes ${name}`);
  const state = { B: 3, Tk: 5, C: 12, H: 4, Hkv: 2, mask: 'causal', keyLengths: '5 4 1', bias: false, seed: 9 };
  const pairs = configAttributes(state, ['a', 'b']);
  const back = configFromAttributes((name) => pairs.find(([attribute]) => attribute === name)?.[1] ?? null);
  assert.deepEqual(back.config, engineConfig({ ...state, tokens: 'a b' }), 'embed attributes read back to the page\'s config');
});

test('one sentence in tokens means one batch row, unless b says otherwise', () => {
  assert.equal(configFromAttributes(attributes({ tokens: 'I love attention' })).config.B, 1);
  assert.equal(configFromAttributes(attributes({ tokens: 'I love attention', b: '2' })).config.B, 2);
  assert.equal(configFromAttributes(attributes({ t: '5' })).config.B, CLASSIC.B, 'no sentence: the classic example');
  assert.equal(configFromAttributes(attributes({ tokens: '  ' })).config.B, CLASSIC.B, 'an empty sentence is none');
});
