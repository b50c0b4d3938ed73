// How a message is made from a template and parameters, for the messages (cpp/data/messages.json:
// the engine's, which engine.js hands over as `engine.messages`, and the page's own, messages.js)
// and for the page's words (en.js, zh.js, through translate.js): one rule everywhere, the one
// cpp/src/messages.cpp follows. `{name}` is the parameter `name` (nothing if absent); `{@name}` is
// the table entry whose key the parameter holds, filled with the same parameters;
// `{name:list}`, `{name:or}` and `{name:and}` are a list parameter (an array) joined as the
// language joins lists (the terms term.join.list, .or and .and). Any other brace, as in
// "{batch, head}" or '{"B": 2}', is text. No DOM.

const SLOT = /\{(@?)([A-Za-z_][A-Za-z0-9_]*)(?::(list|or|and))?\}/g;

// "a, b or c": the items with the language's separator, and its word before the last.
function joined(items, join, lookup) {
  const separator = lookup('term.join.list') ?? ', ';
  const last = join === 'list' ? separator : lookup(`term.join.${join}`) ?? separator;
  return items.map((item, i) => (i === 0 ? '' : i === items.length - 1 ? last : separator) + String(item)).join('');
}

/**
 * `template` with its slots filled from `params`; `lookup(key)` gives the template of a `{@name}`
 * entry (undefined when there is none, which leaves the slot empty).
 */
export function fillSlots(template, params = {}, lookup = () => undefined, depth = 0) {
  return template.replace(SLOT, (whole, term, name, join) => {
    if (term && join) return whole;  // a term is never a list: text, as the engine reads it
    const given = params !== null && Object.hasOwn(params, name) ? params[name] : undefined;
    if (given === undefined) return '';
    if (join) return joined(Array.isArray(given) ? given : [given], join, lookup);
    const value = Array.isArray(given) ? joined(given, 'list', lookup) : String(given);
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
