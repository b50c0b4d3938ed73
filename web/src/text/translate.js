// The page's words in the reader's language: t(key, params) looks `key` up in en.js or zh.js and
// fills its {name} slots from `params` with the rule the engine's messages follow (render.js).
// A key a language lacks falls back to English, then to the key itself. No DOM.
import { fillSlots } from './render.js';
import { EN } from './en.js';
import { ZH } from './zh.js';

export const LANGUAGES = ['en', 'zh'];

export const STRINGS = { en: EN, zh: ZH };

/** 'zh' for any Chinese tag (zh, zh-CN, zh-Hans-TW, …), 'en' otherwise. */
export const languageOf = (tag) => (String(tag ?? '').toLowerCase().startsWith('zh') ? 'zh' : 'en');

/** t(key, params) for `lang` ('en' or 'zh'). */
export function translator(lang) {
  const table = STRINGS[lang] ?? EN;
  const lookup = (key) => table[key] ?? EN[key];
  const t = (key, params) => {
    const template = lookup(key);
    return template === undefined ? key : fillSlots(template, params, lookup);
  };
  t.lang = STRINGS[lang] ? lang : 'en';
  return t;
}
