// An embeddable element's config from its attributes, named as in the walkthrough (b, t, tk, c,
// h, hkv, mask, key-lengths, bias, seed, tokens). Values go to the engine as given, so the
// engine's own message names anything wrong. No DOM: tests/js/element-config.test.js.
import { parseKeyLengths, parseTokens } from '../logic/page-state.js';

/** The attributes that configure a run, in the order an author would write them. */
export const CONFIG_ATTRIBUTES = ['b', 't', 'tk', 'c', 'h', 'hkv', 'mask', 'key-lengths', 'bias', 'seed', 'tokens'];

/** The classic example the docs page opens on. */
export const CLASSIC = { B: 2, T: 4, C: 8, H: 2 };

const asNumber = (text) => {
  const trimmed = text.trim();
  return trimmed !== '' && Number.isFinite(Number(trimmed)) ? Number(trimmed) : trimmed;
};

/**
 * `get(name)` returns an attribute's text or null. Returns { config, tokens }: tokens set T (one
 * per whitespace-separated word); without them T comes from `t` and tokens are t0, t1, ….
 */
export function configFromAttributes(get) {
  const config = { ...CLASSIC };
  const numbers = { b: 'B', t: 'T', tk: 'Tk', c: 'C', h: 'H', hkv: 'Hkv', seed: 'seed' };
  for (const [attribute, field] of Object.entries(numbers)) {
    const value = get(attribute);
    if (value !== null && value.trim() !== '') config[field] = asNumber(value);
  }
  const mask = get('mask');
  if (mask !== null && mask.trim() !== '') config.mask = mask.trim();
  const bias = get('bias');
  if (bias !== null) config.bias = !['0', 'false', 'no', 'off'].includes(bias.trim().toLowerCase());
  const keyLengths = parseKeyLengths(get('key-lengths'));
  if (keyLengths) config.keyLengths = keyLengths;
  const tokenText = get('tokens');
  let tokens = tokenText === null ? [] : parseTokens(tokenText);
  if (tokens.length > 0) config.T = tokens.length;
  else tokens = Number.isInteger(config.T) && config.T > 0 && config.T <= 4096 ? Array.from({ length: config.T }, (_, i) => `t${i}`) : [];
  return { config, tokens };
}

/** A `config` property (plain object in the walkthrough's names, tokens optional) → { config, tokens }. */
export function configFromProperty(value) {
  const { tokens: tokenValue, ...config } = { ...CLASSIC, ...value };
  let tokens = Array.isArray(tokenValue) ? tokenValue.map(String) : parseTokens(tokenValue ?? '');
  if (tokens.length > 0) config.T = tokens.length;
  else tokens = Number.isInteger(config.T) && config.T > 0 && config.T <= 4096 ? Array.from({ length: config.T }, (_, i) => `t${i}`) : [];
  return { config, tokens };
}
