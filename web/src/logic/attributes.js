// The one table of the elements' attributes: which element takes which, what kind of value each
// holds and what it means. Everything else is read from it: each element's observedAttributes and
// its same-named properties (elements/base/properties.js), the attribute check's list
// (logic/page/attribute-check.js), the React components' props (logic/react-props.js), and the
// generated custom-elements.json and JSX/Vue/Svelte typings (scripts/generate_element_types.js,
// checked by tests/js/element-types.test.js). No DOM.

/**
 * What each kind of value is, as text and as a JS value: `ts` is the TypeScript type a framework
 * prop takes, `text` says what the attribute's text holds.
 *   number  12 (a string "12" too); text the engine cannot read is kept, so its message names it
 *   text    a word or a URL
 *   words   "the cat sat": one token per word, or an array of tokens
 *   numbers "3 2": numbers, or an array of them
 *   bias    true/false (the words on/off, yes/no, 1/0 too)
 *   flag    on when present: a boolean as a property
 */
export const KINDS = {
  number: { ts: 'number | string', json: 'number' },
  text: { ts: 'string', json: 'string' },
  words: { ts: 'string | string[]', json: 'string' },
  numbers: { ts: 'string | number[]', json: 'string' },
  bias: { ts: 'boolean | string', json: 'boolean' },
  flag: { ts: 'boolean', json: 'boolean' },
};

// Every attribute once: its kind and its values when they are a fixed set.
const ATTRIBUTES = {
  b: { kind: 'number' },
  t: { kind: 'number' },
  tk: { kind: 'number' },
  c: { kind: 'number' },
  h: { kind: 'number' },
  hkv: { kind: 'number' },
  mask: { kind: 'text', values: ['none', 'causal'] },
  'key-lengths': { kind: 'numbers' },
  bias: { kind: 'bias' },
  seed: { kind: 'number' },
  tokens: { kind: 'words' },
  for: { kind: 'text' },
  'wasm-url': { kind: 'text' },
  theme: { kind: 'text', values: ['auto', 'light', 'dark'] },
  controls: { kind: 'text', values: ['all', 'none'] },
  lang: { kind: 'text', values: ['en', 'zh'] },
  step: { kind: 'text' },
  from: { kind: 'text' },
  to: { kind: 'text' },
  current: { kind: 'text' },
  batch: { kind: 'number' },
  head: { kind: 'number' },
  only: { kind: 'flag' },
  pinned: { kind: 'flag' },
  scale: { kind: 'text', values: ['uniform', 'head', 'fixed', 'shared'] },
  average: { kind: 'flag' },
  'cell-size': { kind: 'number' },
  'label-length': { kind: 'number' },
  src: { kind: 'text' },
  'trained-href': { kind: 'text' },
  'embed-base': { kind: 'text' },
  task: { kind: 'text', values: ['reverse', 'sort', 'previous', 'induction'] },
  layers: { kind: 'number' },
  heads: { kind: 'number' },
  lr: { kind: 'number' },
  dropout: { kind: 'number' },
  probe: { kind: 'numbers' },
  trained: { kind: 'flag' },
  compare: { kind: 'flag' },
  worker: { kind: 'text', values: ['auto', 'none'] },
};

/**
 * What each attribute does, for the manifest, the typings and the docs (a separate table, so that
 * the elements' bundle, which needs only the kinds, does not carry the sentences).
 */
export const ATTRIBUTE_DOCS = {
  b: 'batch rows B',
  t: 'query length T (tokens set it: one per word)',
  tk: 'key length Tk (cross-attention when it differs from T)',
  c: 'model width C',
  h: 'heads H (C must divide by H)',
  hkv: 'K/V heads Hkv (GQA/MQA when fewer than H)',
  mask: 'the mask (a padding mask comes from key-lengths)',
  'key-lengths': 'padding mask: how many keys each batch row keeps',
  bias: 'projection biases (false: none)',
  seed: 'seed of the random weights and input',
  tokens: 'token labels, one per word: they set T, and B=1 unless b is given',
  for: 'id of another element whose run this one shows',
  'wasm-url': 'where the .wasm is (else the meta tag, the global setting, or beside the script)',
  theme: 'colours: the host page\'s (auto), or forced light or dark',
  controls: 'none: hide the element\'s controls',
  lang: 'the element\'s language (else the page\'s)',
  step: 'the step shown (walkthrough: pinned to it; heatmap: weights, scores, scaled or masked)',
  from: 'first step of the walkthrough\'s range',
  to: 'last step of the walkthrough\'s range',
  current: 'the step highlighted in the chain',
  batch: 'selected batch row',
  head: 'selected head',
  only: 'draw the selected panel only',
  pinned: 'no step picker',
  scale: 'colour scale',
  average: 'the mean over heads',
  'cell-size': 'pixels per cell',
  'label-length': 'most characters of a token label',
  src: 'precomputed attention file (JSON) to draw instead of a run',
  'trained-href': 'link to trained weights, shown beside seeded ones',
  'embed-base': 'where the playground\'s "Copy embed code" points',
  task: 'the task the model learns',
  layers: 'transformer layers',
  heads: 'heads per layer',
  lr: 'learning rate',
  dropout: 'attention dropout',
  probe: 'the probe sequence the heads are drawn over',
  trained: 'open from the task\'s trained checkpoint',
  compare: 'each head at step 0 beside now',
  worker: 'none: train on the page\'s thread',
};

const CONFIG = ['b', 't', 'tk', 'c', 'h', 'hkv', 'mask', 'key-lengths', 'bias', 'seed', 'tokens'];
const COMMON = ['for', 'wasm-url', 'lang', 'theme', 'controls'];

/** The attributes each element takes, in the order an author would write them. */
export const ELEMENT_ATTRIBUTES = {
  'mha-walkthrough': [...CONFIG, ...COMMON, 'step', 'from', 'to'],
  'mha-heatmap': [...CONFIG, ...COMMON, 'step', 'batch', 'head', 'only', 'pinned', 'scale', 'average', 'cell-size', 'label-length', 'src', 'trained-href'],
  'mha-shapes': [...CONFIG, ...COMMON, 'current'],
  'mha-playground': [...CONFIG.filter((name) => name !== 't'), 'lang', 'theme', 'trained-href', 'embed-base'],
  'mha-trainer': ['task', 'layers', 'heads', 'lr', 'dropout', 'seed', 'probe', 'trained', 'compare', 'lang', 'theme', 'controls', 'wasm-url', 'worker'],
};

/** The events each element fires (bubbling, composed), with what their detail holds. */
export const ELEMENT_EVENTS = {
  'mha-walkthrough': { 'mha-step': 'MhaStepEvent', 'mha-run': 'MhaRunEvent', 'mha-error': 'MhaErrorEvent' },
  'mha-heatmap': { 'mha-select': 'MhaSelectEvent', 'mha-run': 'MhaRunEvent', 'mha-error': 'MhaErrorEvent' },
  'mha-shapes': { 'mha-step': 'MhaStepEvent', 'mha-run': 'MhaRunEvent', 'mha-error': 'MhaErrorEvent' },
  'mha-playground': { 'mha-state': 'MhaStateEvent', 'mha-error': 'MhaErrorEvent' },
  'mha-trainer': { 'mha-train-step': 'MhaTrainStepEvent', 'mha-train-done': 'MhaTrainDoneEvent', 'mha-train-view': 'MhaTrainViewEvent', 'mha-train-state': 'MhaTrainStateEvent', 'mha-error': 'MhaErrorEvent' },
};

/** The element tags, in the README's order. */
export const ELEMENT_TAGS = Object.keys(ELEMENT_ATTRIBUTES);

/** An attribute's entry: { name, property, kind, values }. */
export function attributeInfo(name) {
  const entry = ATTRIBUTES[name];
  return entry ? { name, property: propertyName(name), ...entry } : null;
}

/** The attributes of element `tag` with their entries. */
export const attributesOf = (tag) => (ELEMENT_ATTRIBUTES[tag] ?? []).map(attributeInfo);

/** A property's name for an attribute: camelCase (key-lengths → keyLengths), as Vue and React look it up. */
export const propertyName = (attribute) => attribute.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());

/** An event's React prop: mha-step → onMhaStep. */
export const eventProp = (event) => `on${event.split('-').map((word) => word[0].toUpperCase() + word.slice(1)).join('')}`;
