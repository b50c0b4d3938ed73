// 'mha-lens/playground': defines <mha-playground> (and the walkthrough, heatmap and shape chain it is made of).
import { defineElement } from '../elements/base/dom.js';
import { MhaPlaygroundElement } from '../elements/playground/mha-playground.js';

defineElement('mha-playground', MhaPlaygroundElement);
export { MhaPlaygroundElement };
export { env, getEngine } from '../engine/engine.js';
