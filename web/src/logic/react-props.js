// A React component's props → what the custom element it renders gets (react.js): `attributes`,
// the props React 19 renders (each attribute's prop, camelCase or the attribute's own name, as the
// attribute's text under the attribute's name, so the server's HTML carries it and hydration finds
// the same; id, className, style, children, … as they are), `events` (onMhaStep → 'mha-step':
// handler) and `data` (run, config, attention, state, options, labels), which the component sets
// itself: React 19's hydration applies neither event nor property props of a custom element
// (react#35446). No DOM, no React: tests/js/react-props.test.js.
import { ELEMENT_EVENTS, attributesOf, eventProp } from './attributes.js';
import { attributeText } from './attribute-values.js';

/** The data properties the components set on their element. */
export const DATA_PROPS = ['run', 'config', 'attention', 'state', 'options', 'labels'];

const tables = new Map();
function tableOf(tag) {
  if (!tables.has(tag)) {
    const byProp = new Map();
    for (const info of attributesOf(tag)) {
      byProp.set(info.property, info);
      byProp.set(info.name, info);
    }
    const events = new Map(Object.keys(ELEMENT_EVENTS[tag] ?? {}).map((event) => [eventProp(event), event]));
    tables.set(tag, { byProp, events });
  }
  return tables.get(tag);
}

/** The events element `tag` fires, by name. */
export const eventsOf = (tag) => Object.keys(ELEMENT_EVENTS[tag] ?? {});

/** `props` of a component for element `tag` → { attributes, events, data }. */
export function elementProps(tag, props) {
  const { byProp, events: eventProps } = tableOf(tag);
  const attributes = {};
  const events = {};
  const data = {};
  for (const [key, value] of Object.entries(props)) {
    const attribute = byProp.get(key);
    if (attribute) {
      const text = attributeText(attribute.kind, value);
      if (text !== null) attributes[attribute.name] = text;
    } else if (eventProps.has(key)) {
      if (typeof value === 'function') events[eventProps.get(key)] = value;
    } else if (DATA_PROPS.includes(key)) {
      if (value !== undefined) data[key] = value;
    } else {
      attributes[key] = value;
    }
  }
  return { attributes, events, data };
}
