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
export { getEngine } from './page-engine.js';
export { RunElement as MhaRunElement } from './run-element.js';
