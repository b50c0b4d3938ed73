// Each element's properties from the one attribute table (logic/attributes.js): for every
// attribute a same-named property (camelCase) that reads the attribute as a JS value, takes a
// string or the natural JS value, reflects it to the attribute and never throws, so React 19 and
// Vue, which set properties where an element has them, give the same element as the attributes.
// A property the element defines itself with a setter (a trainer's probe) is left to it. Values
// set on the element before it was defined (before upgrade) are taken when it connects.
import { attributesOf } from '../../logic/attributes.js';
import { attributeText, propertyValue } from '../../logic/attribute-values.js';

// Properties a framework may set before the element is defined, besides the attributes'.
const DATA_PROPERTIES = ['config', 'run', 'attention', 'state', 'options', 'labels'];

function ownSetter(prototype, name) {
  for (let p = prototype; p && p !== globalThis.HTMLElement?.prototype; p = Object.getPrototypeOf(p)) {
    const descriptor = Object.getOwnPropertyDescriptor(p, name);
    if (descriptor) return descriptor.set ? descriptor : null;
  }
  return null;
}

/**
 * Gives the element class `Element` (tag `tag`) its attributes' properties and observedAttributes,
 * and makes it take values set before upgrade.
 */
export function installProperties(Element, tag) {
  const attributes = attributesOf(tag);
  const prototype = Element.prototype;
  const names = [];
  for (const { name, property, kind } of attributes) {
    names.push(property);
    if (ownSetter(prototype, property)) continue;
    // lang is HTMLElement's own too (which throws on a Symbol): the same, that never throws.
    const read = property === 'lang' ? function lang() { return this.getAttribute('lang') ?? ''; } : function get() { return propertyValue(kind, this.getAttribute(name)); };
    Object.defineProperty(prototype, property, {
      configurable: true,
      enumerable: true,
      get: read,
      set(value) {
        const text = attributeText(kind, value);
        if (text === null) this.removeAttribute(name);
        else if (this.getAttribute(name) !== text) this.setAttribute(name, text);
      },
    });
  }
  const observed = attributes.map(({ name }) => name);
  Object.defineProperty(Element, 'observedAttributes', { configurable: true, get: () => observed });
  const upgradable = [...names, ...DATA_PROPERTIES.filter((name) => ownSetter(prototype, name))];
  const connected = prototype.connectedCallback;
  prototype.connectedCallback = function connectedCallback() {
    upgradeProperties(this, upgradable);
    return connected?.call(this);
  };
}

// A value set on the element before its class was defined sits on the instance and hides the
// class's property: take it off and set it through the property (the usual custom-element upgrade).
function upgradeProperties(element, names) {
  for (const name of names) {
    if (!Object.prototype.hasOwnProperty.call(element, name)) continue;
    const value = element[name];
    delete element[name];
    try { element[name] = value; } catch { /* a setter that refuses shows its own error */ }
  }
}
