// 'mha-lens/walkthrough': defines <mha-walkthrough> alone (a page that embeds only it loads only it).
import { defineElement } from '../elements/base/dom.js';
import { MhaWalkthroughElement } from '../elements/walkthrough/mha-walkthrough.js';

defineElement('mha-walkthrough', MhaWalkthroughElement);
export { MhaWalkthroughElement };
export { env, getEngine } from '../engine/engine.js';
