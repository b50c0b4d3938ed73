// 'mha-lens/trainer': defines <mha-trainer> alone (a page that embeds only it loads only it).
import { defineElement } from '../elements/base/dom.js';
import { MhaTrainerElement } from '../elements/trainer/mha-trainer.js';

defineElement('mha-trainer', MhaTrainerElement);
export { MhaTrainerElement };
export { env, getEngine } from '../engine/engine.js';
