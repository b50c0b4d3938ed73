// The attribute table and the values between an attribute's text and its property
// (logic/attributes.js, logic/attribute-values.js): what a framework passes becomes the text the
// attribute would hold, the property reads it back as a JS value, and nothing throws.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { ATTRIBUTE_DOCS, ELEMENT_ATTRIBUTES, ELEMENT_EVENTS, attributeInfo, attributesOf, eventProp, propertyName } from '../../web/src/logic/attributes.js';
import { attributeText, propertyValue } from '../../web/src/logic/attribute-values.js';
import { CONFIG_ATTRIBUTES } from '../../web/src/logic/config-input.js';

test('every attribute of every element is in the table, with a kind, a doc and a camelCase property', () => {
  for (const [tag, names] of Object.entries(ELEMENT_ATTRIBUTES)) {
    assert.equal(new Set(names).size, names.length, `${tag} lists an attribute twice`);
    for (const info of attributesOf(tag)) {
      assert.ok(info, `${tag}: an attribute missing from the table`);
      assert.ok(info.kind && ATTRIBUTE_DOCS[info.name], `${tag} ${info.name}`);
      assert.match(info.property, /^[a-z][a-zA-Z]*$/, info.name);
    }
    assert.ok(ELEMENT_EVENTS[tag]['mha-error'], `${tag} fires mha-error`);
  }
  // The run elements take every config attribute the config reader reads.
  for (const tag of ['mha-walkthrough', 'mha-heatmap', 'mha-shapes']) for (const name of CONFIG_ATTRIBUTES) assert.ok(ELEMENT_ATTRIBUTES[tag].includes(name), `${tag} ${name}`);
  assert.equal(propertyName('key-lengths'), 'keyLengths');
  assert.equal(propertyName('wasm-url'), 'wasmUrl');
  assert.equal(eventProp('mha-train-step'), 'onMhaTrainStep');
  assert.equal(attributeInfo('nonsense'), null);
});

test('a framework value becomes the text the attribute would hold', () => {
  const cases = [
    ['number', 12, '12'], ['number', '12', '12'], ['number', 0.01, '0.01'], ['number', null, null], ['number', undefined, null],
    ['words', ['the', 'cat', 'sat'], 'the cat sat'], ['words', 'the cat', 'the cat'], ['words', ['我', '爱'], '我 爱'],
    ['numbers', [3, 2], '3 2'], ['numbers', '3 2', '3 2'],
    ['bias', false, 'false'], ['bias', true, 'true'], ['bias', 'off', 'off'],
    ['flag', true, ''], ['flag', false, null], ['flag', '', ''], ['flag', null, null],
    ['text', 'causal', 'causal'],
  ];
  for (const [kind, value, text] of cases) assert.equal(attributeText(kind, value), text, `${kind} ${JSON.stringify(value)}`);
});

test('no value makes a property throw: a Symbol, a throwing toString, an object become text the element refuses', () => {
  const hostile = [Symbol('s'), { toString() { throw new Error('no'); } }, { a: 1 }, () => 1, NaN, -Infinity, 10n, Object.create(null)];
  for (const kind of ['number', 'text', 'words', 'numbers', 'bias', 'flag']) {
    for (const value of hostile) {
      const text = attributeText(kind, value);
      assert.equal(typeof text, 'string', `${kind} ${String(typeof value)}`);
      assert.doesNotThrow(() => propertyValue(kind, text));
    }
    assert.doesNotThrow(() => attributeText(kind, [Symbol('in a list')]));
  }
});

test('a property reads its attribute back as a JS value', () => {
  assert.equal(propertyValue('number', '12'), 12);
  assert.equal(propertyValue('number', 'twelve'), 'twelve'); // the engine names it
  assert.equal(propertyValue('number', null), null);
  assert.deepEqual(propertyValue('words', 'the  cat sat'), ['the', 'cat', 'sat']);
  assert.deepEqual(propertyValue('numbers', '3, 2'), [3, 2]);
  assert.equal(propertyValue('bias', 'false'), false);
  assert.equal(propertyValue('flag', ''), true);
  assert.equal(propertyValue('flag', null), false);
  // Text → value → text keeps the attribute's meaning.
  for (const [kind, text] of [['number', '12'], ['words', 'a b c'], ['numbers', '3 2'], ['bias', 'false'], ['flag', '']]) {
    assert.equal(attributeText(kind, propertyValue(kind, text)), text, kind);
  }
});
