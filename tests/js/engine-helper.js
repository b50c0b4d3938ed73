// One engine for the node:test files of the page's pure modules: their numbers are checked
// against real runs, not against values the page produced.
import { createEngine } from '../../web/src/engine/engine.js';

let engine = null;
export async function getTestEngine() {
  engine ??= await createEngine();
  return engine;
}

/** Configs that exercise every branch: self, causal, padding, cross, GQA, MQA, no bias, T = D. */
export const CONFIGS = [
  { B: 2, T: 4, C: 8, H: 2 },
  { B: 2, T: 5, C: 12, H: 3, mask: 'causal' },
  { B: 2, T: 4, C: 8, H: 2, keyLengths: [4, 2] },
  { B: 1, T: 3, Tk: 5, C: 12, H: 4, Hkv: 2, keyLengths: [3] },
  { B: 2, T: 6, C: 16, H: 4, Hkv: 1, mask: 'causal', bias: false },
  { B: 3, T: 2, C: 6, H: 3, seed: 7 },
];
