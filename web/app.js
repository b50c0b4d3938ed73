// The docs page: one <mha-playground> (the same element tutorial pages embed), plus what only the
// page does: pick the language (URL, then the remembered choice, then the browser's), keep the URL
// in step with the view so a link opens the same view, let the arrow keys step the walkthrough
// when nothing in particular has focus, and a table of contents of the playground's chapters that
// follows the reader, with a link (#shapes, #heatmaps, …, #step-q_split) to every chapter and step.
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
  buildContents();
}

// --- The table of contents ------------------------------------------------------------------
const toc = document.querySelector('nav.toc');
const tocMenu = toc?.querySelector('details');
const tocList = toc?.querySelector('.toc-list');
const wide = matchMedia('(min-width: 1100px)');
let chapterObserver = null;

// One link per chapter the playground shows, after "Start here", in its order and language.
function buildContents() {
  if (!tocList) return;
  const t = translator(lang);
  const chapters = playground.chapters ?? [];
  const link = (id, title) => {
    const a = document.createElement('a');
    a.href = `#${id}`;
    a.dataset.chapter = id;
    a.textContent = title;
    const li = document.createElement('li');
    li.append(a);
    return li;
  };
  tocList.replaceChildren(link('start', t('page.startTitle')), ...chapters.map(({ id, title }) => link(id, title)));
  followReader(chapters);
}

// The chapter being read is marked in the contents (the one whose section crosses the upper third).
function followReader(chapters) {
  chapterObserver?.disconnect();
  chapterObserver = new IntersectionObserver((entries) => {
    for (const entry of entries) {
      if (!entry.isIntersecting) continue;
      const id = entry.target.dataset.chapter ?? entry.target.id;
      for (const a of tocList.querySelectorAll('a')) a.setAttribute('aria-current', String(a.dataset.chapter === id));
      // On a phone the closed menu names the chapter being read.
      const now = toc.querySelector('.toc-now');
      if (now) now.textContent = tocList.querySelector(`a[data-chapter="${id}"]`)?.textContent ?? '';
    }
  }, { rootMargin: '-20% 0px -70% 0px' });
  const start = document.getElementById('start');
  if (start) chapterObserver.observe(start);
  for (const { id, section } of chapters) {
    section.dataset.chapter = id;
    chapterObserver.observe(section);
  }
}

// #<chapter> or #step-<id>: go there (a chapter inside the playground's shadow root is beyond
// a fragment's reach). Returns true when the hash named one.
function followHash() {
  const id = decodeURIComponent(location.hash.slice(1));
  if (!id || isStateHash(location.hash)) return false;
  if (id.startsWith('step-')) return playground.goToStep?.(id.slice(5)) ?? false;
  if (id === 'start') {
    document.getElementById('start')?.scrollIntoView({ block: 'start' });
    return true;
  }
  return playground.goTo?.(id) ?? false;
}

function showMenu() {
  if (tocMenu) tocMenu.open = wide.matches;
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

if (toc) {
  showMenu();
  wide.addEventListener('change', showMenu);
  toc.addEventListener('click', (event) => {
    const a = event.target.closest('a[href^="#"]');
    if (!a) return;
    if (a.dataset.chapter && a.dataset.chapter !== 'start') {
      event.preventDefault();
      history.replaceState(null, '', `${location.pathname}${location.search}${a.hash}`);
      playground.goTo(a.dataset.chapter);
    }
    if (!wide.matches) tocMenu.open = false; // a phone's menu closes once a chapter is picked
  });
}
// The start list's links and any #chapter link on the page (or typed in the address bar).
window.addEventListener('hashchange', followHash);
document.querySelector('#start')?.addEventListener('click', (event) => {
  const a = event.target.closest('a[href^="#"]');
  if (!a || a.hash === '#trained') return;
  event.preventDefault();
  history.replaceState(null, '', `${location.pathname}${location.search}${a.hash}`);
  followHash();
});
// A link with a chapter or a step: once the first run is on screen, and again while the sections
// above it still change size (the panels drawn after the first frame, the trainer opening its
// checkpoint), for a few seconds or until the reader scrolls.
if (location.hash) {
  playground.addEventListener('mha-run', () => requestAnimationFrame(() => {
    if (!followHash()) return;
    let moved = false;
    const stop = () => { moved = true; };
    for (const type of ['wheel', 'touchstart', 'keydown', 'mousedown']) addEventListener(type, stop, { once: true, passive: true });
    const again = () => { if (!moved) followHash(); };
    const resized = new ResizeObserver(() => requestAnimationFrame(again));
    resized.observe(playground);
    if (trainer) resized.observe(trainer);
    setTimeout(() => resized.disconnect(), 4000);
  }), { once: true });
}

document.addEventListener('keydown', (event) => {
  if (event.target !== document.body || event.altKey || event.ctrlKey || event.metaKey) return;
  const walkthrough = playground.shadowRoot?.querySelector('mha-walkthrough');
  if (!walkthrough) return;
  if (event.key === 'ArrowRight') walkthrough.next();
  else if (event.key === 'ArrowLeft') walkthrough.prev();
  else return;
  event.preventDefault();
});
