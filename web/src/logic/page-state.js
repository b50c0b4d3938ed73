// The page's state (config, tokens, selected step, heatmap step and head, language) to and from
// the URL, so a link opens the same view; and the controls' text turned into an engine config.
// Field names follow the walkthrough (and the embeddable elements' attributes); values are read
// by the one config reader (model/config-input.js). No DOM.
import { CONFIG_FIELDS, numberOrText, parseBias, parseTokens, readConfig } from '../model/config-input.js';

export const DEFAULT_TOKENS = { zh: '我 爱 深度 学习', en: 'I love deep learning' };

export const DEFAULT_STATE = {
  tokens: null, // null: the language's default sentence
  B: 2, Tk: null, C: 8, H: 2, Hkv: null,
  mask: 'none', keyLengths: '', bias: true, seed: 0,
  step: 'x', view: 'weights', batch: 0, head: 0,
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
  step: 'step', view: 'view', batch: 'batch', head: 'head',
};

const KIND = Object.fromEntries(CONFIG_FIELDS.map(({ field, kind }) => [field, kind]));

/** The state as URL search parameters; defaults are left out to keep links short. */
export function encodeState(state, lang) {
  const params = new URLSearchParams();
  for (const [key, name] of Object.entries(URL_KEYS)) {
    const value = state[key];
    if (value === null || value === undefined || value === DEFAULT_STATE[key]) continue;
    params.set(name, typeof value === 'boolean' ? (value ? '1' : '0') : String(value));
  }
  if (lang) params.set('lang', lang);
  return params;
}

/**
 * URL search parameters → { state, lang }. Numbers and bias are read as any config text is (a
 * blank number is not given); what cannot be read stays as text, for the engine to name.
 */
export function decodeState(search) {
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
  const lang = params.get('lang');
  return { state, lang: lang === 'zh' || lang === 'en' ? lang : null };
}
