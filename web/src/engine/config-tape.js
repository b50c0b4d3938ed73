// A config object as one Float64Array, for the engine's config reader to read in one crossing
// (cpp/bindings/js_config.cpp reads it back: TapeValue). The tape keeps what the reader asks of a
// JS value and nothing else, seen as JSON.stringify would see it: own enumerable keys only, a key
// holding undefined, a function or a symbol holds nothing, a BigInt reads as its number, a hole
// in an array is missing. Text (keys, strings, the digits of a number that is not a whole number)
// goes as UTF-16 code units, a string's as JSON writes it (a lone surrogate as \udc00). Values
// below the second level are kept as their kind and length only: the reader never looks inside.
// No DOM.

/** The tape's value kinds, in cpp/bindings/js_config.cpp's order. */
export const TAPE = {
  null: 0, missing: 1, boolean: 2, number: 3, special: 4, string: 5, array: 6, object: 7, shallowArray: 8, other: 9,
};

const holdsValue = (value) => value !== undefined && typeof value !== 'function' && typeof value !== 'symbol';

// JSON's text of a string without its quotes, \" and \\ as written: what a message shows.
function readable(text) {
  const json = JSON.stringify(text);
  return json.slice(1, -1).replace(/\\(["\\])/g, '$1');
}

function pushText(out, text) {
  out.push(text.length);
  for (let i = 0; i < text.length; i++) out.push(text.charCodeAt(i));
}

const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/u;

function encode(value, depth, out) {
  if (!holdsValue(value) || value === null) return out.push(TAPE.null);
  if (typeof value === 'boolean') return out.push(TAPE.boolean, value ? 1 : 0);
  if (typeof value === 'number' || typeof value === 'bigint') {
    const n = Number(value);
    if (!Number.isFinite(n)) return out.push(TAPE.special, n);
    out.push(TAPE.number, n);
    // A whole number the reader writes itself; any other, as JS writes it ("2.5", "1e+21").
    return pushText(out, Number.isSafeInteger(n) ? '' : String(value));
  }
  if (typeof value === 'string') {
    out.push(TAPE.string);
    return pushText(out, readable(value));
  }
  if (typeof value !== 'object') return out.push(TAPE.other);
  if (Array.isArray(value)) {
    if (depth >= 2) return out.push(TAPE.shallowArray, value.length);
    out.push(TAPE.array, value.length);
    for (let i = 0; i < value.length; i++) {
      if (Object.hasOwn(value, i)) encode(value[i], depth + 1, out);
      else out.push(TAPE.missing);
    }
    return undefined;
  }
  // An object: its keys at the top level (the config's); below it only that it is one.
  // A key with a lone surrogate does not survive UTF-8: it goes as JSON writes it, marked, and
  // the reader refuses it (rather than drop it), whatever it holds.
  if (depth > 0) return out.push(TAPE.object, 0);
  const keys = Object.keys(value).filter((key) => LONE_SURROGATE.test(key) || holdsValue(value[key]));
  out.push(TAPE.object, keys.length);
  for (const key of keys) {
    const unreadable = LONE_SURROGATE.test(key);
    out.push(unreadable ? 1 : 0);
    pushText(out, unreadable ? readable(key) : key);
    encode(value[key], depth + 1, out);
  }
  return undefined;
}

/** `config` (an object of the config's own keys, without its tensors) as a tape. */
export function configTape(config) {
  const out = [];
  encode(config, 0, out);
  return Float64Array.from(out);
}
