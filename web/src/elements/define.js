// Registers the mha-lens elements (once, even if this module is loaded twice; not in Node).
import { defineElement } from './base/dom.js';
import { MhaWalkthroughElement } from './walkthrough/mha-walkthrough.js';
import { MhaHeatmapElement } from './heatmap/mha-heatmap.js';
import { MhaShapesElement } from './shapes/mha-shapes.js';

const ELEMENTS = { 'mha-walkthrough': MhaWalkthroughElement, 'mha-heatmap': MhaHeatmapElement, 'mha-shapes': MhaShapesElement };
for (const [name, element] of Object.entries(ELEMENTS)) defineElement(name, element);
