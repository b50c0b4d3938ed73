// How a message is rendered from its key and parameters: the rule of the engine's message table
// (cpp/src/messages.cpp, which engine.js hands over as `engine.messages`). `{name}` is the
// parameter `name` (nothing if absent); `{@name}` is the table entry whose key the parameter holds,
// rendered with the same parameters. Any other brace, as in "{batch, head}", is text. No DOM.

const SLOT = /\{(@?)([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * The message `key` of `table` ({key: {en, zh}}) in `lang`, with `params` filled in; the key
 * itself when the table lacks it.
 */
export function renderMessage(table, key, params = {}, lang = 'en', depth = 0) {
  const entry = table?.[key];
  if (!entry) return key;
  const template = entry[lang] ?? entry.en;
  return template.replace(SLOT, (_, term, name) => {
    const value = Object.hasOwn(params, name) ? String(params[name]) : undefined;
    if (value === undefined) return '';
    if (!term) return value;
    return depth < 2 && table[value] ? renderMessage(table, value, params, lang, depth + 1) : '';
  });
}
