// The mha-lens elements: importing this module defines <mha-walkthrough>, <mha-heatmap>,
// <mha-shapes>, <mha-playground> and <mha-trainer> (where custom elements exist: in Node it
// defines nothing).
import './define.js';
import { defineElement } from './dom.js';
import { MhaPlaygroundElement } from './mha-playground.js';
import { MhaTrainerElement } from './mha-trainer.js';

defineElement('mha-playground', MhaPlaygroundElement);
defineElement('mha-trainer', MhaTrainerElement);

export { MhaPlaygroundElement, MhaTrainerElement };
export { MhaWalkthroughElement } from './mha-walkthrough.js';
export { MhaHeatmapElement } from './mha-heatmap.js';
export { MhaShapesElement } from './mha-shapes.js';
// The API's own getEngine (one function for 'mha-lens' and 'mha-lens/widgets'); the elements ask
// page-engine.js, which loads the engine with the trainer on a page that trains.
export { getEngine } from '../engine/engine.js';
export { RunElement as MhaRunElement } from './run-element.js';
