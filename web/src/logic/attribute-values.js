// Between an attribute's text and the value its same-named property gives and takes
// (logic/attributes.js says each attribute's kind). A property takes what a framework passes — the
// attribute's text, or the natural JS value: a number, a boolean, an array of tokens — and never
// throws: a value it cannot use becomes text the element then refuses in its own words, as it
// would the same attribute. No DOM: tests/js/attribute-values.test.js.
import { numberOrText, parseBias, parseKeyLengths, parseTokens } from './config-input.js';

// Text of any value, even one String() throws on (a Symbol, an object with a throwing toString).
function textOf(value) {
  try {
    return String(value);
  } catch {
    try { return Object.prototype.toString.call(value); } catch { return '[value]'; }
  }
}

const listText = (value) => (Array.isArray(value) ? value.map(textOf).join(' ') : textOf(value));

/**
 * The attribute text for `value` set on a property of `kind`: null removes the attribute (null,
 * undefined, and false for a flag).
 */
export function attributeText(kind, value) {
  if (value === null || value === undefined) return null;
  if (kind === 'flag') {
    if (value === false) return null;
    return value === true ? '' : textOf(value);
  }
  if (kind === 'words' || kind === 'numbers') return listText(value);
  return textOf(value);
}

/**
 * The property's value for attribute text `text` (null: the attribute is absent): numbers as
 * numbers (text the engine cannot read stays text), lists as arrays, flags as booleans.
 */
export function propertyValue(kind, text) {
  if (kind === 'flag') return text !== null;
  if (text === null) return null;
  switch (kind) {
    case 'number': return numberOrText(text);
    case 'words': return parseTokens(text);
    case 'numbers': return parseKeyLengths(text) ?? [];
    case 'bias': return parseBias(text);
    default: return text;
  }
}
