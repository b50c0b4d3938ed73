// The iframe route: renders the one element that embed.html's URL names, with the attributes it
// gives (set as attributes, so tokens stay text), using the same bundle tutorial pages load.
import './dist/mha-lens.js';
import { embedRequest } from './src/logic/embed-code.js';
import { languageOf } from './src/text/translate.js';

const { tag, attributes } = embedRequest(location.search);
const element = document.createElement(tag);
for (const [name, value] of attributes) element.setAttribute(name, value);
if (!element.hasAttribute('lang')) element.setAttribute('lang', languageOf(navigator.language));
document.documentElement.lang = element.getAttribute('lang') === 'zh' ? 'zh-CN' : 'en';
document.getElementById('embed').append(element);
