// A config imported into the docs page: an exported snapshot file ({ tool: 'mha-lens', config,
// tokens, … }) or a plain config object, read from untrusted text. Only the config fields are
// taken; anything malformed, huge, deeply nested or carrying prototype keys is refused with a
// code the page words in the reader's language. The engine then judges the values themselves.
// No DOM: tests/js/config-import.test.js.
import { DEFAULT_STATE } from './page-state.js';
import { formatBytes } from '../format.js';
import { isPlainObject } from '../../engine/values.js';
import { CONFIG_FIELDS, MAX_MADE_UP_TOKENS, parseTokens, withTokens } from '../config-input.js';
import { PageError } from '../../text/page-error.js';
import { MESSAGES } from '../../text/messages.js';
import { renderMessage } from '../../text/render.js';

/** Larger files are refused before they are read or parsed. */
export const MAX_IMPORT_BYTES = 5 * 2 ** 20;

/** Deeper nesting is refused before parsing (a snapshot is 3 levels deep). */
export const MAX_IMPORT_DEPTH = 16;

// The JSON each kind of config field takes (logic/config-input.js), named as the message names it,
// and whether null counts as not given. Tokens are read apart.
const JSON_TYPES = {
  number: { expected: 'number', fits: (value) => typeof value === 'number', nullable: true },
  text: { expected: 'string', fits: (value) => typeof value === 'string', nullable: false },
  bias: { expected: 'boolean', fits: (value) => typeof value === 'boolean', nullable: false },
  numbers: { expected: 'numbers', fits: (value) => Array.isArray(value) && value.every((n) => typeof n === 'number'), nullable: true },
};
const FORBIDDEN_KEYS = new Set(['__proto__', 'constructor', 'prototype']);

/**
 * An import refused: `code` names the reason (its words are `import.error.<code>`), `params` fill
 * them. Like every error the page shows, it says itself: `messageIn(lang)`.
 */
export class ImportError extends PageError {
  constructor(code, params = {}) {
    super({ code, field: 'import', key: `import.error.${code}`, params });
    this.name = 'ImportError';
  }

  /** The reason in `lang` ('en' or 'zh'): sizes in binary units, the expected type in words (a term). */
  messageIn(lang) {
    const params = { ...this.params };
    if (this.code === 'tooLarge') Object.assign(params, { size: formatBytes(params.size), max: formatBytes(params.max) });
    if (params.expected !== undefined) params.expected = `import.type.${params.expected}`;
    return renderMessage(MESSAGES, this.key, params, lang);
  }
}

/** Refuses a size in bytes above the limit (call it with a File's size before reading it). */
export function checkImportSize(bytes, max = MAX_IMPORT_BYTES) {
  if (!(bytes <= max)) throw new ImportError('tooLarge', { size: bytes, max });
}

// The deepest nesting of [ and { outside strings, stopping as soon as it passes `max`: one linear
// scan, so a hostile file cannot make the parser recurse.
function nestingDepth(text, max) {
  let depth = 0;
  let deepest = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 92) i++; // backslash: skip the escaped character
      else if (c === 34) inString = false;
    } else if (c === 34) {
      inString = true;
    } else if (c === 91 || c === 123) {
      depth++;
      if (depth > deepest) deepest = depth;
      if (deepest > max) return deepest;
    } else if (c === 93 || c === 125) {
      depth--;
    }
  }
  return deepest;
}

// Any key that could reach an object's prototype, anywhere in the parsed value (iterative);
// with `walkArrays: false`, in objects that are not inside an array (a reader that checks every
// element of its arrays by type, as the attention file's does, needs no walk of 4 M numbers).
function forbiddenKey(value, walkArrays = true) {
  const stack = [value];
  while (stack.length) {
    const node = stack.pop();
    if (node === null || typeof node !== 'object') continue;
    if (!walkArrays && Array.isArray(node)) continue;
    for (const key of Object.keys(node)) {
      if (FORBIDDEN_KEYS.has(key)) return key;
      stack.push(node[key]);
    }
  }
  return null;
}

/** JSON text → the parsed value, or ImportError('tooLarge' | 'tooDeep' | 'notJson' | 'forbiddenKey'). */
export function parseImportText(text, { maxBytes = MAX_IMPORT_BYTES, maxDepth = MAX_IMPORT_DEPTH, walkArrays = true } = {}) {
  if (typeof text !== 'string') throw new ImportError('notJson', { detail: typeof text });
  // UTF-16 length is at most the UTF-8 byte count… and at least a third of it: check both bounds cheaply.
  if (text.length > maxBytes) checkImportSize(text.length, maxBytes);
  if (text.length * 3 > maxBytes) checkImportSize(new TextEncoder().encode(text).length, maxBytes);
  if (text.trim() === '') throw new ImportError('empty', {});
  const depth = nestingDepth(text, maxDepth);
  if (depth > maxDepth) throw new ImportError('tooDeep', { max: maxDepth });
  let value;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ImportError('notJson', { detail: error.message.slice(0, 200) });
  }
  const key = forbiddenKey(value, walkArrays);
  if (key !== null) throw new ImportError('forbiddenKey', { key });
  return value;
}

const typeName = (value) => (value === null ? 'null' : Array.isArray(value) ? 'array' : typeof value);

/**
 * A parsed value → the playground's config state (only B, Tk, C, H, Hkv, mask, keyLengths, bias,
 * seed and tokens; every other field of a snapshot is left out). Types are checked here; whether
 * the sizes make a valid run is the engine's call. Fields not given take their defaults.
 */
export function configFromImport(value) {
  if (!isPlainObject(value)) throw new ImportError('notObject', { type: typeName(value) });
  const snapshot = value.tool === 'mha-lens' || isPlainObject(value.config);
  const source = snapshot ? value.config : value;
  if (!isPlainObject(source)) throw new ImportError('noConfig', {});
  const tokenSource = snapshot && source.tokens === undefined ? value.tokens : source.tokens;
  if (!CONFIG_FIELDS.some(({ field }) => source[field] !== undefined) && tokenSource === undefined) {
    throw new ImportError('noConfig', {});
  }
  for (const { field, kind } of CONFIG_FIELDS) {
    const value = source[field];
    const type = JSON_TYPES[kind];
    if (!type || value === undefined || (value === null && type.nullable) || type.fits(value)) continue;
    throw new ImportError('wrongType', { field, expected: type.expected });
  }

  let tokens = null;
  if (tokenSource !== undefined && tokenSource !== null) {
    if (typeof tokenSource === 'string') tokens = parseTokens(tokenSource);
    else if (Array.isArray(tokenSource) && tokenSource.every((t) => typeof t === 'string' || typeof t === 'number')) tokens = tokenSource.flatMap(parseTokens);
    else throw new ImportError('wrongType', { field: 'tokens', expected: 'strings' });
    if (tokens.length === 0) tokens = null;
  }
  const T = source.T;
  if (tokens && T !== undefined && T !== null && T !== tokens.length) {
    throw new ImportError('tokensMismatch', { T, n: tokens.length });
  }
  if (!tokens && T !== undefined && T !== null) {
    // T without tokens: t0, t1, … — only for a T the page could show; the engine names the rest.
    if (!Number.isInteger(T) || T < 1 || T > MAX_MADE_UP_TOKENS) throw new ImportError('badT', { T: String(T), max: MAX_MADE_UP_TOKENS });
    ({ tokens } = withTokens({ T }));
  }
  const lengths = source.keyLengths;
  return {
    tokens: tokens ? tokens.join(' ') : null,
    B: source.B ?? DEFAULT_STATE.B,
    Tk: source.Tk ?? null,
    C: source.C ?? DEFAULT_STATE.C,
    H: source.H ?? DEFAULT_STATE.H,
    Hkv: source.Hkv ?? null,
    mask: source.mask ?? DEFAULT_STATE.mask,
    keyLengths: Array.isArray(lengths) ? lengths.join(' ') : DEFAULT_STATE.keyLengths,
    bias: source.bias ?? DEFAULT_STATE.bias,
    seed: source.seed ?? DEFAULT_STATE.seed,
  };
}

/** Text → config state, or ImportError. */
export const importConfig = (text, options) => configFromImport(parseImportText(text, options));
