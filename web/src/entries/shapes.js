// 'mha-lens/shapes': defines <mha-shapes> alone (a page that embeds only it loads only it).
import { defineElement } from '../elements/base/dom.js';
import { MhaShapesElement } from '../elements/shapes/mha-shapes.js';

defineElement('mha-shapes', MhaShapesElement);
export { MhaShapesElement };
export { env, getEngine } from '../engine/engine.js';
