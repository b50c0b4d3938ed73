// A React component's props → the props React 19 gets for the custom element it renders
// (react.js). Each attribute's prop (camelCase or the attribute's own name) becomes the attribute's
// text under the attribute's name, so the server's HTML carries it and React sets the same text on
// the client (a property, which reflects); each event prop (onMhaStep) becomes React 19's listener
// prop for the event (`onmha-step`); anything else (id, className, ref, children, the data
// properties run, config, attention, state, options, labels) passes through. No DOM, no React:
// tests/js/react-props.test.js.
import { ELEMENT_EVENTS, attributesOf, eventProp } from './attributes.js';
import { attributeText } from './attribute-values.js';

const tables = new Map();
function tableOf(tag) {
  if (!tables.has(tag)) {
    const byProp = new Map();
    for (const info of attributesOf(tag)) {
      byProp.set(info.property, info);
      byProp.set(info.name, info);
    }
    const events = new Map(Object.keys(ELEMENT_EVENTS[tag] ?? {}).map((event) => [eventProp(event), `on${event}`]));
    tables.set(tag, { byProp, events });
  }
  return tables.get(tag);
}

/** The props of the `tag` element for a component's `props`. */
export function elementProps(tag, props) {
  const { byProp, events } = tableOf(tag);
  const out = {};
  for (const [key, value] of Object.entries(props)) {
    const attribute = byProp.get(key);
    if (attribute) {
      const text = attributeText(attribute.kind, value);
      if (text !== null) out[attribute.name] = text;
    } else if (events.has(key)) {
      if (typeof value === 'function') out[events.get(key)] = value;
    } else {
      out[key] = value;
    }
  }
  return out;
}
