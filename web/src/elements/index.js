// The mha-lens elements: importing this module defines <mha-walkthrough>, <mha-heatmap>,
// <mha-shapes> and <mha-playground>.
import './define.js';
import { MhaPlaygroundElement } from './mha-playground.js';

if (!customElements.get('mha-playground')) customElements.define('mha-playground', MhaPlaygroundElement);

export { MhaPlaygroundElement };
export { MhaWalkthroughElement } from './mha-walkthrough.js';
export { MhaHeatmapElement } from './mha-heatmap.js';
export { MhaShapesElement } from './mha-shapes.js';
export { getEngine } from './page-engine.js';
