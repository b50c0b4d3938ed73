// The page's state (config, tokens, selected step, heatmap step and head, language) to and from
// the URL, so a link opens the same view; and the controls' text turned into an engine config.
// Field names follow the walkthrough (and the embeddable elements' attributes). No DOM.

export const DEFAULT_TOKENS = { zh: '我 爱 深度 学习', en: 'I love deep learning' };

export const DEFAULT_STATE = {
  tokens: null, // null: the language's default sentence
  B: 2, Tk: null, C: 8, H: 2, Hkv: null,
  mask: 'none', keyLengths: '', bias: true, seed: 0,
  step: 'x', view: 'weights', batch: 0, head: 0,
};

/** One token per whitespace-separated word. */
export const parseTokens = (text) => String(text ?? '').trim().split(/\s+/u).filter(Boolean);

// A number the engine can judge: a blank field is "not given", anything else goes through as a
// number (or as the text itself, so the engine's message can name it).
function numberOrText(text) {
  const trimmed = String(text ?? '').trim();
  if (trimmed === '') return null;
  const number = Number(trimmed);
  return Number.isFinite(number) ? number : trimmed;
}

/** "4 2" or "4,2" → [4, 2]; blank → null (no padding mask). */
export function parseKeyLengths(text) {
  const parts = String(text ?? '').trim().split(/[\s,，]+/u).filter(Boolean);
  if (parts.length === 0) return null;
  return parts.map((part) => (Number.isFinite(Number(part)) ? Number(part) : part));
}

/** The engine config for a state; T is the token count. */
export function engineConfig(state, lang = 'en') {
  const tokens = parseTokens(state.tokens ?? DEFAULT_TOKENS[lang] ?? DEFAULT_TOKENS.en);
  const config = { B: numberOrText(state.B), T: tokens.length, C: numberOrText(state.C), H: numberOrText(state.H), mask: state.mask, bias: Boolean(state.bias), seed: numberOrText(state.seed) ?? 0 };
  const Tk = numberOrText(state.Tk);
  if (Tk !== null) config.Tk = Tk;
  const Hkv = numberOrText(state.Hkv);
  if (Hkv !== null) config.Hkv = Hkv;
  const keyLengths = parseKeyLengths(state.keyLengths);
  if (keyLengths) config.keyLengths = keyLengths;
  return config;
}

const URL_KEYS = {
  tokens: 'tokens', B: 'b', Tk: 'tk', C: 'c', H: 'h', Hkv: 'hkv', mask: 'mask', keyLengths: 'key-lengths',
  bias: 'bias', seed: 'seed', step: 'step', view: 'view', batch: 'batch', head: 'head',
};

/** The state as URL search parameters; defaults are left out to keep links short. */
export function encodeState(state, lang) {
  const params = new URLSearchParams();
  for (const [key, name] of Object.entries(URL_KEYS)) {
    const value = state[key];
    if (value === null || value === undefined || value === DEFAULT_STATE[key]) continue;
    if (key === 'bias') params.set(name, value ? '1' : '0');
    else params.set(name, String(value));
  }
  if (lang) params.set('lang', lang);
  return params;
}

const INTEGER_KEYS = new Set(['B', 'C', 'H', 'seed', 'batch', 'head']);

/** URL search parameters → { state, lang }; a missing or unreadable value keeps its default. */
export function decodeState(search) {
  const params = new URLSearchParams(search);
  const state = { ...DEFAULT_STATE };
  for (const [key, name] of Object.entries(URL_KEYS)) {
    if (!params.has(name)) continue;
    const raw = params.get(name);
    if (key === 'bias') state.bias = !['0', 'false', 'no'].includes(raw);
    else if (INTEGER_KEYS.has(key)) state[key] = raw.trim() === '' || !Number.isFinite(Number(raw)) ? raw : Number(raw);
    else if (key === 'Tk' || key === 'Hkv') state[key] = raw.trim() === '' ? null : Number.isFinite(Number(raw)) ? Number(raw) : raw;
    else state[key] = raw;
  }
  const lang = params.get('lang');
  return { state, lang: lang === 'zh' || lang === 'en' ? lang : null };
}
