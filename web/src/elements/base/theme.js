// The elements' colours when no theme is forced: those of the host page around them. An element
// that follows the host adopts the dark colours (styles.js) while the host is dark behind it
// (logic/page/scheme.js decides from the computed styles of its ancestors), and looks again when the
// reader's colour-scheme preference changes or the page switches its own theme (a class, a
// data-theme or a style on <html> or <body>, as VitePress, Docusaurus, Astro Starlight and
// next-themes do).
import { canvasIsDark, hostIsDark } from '../../logic/page/scheme.js';
import { hostDarkStyles } from './styles.js';

const following = new Set();
let observer = null;
let preference = null;
let queued = false;

// The element's ancestors, nearest first, across shadow roots (an element inside a playground
// sits on the playground's background, which sits on the page's).
function* ancestors(element) {
  let node = element;
  while (node) {
    node = node.parentElement ?? node.getRootNode?.().host ?? null;
    if (node) yield node;
  }
}

function isDarkBehind(element) {
  const layers = [];
  for (const node of ancestors(element)) {
    const { backgroundColor, backgroundImage, color } = getComputedStyle(node);
    layers.push({ backgroundColor, backgroundImage, color });
  }
  const rootScheme = getComputedStyle(document.documentElement).colorScheme;
  const metaScheme = document.querySelector('meta[name="color-scheme"]')?.getAttribute('content');
  const prefersDark = matchMedia('(prefers-color-scheme: dark)').matches;
  const canvas = canvasIsDark(rootScheme && rootScheme !== 'normal' ? rootScheme : metaScheme, prefersDark);
  return hostIsDark(layers, canvas);
}

/** Adopts or drops the dark colours on `element`'s shadow root for the host behind it now. */
function apply(element) {
  if (!element.isConnected || !element.shadowRoot) return;
  const sheets = element.shadowRoot.adoptedStyleSheets;
  const dark = hostDarkStyles();
  const wanted = isDarkBehind(element);
  if (wanted === sheets.includes(dark)) return;
  element.shadowRoot.adoptedStyleSheets = wanted ? [...sheets, dark] : sheets.filter((sheet) => sheet !== dark);
}

// Once per frame, however many changes: the page's own theme switch touches several attributes.
function applyAll() {
  if (queued) return;
  queued = true;
  requestAnimationFrame(() => {
    queued = false;
    for (const element of following) apply(element);
  });
}

/** `element` (connected, with its shadow root) takes the host's colours from now on. */
export function followHostScheme(element) {
  following.add(element);
  apply(element);
  if (observer) return;
  observer = new MutationObserver(applyAll);
  for (const node of [document.documentElement, document.body]) {
    if (node) observer.observe(node, { attributes: true, attributeFilter: ['class', 'style', 'data-theme', 'data-mode', 'data-color-scheme'] });
  }
  preference = matchMedia('(prefers-color-scheme: dark)');
  preference.addEventListener('change', applyAll);
}

/** `element` left the page: it is no longer looked after. */
export function stopFollowingHostScheme(element) {
  following.delete(element);
  if (following.size > 0 || !observer) return;
  observer.disconnect();
  observer = null;
  preference.removeEventListener('change', applyAll);
  preference = null;
}
