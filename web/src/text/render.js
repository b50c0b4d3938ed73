// How a message is made from a template and parameters, for the engine's messages (its table,
// cpp/src/messages.cpp, which engine.js hands over as `engine.messages`) and for the page's own
// words (en.js, zh.js, through translate.js): one rule everywhere. `{name}` is the parameter
// `name` (nothing if absent); `{@name}` is the table entry whose key the parameter holds, filled
// with the same parameters. Any other brace, as in "{batch, head}" or '{"B": 2}', is text. No DOM.

const SLOT = /\{(@?)([A-Za-z_][A-Za-z0-9_]*)\}/g;

/**
 * `template` with its slots filled from `params`; `lookup(key)` gives the template of a `{@name}`
 * entry (undefined when there is none, which leaves the slot empty).
 */
export function fillSlots(template, params = {}, lookup = () => undefined, depth = 0) {
  return template.replace(SLOT, (_, term, name) => {
    const value = params !== null && Object.hasOwn(params, name) ? String(params[name]) : undefined;
    if (value === undefined) return '';
    if (!term) return value;
    const entry = depth < 2 ? lookup(value) : undefined;
    return entry === undefined ? '' : fillSlots(entry, params, lookup, depth + 1);
  });
}

/**
 * The message `key` of `table` ({key: {en, zh}}) in `lang`, with `params` filled in; the key
 * itself when the table lacks it.
 */
export function renderMessage(table, key, params = {}, lang = 'en') {
  const template = (entryKey) => {
    const entry = table?.[entryKey];
    return entry ? entry[lang] ?? entry.en : undefined;
  };
  const found = template(key);
  return found === undefined ? key : fillSlots(found, params, template);
}
