// The mha-lens elements: importing this module defines <mha-walkthrough>, <mha-heatmap>,
// <mha-shapes>, <mha-playground> and <mha-trainer> (where custom elements exist: in Node it
// defines nothing).
import './define.js';
import { defineElement } from './base/dom.js';
import { MhaPlaygroundElement } from './playground/mha-playground.js';
import { MhaTrainerElement } from './trainer/mha-trainer.js';

defineElement('mha-playground', MhaPlaygroundElement);
defineElement('mha-trainer', MhaTrainerElement);

export { MhaPlaygroundElement, MhaTrainerElement };
export { MhaWalkthroughElement } from './walkthrough/mha-walkthrough.js';
export { MhaHeatmapElement } from './heatmap/mha-heatmap.js';
export { MhaShapesElement } from './shapes/mha-shapes.js';
// The API's own getEngine (one function for 'mha-lens' and 'mha-lens/widgets'); the elements ask
// page-engine.js, which loads the engine with the trainer on a page that trains.
export { env, getEngine } from '../engine/engine.js';
export { RunElement as MhaRunElement } from './base/run-element.js';
