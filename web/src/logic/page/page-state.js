// The page's state (config, tokens, selected step, heatmap step, scale, head and view, language)
// to and from the URL, so a link opens the same view; and the controls' text turned into an
// engine config. Field names follow the walkthrough (and the embeddable elements' attributes);
// values are read by the one config reader (logic/config-input.js). No DOM.
import { CONFIG_FIELDS, numberOrText, parseBias, parseTokens, readConfig } from '../config-input.js';

export const DEFAULT_TOKENS = { zh: '我 爱 深度 学习', en: 'I love deep learning' };

export const DEFAULT_STATE = {
  tokens: null, // null: the language's default sentence
  B: 2, Tk: null, C: 8, H: 2, Hkv: null,
  mask: 'none', keyLengths: '', bias: true, seed: 0,
  step: 'x', view: 'weights', batch: 0, head: 0,
  scale: null, // null: the heatmap's default scale for its step
  average: false, // the heatmap shows the mean over heads
};

/** The engine config for a state (the controls' text, read as any config text is); T is the token count. */
export function engineConfig(state, lang = 'en') {
  const { config } = readConfig((field) => (field === 'T' || field === 'tokens' ? null : state[field]));
  config.T = parseTokens(state.tokens ?? DEFAULT_TOKENS[lang] ?? DEFAULT_TOKENS.en).length;
  return config;
}

// The URL names a config field as its element attribute does; then what only the page shows.
const URL_KEYS = {
  ...Object.fromEntries(CONFIG_FIELDS.filter(({ field }) => field !== 'T').map(({ field, attribute }) => [field, attribute])),
  step: 'step', view: 'view', batch: 'batch', head: 'head', scale: 'scale', average: 'avg',
};

const KIND = { ...Object.fromEntries(CONFIG_FIELDS.map(({ field, kind }) => [field, kind])), batch: 'number', head: 'number', average: 'bias' };

// A value as the URL would read it back: "8" and 8 are the same seed, "" and null the same
// (absent) key lengths. A value equal to its default this way stays out of the URL.
function normalized(key, value) {
  if (value === null || value === undefined) return null;
  if (KIND[key] === 'number') return numberOrText(value);
  if (KIND[key] === 'bias') return parseBias(value);
  const text = String(value).trim();
  return text === '' ? null : text;
}

const isDefault = (key, value) => normalized(key, value) === normalized(key, DEFAULT_STATE[key]) || normalized(key, value) === null;

/** The state as URL search parameters (tokens included); defaults are left out to keep links short. */
export function encodeState(state, lang) {
  const params = new URLSearchParams();
  for (const [key, name] of Object.entries(URL_KEYS)) {
    const value = state[key];
    if (isDefault(key, value)) continue;
    const read = normalized(key, value);
    params.set(name, typeof read === 'boolean' ? (read ? '1' : '0') : key === 'tokens' ? String(value).trim() : String(read));
  }
  if (lang) params.set('lang', lang);
  return params;
}

/**
 * The longest page URL the page writes (path, query and hash). Chat apps, mail clients and
 * servers' header limits cut or refuse links far longer than this; 1,200 tokens once made a
 * 16,856-character URL.
 */
export const MAX_URL_LENGTH = 4000;

/** The query holds the tokens up to this length; longer lists go in the hash (not sent to the server). */
export const MAX_QUERY_LENGTH = 1500;

const HASH_TOKENS = 'tokens=';

/**
 * { search, hash } for the state: the config in the query; the tokens in the query while it
 * stays short, else in the hash (#tokens=…), else as many as fit in the hash with `t` in the
 * query giving how many there are (the page names the rest t<i> and says the list was cut). The
 * whole URL, `base` (the path) included, stays within MAX_URL_LENGTH. `extra`: more [name, value]
 * pairs for the query (the trainer section's state).
 */
export function encodeLocation(state, lang, { base = '/', extra = [] } = {}) {
  const params = encodeState(state, lang);
  for (const [name, value] of extra) params.set(name, value); // another section's state (the trainer's)
  const tokens = params.get('tokens');
  if (tokens === null) return { search: queryText(params), hash: '' };
  const withTokens = queryText(params);
  if (withTokens.length <= MAX_QUERY_LENGTH && base.length + withTokens.length <= MAX_URL_LENGTH) return { search: withTokens, hash: '' };
  params.delete('tokens');
  const words = parseTokens(tokens);
  const hashOf = (n) => `#${HASH_TOKENS}${encodeURIComponent(words.slice(0, n).join(' '))}`;
  const room = MAX_URL_LENGTH - base.length;
  if (queryText(params).length + hashOf(words.length).length <= room) return { search: queryText(params), hash: hashOf(words.length) };
  params.set('t', String(words.length));
  const search = queryText(params);
  // The most tokens whose hash fits (binary search over the count: each is a prefix).
  let low = 0;
  let high = words.length;
  while (low < high) {
    const mid = Math.ceil((low + high) / 2);
    if (search.length + hashOf(mid).length <= room) low = mid; else high = mid - 1;
  }
  return { search, hash: low > 0 ? hashOf(low) : '' };
}

const queryText = (params) => {
  const text = params.toString();
  return text ? `?${text}` : '';
};

/** True for a hash the page wrote (the token list), false for an anchor such as #trained. */
export const isStateHash = (hash) => String(hash ?? '').replace(/^#/, '').startsWith(HASH_TOKENS);

/**
 * URL search parameters (and hash) → { state, lang, cut }. Numbers and bias are read as any config
 * text is (a blank number is not given); what cannot be read stays as text, for the engine to
 * name. Tokens come from the query or from a #tokens= hash; with `t` more than the tokens given,
 * the rest are named t<i> and `cut` says { given, total } so the page can say so.
 */
export function decodeState(search, hash = '') {
  const params = new URLSearchParams(search);
  const state = { ...DEFAULT_STATE };
  for (const [key, name] of Object.entries(URL_KEYS)) {
    if (!params.has(name)) continue;
    const raw = params.get(name);
    if (key === 'batch' || key === 'head') state[key] = numberOrText(raw) ?? 0;
    else if (KIND[key] === 'number') state[key] = numberOrText(raw);
    else if (KIND[key] === 'bias') state[key] = parseBias(raw);
    else state[key] = raw;
  }
  const hashText = String(hash ?? '').replace(/^#/, '');
  if (state.tokens === null && isStateHash(hashText)) {
    try {
      state.tokens = decodeURIComponent(hashText.slice(HASH_TOKENS.length));
    } catch {
      state.tokens = hashText.slice(HASH_TOKENS.length); // a broken escape stays text
    }
  }
  let cut = null;
  const total = Number(params.get('t'));
  if (params.has('t') && Number.isInteger(total) && total > 0) {
    const given = parseTokens(state.tokens ?? '');
    if (total > given.length && total <= MAX_CUT_TOKENS) {
      state.tokens = [...given, ...Array.from({ length: total - given.length }, (_, i) => `t${given.length + i}`)].join(' ');
      cut = { given: given.length, total };
    }
  }
  const lang = params.get('lang');
  return { state, lang: lang === 'zh' || lang === 'en' ? lang : null, cut };
}

// A cut list is filled up to its count with made-up labels, up to this many (a URL cannot ask the
// page to make millions of labels; the engine's memory cap refuses big T anyway).
const MAX_CUT_TOKENS = 65536;
