// The docs page: one <mha-playground> (the same element tutorial pages embed), plus what only the
// page does: pick the language (URL, then the remembered choice, then the browser's), keep the URL
// in step with the view so a link opens the same view, and let the arrow keys step the walkthrough
// when nothing in particular has focus.
import './src/elements/index.js';
import { languageOf, translator } from './src/text/translate.js';
import { decodeState, encodeLocation, isStateHash } from './src/logic/page/page-state.js';
import { decodeTrainingState, encodeTrainingState } from './src/logic/training/state.js';

const STORAGE_KEY = 'mha-lens.lang';
const playground = document.getElementById('playground');
const trainer = document.getElementById('trained'); // the trainer section, "What attention learns"

function rememberedLanguage() {
  try {
    return localStorage.getItem(STORAGE_KEY);
  } catch {
    return null; // storage can be disabled; the browser's language still applies
  }
}

const initial = decodeState(location.search, location.hash);
let lang = initial.lang ?? rememberedLanguage() ?? languageOf(navigator.languages?.[0] ?? navigator.language);

function applyLanguage() {
  const t = translator(lang);
  document.documentElement.lang = lang === 'zh' ? 'zh-CN' : 'en';
  document.title = t('page.title');
  for (const node of document.querySelectorAll('[data-i18n]')) node.textContent = t(node.dataset.i18n);
  for (const button of document.querySelectorAll('[data-lang]')) button.setAttribute('aria-pressed', String(button.dataset.lang === lang));
  playground.setAttribute('lang', lang);
  trainer?.setAttribute('lang', lang);
  document.getElementById('language-model')?.setAttribute('lang', lang);
}

// replaceState makes Chromium settle style and layout of the whole page at once; while a reader
// types or steps quickly, writing the URL once things are quiet keeps each keystroke fast.
let urlTimer = null;
function writeUrl(state, { now = false } = {}) {
  clearTimeout(urlTimer);
  const write = () => {
    // Long token lists go in the hash (encodeLocation keeps the URL within MAX_URL_LENGTH); an
    // anchor the reader followed (#trained) stays when the tokens do not need the hash.
    const extra = trainer ? encodeTrainingState(trainer.state, playground.blockSource ?? {}) : [];
    const { search, hash } = encodeLocation(state, lang, { base: location.pathname, extra });
    const keep = hash || isStateHash(location.hash) ? hash : location.hash;
    history.replaceState(null, '', `${location.pathname}${search}${keep}`);
  };
  if (now) write();
  else urlTimer = setTimeout(write, 150);
}

applyLanguage();
playground.state = initial.state;
if (initial.cut) playground.tokensCut = initial.cut;
playground.addEventListener('mha-state', (event) => writeUrl(event.detail.state));
if (trainer) {
  const { options, probe, compare, block } = decodeTrainingState(location.search);
  trainer.state = { options, probe, compare };
  playground.blockSource = block;
  trainer.addEventListener('mha-train-state', () => writeUrl(playground.state));
}

for (const button of document.querySelectorAll('[data-lang]')) {
  button.addEventListener('click', () => {
    lang = button.dataset.lang;
    try {
      localStorage.setItem(STORAGE_KEY, lang);
    } catch {
      // not remembered, but the switch still works for this visit
    }
    applyLanguage();
    writeUrl(playground.state, { now: true });
  });
}

// "Skip to the walkthrough": the walkthrough sits inside the playground's shadow root, where a
// fragment link cannot reach; without scripts the link still goes to the playground.
document.querySelector('a.skip')?.addEventListener('click', (event) => {
  event.preventDefault();
  playground.focusWalkthrough();
});

document.addEventListener('keydown', (event) => {
  if (event.target !== document.body || event.altKey || event.ctrlKey || event.metaKey) return;
  const walkthrough = playground.shadowRoot?.querySelector('mha-walkthrough');
  if (!walkthrough) return;
  if (event.key === 'ArrowRight') walkthrough.next();
  else if (event.key === 'ArrowLeft') walkthrough.prev();
  else return;
  event.preventDefault();
});
