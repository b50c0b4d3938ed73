// The trainer section's state in the docs page's URL, beside the playground's (logic/page/page-state.js):
// its options, the probe, the random-vs-trained view, and whether the walkthrough shows the
// trained model's block (which layer, the backward pass, and which model: the toy trainer's or
// the language model's). Keys start with "tr-" so that they
// never meet the playground's (which has a seed of its own). Defaults are left out. No DOM.
import { OPTION_NAMES, defaultOptions, readOptions } from './options.js';

const key = (name) => `tr-${name}`;

/**
 * URL parameters for `section` ({ options, probe (text or null: the task's example), compare })
 * and `block` ({ layer (null: the walkthrough's own seeded run), backward }).
 */
export function encodeTrainingState({ options, probe = null, compare = false } = {}, block = {}) {
  const params = new URLSearchParams();
  if (options) {
    const defaults = defaultOptions(options.task);
    for (const name of OPTION_NAMES) {
      if (name === 'task' ? options.task !== defaultOptions().task : options[name] !== defaults[name]) params.set(key(name), String(options[name]));
    }
  }
  if (probe) params.set(key('probe'), probe);
  if (compare) params.set(key('compare'), '1');
  if (Number.isInteger(block.layer)) params.set(key('block'), String(block.layer));
  if (block.backward) params.set(key('backward'), '1');
  if (Number.isInteger(block.layer) && block.source === 'lm') params.set(key('source'), 'lm');
  return params;
}

/**
 * URL parameters → { options, rejected, probe, compare, block: { layer, backward } }. An option
 * the section does not offer is rejected (and the default kept); the probe is checked when the
 * trainer knows its T and vocabulary.
 */
export function decodeTrainingState(search) {
  const params = new URLSearchParams(search);
  const { options, rejected } = readOptions((name) => params.get(key(name)));
  // A layer the trainer does not have means its last one: never a picker of a million layers.
  const layer = Math.min(Number(params.get(key('block'))), options.layers - 1);
  return {
    options,
    rejected,
    probe: params.get(key('probe')),
    compare: params.get(key('compare')) === '1',
    block: { layer: params.has(key('block')) && Number.isInteger(layer) && layer >= 0 ? layer : null, backward: params.get(key('backward')) === '1',
      source: params.get(key('source')) === 'lm' ? 'lm' : 'trainer' },
  };
}

/** Appends `extra`'s parameters to `params` (the page writes both states into one query). */
export function mergeParams(params, extra) {
  for (const [name, value] of extra) params.set(name, value);
  return params;
}
