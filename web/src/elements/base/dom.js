/**
 * What the elements extend: HTMLElement, or in Node (server-side rendering imports the elements
 * but never constructs one) a stand-in, so that importing them there throws nothing.
 */
export const ElementBase = globalThis.HTMLElement ?? class {};

/** Defines the custom element `name` once, and only where custom elements exist (not in Node). */
export function defineElement(name, element) {
  if (typeof customElements !== 'undefined' && !customElements.get(name)) customElements.define(name, element);
}

// Building and patching the elements' DOM: a tiny builder that only ever sets text (token text is
// never parsed as HTML), a patcher that changes only what differs, the axis chips, the reader's
// language as the page says it, reduced motion and downloads.
import { axisColors } from '../../logic/heatmap/colors.js';
import { languageOf, translator } from '../../text/translate.js';

/** 'zh' or 'en' for an element: its lang attribute, else its nearest ancestor's, else the document's. */
export function langOf(element) {
  return languageOf(element.getAttribute('lang') || element.closest?.('[lang]')?.getAttribute('lang') || document.documentElement.lang);
}

/** el('button', { class: 'x', 'aria-label': '…' }, 'text', child): children are text or nodes. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Makes `parent`'s children look like `children` (freshly built nodes), changing only what
 * differs: a node of the same name keeps its place (and its open/closed or scroll state) and
 * gets the new attributes and text; other nodes are swapped in. A new run of the same shapes
 * then changes a few numbers in place instead of making the browser style and lay out a whole
 * new subtree. For subtrees whose listeners do not depend on the run (old nodes keep theirs).
 */
export function patchChildren(parent, children) {
  const old = [...parent.childNodes];
  const next = children.flat().filter((child) => child !== null && child !== undefined && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child))));
  next.forEach((node, i) => {
    if (i >= old.length) parent.append(node);
    else patch(old[i], node);
  });
  for (let i = next.length; i < old.length; i++) old[i].remove();
}

function patch(current, next) {
  if (current.nodeType !== next.nodeType || current.nodeName !== next.nodeName || current.namespaceURI !== next.namespaceURI) {
    current.replaceWith(next);
    return;
  }
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  // Whether a <details> is open is the reader's choice, not data: it stays as the reader left it.
  const readerState = (name) => name === 'open' && current.localName === 'details';
  for (const name of current.getAttributeNames()) if (!next.hasAttribute(name) && !readerState(name)) current.removeAttribute(name);
  for (const name of next.getAttributeNames()) {
    if (readerState(name)) continue;
    const value = next.getAttribute(name);
    if (current.getAttribute(name) === value) continue;
    // Styles go through the CSSOM: a strict CSP (style-src-attr) refuses setAttribute('style').
    if (name === 'style') current.style.cssText = next.style.cssText;
    else current.setAttribute(name, value);
  }
  patchChildren(current, [...next.childNodes]);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An axis chip: "T=4" with the axis's stable colour; a merged axis ("H·D") shows both colours. */
export function axisChip(name, size, lang) {
  const t = translator(lang);
  const chip = el('span', { class: 'chip', title: t(`axis.${name}`) }, el('span', { class: 'chip-name' }, name), size === undefined ? null : el('span', { class: 'chip-size' }, `=${size}`));
  const [first, second] = axisColors(name);
  chip.style.setProperty('--axis', first);
  chip.style.setProperty('--axis2', second ?? first);
  return chip;
}

/** True if the reader asked for less motion: steps then change without animation. */
export const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Starts a file download of `blob` named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
