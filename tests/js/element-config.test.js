import { test } from 'node:test';
import assert from 'node:assert/strict';
import { CLASSIC, CONFIG_ATTRIBUTES, configFromAttributes, configFromProperty } from '../../web/src/model/config-input.js';
import { getTestEngine } from './engine-helper.js';

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
  assert.deepEqual(configFromProperty({ C: 12, H: 3, tokens: ['a', 'b', 'c'] }), { config: { ...CLASSIC, C: 12, H: 3, T: 3 }, tokens: ['a', 'b', 'c'] });
  assert.equal(configFromProperty({ tokens: 'x y' }).config.T, 2);
  assert.equal(configFromProperty({ T: 5 }).tokens.length, 5);
});
