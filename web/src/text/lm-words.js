// The language-model section's words (lm-en.js, lm-zh.js), loaded with its drawing code rather
// than with every page's bundle: withLmWords(t) is the page's t(key, params) that also knows them,
// by the same slot rule (render.js). No DOM.
import { fillSlots } from './render.js';
import { LM_EN } from './lm-en.js';
import { LM_ZH } from './lm-zh.js';

export const LM_STRINGS = { en: LM_EN, zh: LM_ZH };

/** `t` (translate.js translator(lang)) with the section's words added in t.lang. */
export function withLmWords(t) {
  const table = LM_STRINGS[t.lang] ?? LM_EN;
  const lookup = (key) => table[key] ?? LM_EN[key];
  const words = (key, params) => {
    const template = lookup(key);
    return template === undefined ? t(key, params) : fillSlots(template, params, lookup);
  };
  words.lang = t.lang;
  return words;
}
