// An author's attributes on an element, checked against what the element takes: a name it does
// not have, a value outside its choices, a step this run lacks, a head or batch row out of range.
// The element warns once about each (a mistyped attribute was silently replaced before). No DOM:
// tests/js/attribute-check.test.js.
import { isScoresSized } from '../../catalogue/steps.js';
import { ELEMENT_ATTRIBUTES as TABLE } from '../attributes.js';

/** The attributes each element takes (besides the global ones every element has): the table's. */
export const ELEMENT_ATTRIBUTES = Object.fromEntries(['mha-walkthrough', 'mha-heatmap', 'mha-shapes'].map((tag) => [tag, TABLE[tag]]));

/** Attributes with a fixed set of values. */
export const CHOICES = { theme: ['auto', 'light', 'dark'], controls: ['all', 'none'] };

// Attributes any HTML element may carry (and data-*, aria-*, on*).
const GLOBAL = new Set(['id', 'class', 'style', 'title', 'dir', 'hidden', 'tabindex', 'slot', 'part', 'exportparts', 'role', 'is',
  'nonce', 'autofocus', 'draggable', 'spellcheck', 'translate', 'contenteditable', 'inert', 'popover', 'enterkeyhint', 'inputmode',
  'accesskey', 'autocapitalize', 'itemscope', 'itemprop', 'itemtype', 'itemid', 'itemref', 'xml:lang']);
const isGlobal = (name) => GLOBAL.has(name) || /^(data-|aria-|on)/.test(name);

// "0, 1" for a few values, "0 … 11" for a long run of numbers.
const listText = (values) => (values.length > 6 && values.every(Number.isInteger) ? `${values[0]} … ${values.at(-1)}` : values.join(', '));

/**
 * The problems with `attributes` ([[name, value]]) of element `tag` for `run` (null before it has
 * one: then only names and fixed choices are checked). Returns [{ name, value, accepted, unknown }],
 * `accepted` as text; `unknown` when the element has no such attribute.
 */
export function attributeProblems(tag, attributes, run) {
  const takes = ELEMENT_ATTRIBUTES[tag];
  if (!takes) return [];
  const problems = [];
  const refuse = (name, value, accepted, unknown = false) => problems.push({ name, value, accepted: listText(accepted), unknown });
  const steps = run?.steps.map((step) => step.id) ?? null;
  for (const [name, value] of attributes) {
    if (isGlobal(name)) continue;
    if (!takes.includes(name)) { refuse(name, value, takes, true); continue; }
    if (CHOICES[name] && !CHOICES[name].includes(value.trim().toLowerCase())) { refuse(name, value, CHOICES[name]); continue; }
    if (!run) continue;
    if (tag === 'mha-walkthrough' && ['step', 'from', 'to'].includes(name) && !steps.includes(value)) refuse(name, value, steps);
    if (tag === 'mha-heatmap' && name === 'step') {
      const drawable = run.steps.filter(isScoresSized).map((step) => step.id);
      if (!drawable.includes(value)) refuse(name, value, drawable);
    }
    if (tag === 'mha-heatmap' && (name === 'batch' || name === 'head')) {
      const size = name === 'batch' ? run.summary.B : run.summary.H;
      const index = Number(value.trim());
      if (!(value.trim() !== '' && Number.isInteger(index) && index >= 0 && index < size)) refuse(name, value, Array.from({ length: size }, (_, i) => i));
    }
  }
  return problems;
}
