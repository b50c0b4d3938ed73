// A config as people write it — element attributes, the docs page's controls and URL, the CLI's
// options, an imported JSON file — read into the engine's config. One reader for all of them, so
// the same text means the same value wherever it is typed. What it cannot read goes to the engine
// as it was written, so that the engine's message names the field and quotes the text. No DOM:
// tests/js/config-input.test.js.

/**
 * The config fields a person writes, in the order an author would: the engine's field name, the
 * name of the element attribute (also the URL parameter, and the CLI option where the field's own
 * name is not used) and how its text is read.
 */
export const CONFIG_FIELDS = [
  { field: 'B', attribute: 'b', kind: 'number' },
  { field: 'T', attribute: 't', kind: 'number' },
  { field: 'Tk', attribute: 'tk', kind: 'number' },
  { field: 'C', attribute: 'c', kind: 'number' },
  { field: 'H', attribute: 'h', kind: 'number' },
  { field: 'Hkv', attribute: 'hkv', kind: 'number' },
  { field: 'mask', attribute: 'mask', kind: 'text' },
  { field: 'keyLengths', attribute: 'key-lengths', kind: 'numbers' },
  { field: 'bias', attribute: 'bias', kind: 'bias' },
  { field: 'seed', attribute: 'seed', kind: 'number' },
  { field: 'tokens', attribute: 'tokens', kind: 'tokens' },
];

/** The attributes that configure a run, in the order an author would write them. */
export const CONFIG_ATTRIBUTES = CONFIG_FIELDS.map(({ attribute }) => attribute);

/** The classic example the docs page opens on. */
export const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };

/** Tokens made up from T (t0, t1, …) when no tokens are given: no more than this many. */
export const MAX_MADE_UP_TOKENS = 4096;

// A decimal number as people type one: 4, -3, 2.5, .5, 1e3. Not 0x10, 0b1, Infinity or "": those
// stay text, and the engine's message quotes them.
const DECIMAL = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/** "12" → 12; blank → null (not given); anything else → the trimmed text, for the engine to name. */
export function numberOrText(text) {
  if (typeof text === 'number') return text;
  const trimmed = String(text ?? '').trim();
  if (trimmed === '') return null;
  const number = Number(trimmed);
  return DECIMAL.test(trimmed) && Number.isFinite(number) ? number : trimmed;
}

const TRUE_WORDS = ['', 'true', '1', 'on', 'yes'];
const FALSE_WORDS = ['false', '0', 'off', 'no'];

/**
 * true / false / 1 / 0 / on / off (and yes / no), in any case; a bare attribute (`bias`, empty
 * text) means on. Any other text is returned as it is, for the engine to name.
 */
export function parseBias(value) {
  if (typeof value === 'boolean') return value;
  const word = String(value ?? '').trim().toLowerCase();
  if (TRUE_WORDS.includes(word)) return true;
  if (FALSE_WORDS.includes(word)) return false;
  return String(value).trim();
}

/** One token per whitespace-separated word. */
export const parseTokens = (text) => String(text ?? '').trim().split(/\s+/u).filter(Boolean);

/** "4 2", "4,2" or "4，2" → [4, 2]; blank → null (no padding mask). */
export function parseKeyLengths(text) {
  const parts = String(text ?? '').trim().split(/[\s,，]+/u).filter(Boolean);
  return parts.length === 0 ? null : parts.map(numberOrText);
}

const READ = {
  number: numberOrText,
  text: (text) => String(text).trim() || null,
  numbers: parseKeyLengths,
  bias: parseBias,
  tokens: (text) => (Array.isArray(text) ? text.map(String) : parseTokens(text)),
};

/**
 * The fields whose text `get(field, attribute)` gives (null or undefined: not given), each read
 * by its kind; a blank number, mask or key-lengths field counts as not given. Returns
 * { config, tokens }: tokens (an array, possibly empty) only when given.
 */
export function readConfig(get) {
  const config = {};
  let tokens;
  for (const { field, attribute, kind } of CONFIG_FIELDS) {
    const text = get(field, attribute);
    if (text === null || text === undefined) continue;
    const value = READ[kind](text);
    if (field === 'tokens') tokens = value;
    else if (value !== null) config[field] = value;
  }
  return { config, tokens };
}

/**
 * Tokens set T (one per word); without them T comes from the config and the tokens are made up,
 * t0, t1, … (none for a T the page could not label). Returns { config, tokens }.
 */
export function withTokens(config, tokens = []) {
  if (tokens.length > 0) return { config: { ...config, T: tokens.length }, tokens };
  const { T } = config;
  const madeUp = Number.isInteger(T) && T > 0 && T <= MAX_MADE_UP_TOKENS ? Array.from({ length: T }, (_, i) => `t${i}`) : [];
  return { config, tokens: madeUp };
}

/**
 * An element's config from its attributes (`get(name)` returns an attribute's text or null),
 * over the classic example. An author who wrote one sentence (`tokens`) and no `b` means one
 * batch row: B = 1 then, not the classic example's 2 (a second row would be made-up input the
 * sentence does not belong to). Returns { config, tokens }.
 */
export function configFromAttributes(get) {
  const { config, tokens } = readConfig((field, attribute) => get(attribute));
  return withTokens({ ...CLASSIC, ...oneSentence(tokens, config), ...config }, tokens);
}

/**
 * A `config` property (a plain object in the walkthrough's names, tokens optional as an array or
 * text) → { config, tokens }. Its values go to the engine as they are; tokens without B mean one
 * batch row, as for attributes.
 */
export function configFromProperty(value) {
  const given = value?.tokens === undefined || value?.tokens === null ? undefined : READ.tokens(value.tokens);
  const { tokens, ...config } = { ...CLASSIC, ...oneSentence(given, value ?? {}), ...value };
  return withTokens(config, given ?? []);
}

// B = 1 when tokens (one sentence) are given and B is not.
const oneSentence = (tokens, config) => (tokens?.length > 0 && (config.B === undefined || config.B === null) ? { B: 1 } : {});
