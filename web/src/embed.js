// The iframe route (embed.html), bundled by scripts/build.sh into web/dist/embed.js beside the
// widget bundle it loads (./mha-lens.js, kept as an import): copying embed.html, embed.css and
// dist/ is all a site needs. Renders the elements the URL names (logic/page/embed-code.js), their
// attributes set as attributes so tokens stay text, and posts the content height to the parent
// page whenever it changes, which the host's one-line script applies to the iframe.
import './mha-lens.js';
import { HEIGHT_MESSAGE, embedRequest } from './logic/page/embed-code.js';
import { languageOf } from './text/translate.js';

const main = document.getElementById('embed');
const lang = new URLSearchParams(location.search).get('lang') ?? languageOf(navigator.language);
document.documentElement.lang = languageOf(lang) === 'zh' ? 'zh-CN' : 'en';
for (const { tag, attributes } of embedRequest(location.search)) {
  const element = document.createElement(tag);
  for (const [name, value] of attributes) element.setAttribute(name, value);
  if (!element.hasAttribute('lang')) element.setAttribute('lang', languageOf(lang));
  main.append(element);
}

// The body holds everything (embed.css keeps it from stretching to the frame), so its height is
// the content's: posted on every change, as the walkthrough's height changes from step to step.
if (window.parent !== window) {
  let posted = 0;
  new ResizeObserver(() => {
    const height = Math.ceil(document.body.getBoundingClientRect().height);
    if (height === posted) return;
    posted = height;
    window.parent.postMessage({ type: HEIGHT_MESSAGE, height }, '*');
  }).observe(document.body);
}
