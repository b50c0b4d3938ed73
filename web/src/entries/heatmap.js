// 'mha-lens/heatmap': defines <mha-heatmap> alone (a page that embeds only it loads only it).
import { defineElement } from '../elements/base/dom.js';
import { MhaHeatmapElement } from '../elements/heatmap/mha-heatmap.js';

defineElement('mha-heatmap', MhaHeatmapElement);
export { MhaHeatmapElement };
export { env, getEngine } from '../engine/engine.js';
