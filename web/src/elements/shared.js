// What the mha-lens elements share: one engine per page (loaded lazily, once), the translator,
// a tiny DOM builder that only ever sets text (token text is never parsed as HTML), the base
// stylesheet (constructable, so it works under a strict style-src CSP) and the axis chips.
import { createEngine } from '../engine/engine.js';
import { PageError } from '../text/page-error.js';
import { translator } from '../text/translate.js';
import { axisColors } from '../logic/colors.js';
import { CONFIG_ATTRIBUTES, configFromAttributes, configFromProperty } from '../model/config-input.js';

let enginePromise = null;
const WASM_PROTOCOLS = ['http:', 'https:', 'file:', 'blob:'];
let defaultWasmUrl;

/** Where the .wasm is when nothing on the page says otherwise (the bundle sets: next to itself). */
export function setDefaultWasmUrl(url) {
  defaultWasmUrl = url;
}

/**
 * The page's one engine; the .wasm is fetched when the first element asks for it. Its URL: the
 * first element's `wasm-url` attribute, else <meta name="mha-lens:wasm-url" content="…">, else
 * next to the bundle (or to dist/mha_engine.mjs when the modules are used unbundled).
 */
export function getEngine({ wasmUrl } = {}) {
  const meta = typeof document !== 'undefined' ? document.querySelector('meta[name="mha-lens:wasm-url"]')?.content : undefined;
  const url = wasmUrl || meta || defaultWasmUrl;
  if (!enginePromise) {
    enginePromise = (async () => {
      // Only a place a .wasm can be fetched from: a javascript: or data: URL is refused here, not
      // handed to fetch (where the page's CSP would have to block it).
      if (url && typeof document !== 'undefined' && !WASM_PROTOCOLS.includes(new URL(url, document.baseURI).protocol)) {
        throw new PageError({ code: 'bad_value', field: 'wasm-url', key: 'error.wasm_url', params: { url } });
      }
      return createEngine(url ? { wasmUrl: url } : {});
    })();
    // A failed load is not kept: the next element asks again (with its own wasm-url).
    enginePromise.catch(() => { enginePromise = null; });
  }
  return enginePromise;
}

/** Attributes that make a standalone element recompute. */
export const SOURCE_ATTRIBUTES = [...CONFIG_ATTRIBUTES, 'for'];

/**
 * What <mha-walkthrough>, <mha-heatmap> and <mha-shapes> share: a shadow root with their styles,
 * where their run comes from (a run handed in through `takeRun`, which wins, or a RunSource: their
 * own config or the element named by `for`), and drawing. Source attributes recompute the run;
 * any other attribute redraws once per task. A subclass implements `acceptRun(run, tokens)` (a new
 * run arrived) and `draw()` (paint the shadow root; called only while connected), and may
 * implement `followStep(id)` (the followed element moved to step `id`).
 */
export class RunElement extends HTMLElement {
  #external = false;
  #source = new RunSource(this, (run, tokens) => this.acceptRun(run, tokens), { onStep: (id) => this.followStep(id) });
  #renderQueued = false;

  constructor(styles) {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [baseStyles(), styles];
  }

  connectedCallback() {
    this.render();
    if (!this.#external) this.#source.refresh();
  }

  disconnectedCallback() { this.#source.disconnect(); }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (SOURCE_ATTRIBUTES.includes(name)) {
      if (!this.#external && this.isConnected) this.#source.refresh();
    } else {
      this.scheduleRender();
    }
  }

  /** Config in the walkthrough's names ({B, T, C, H, …, tokens}); the element runs it itself. */
  get config() { return this.#source.config; }
  set config(config) {
    this.#source.config = config;
    this.#external = false;
    this.#source.refresh();
  }

  /** Shows `run` from now on, instead of running its own config or following another element. */
  takeRun(run, tokens) {
    this.#external = true;
    this.#source.disconnect();
    this.acceptRun(run, tokens);
  }

  followStep() {}

  /** Draws now; a draw already scheduled is dropped. */
  render() {
    this.#renderQueued = false;
    if (this.isConnected) this.draw();
  }

  // Several attribute or property changes in one task (the playground sets step, batch, head,
  // tokens and run together) draw once.
  scheduleRender() {
    if (this.#renderQueued) return;
    this.#renderQueued = true;
    queueMicrotask(() => { if (this.#renderQueued) this.render(); });
  }
}

/**
 * Where an element's run comes from when no one hands it one through the `run` property: the
 * element named by its `for` attribute (it follows that element's `mha-run` events), or its own
 * config (`config` property or attributes) run on the shared engine. An invalid config shows the
 * engine's message inside the element, keeps the last valid run, and fires `mha-error`.
 */
export class RunSource {
  #host;
  #apply;
  #followed = null;
  #onRun = (event) => this.#apply(event.detail.run, event.detail.tokens);
  #onStep = (event) => this.#step?.(event.detail.step);
  #step;
  #ticket = 0;
  config = null;

  /** `apply(run, tokens)` takes a new run; `onStep(id)` hears the followed element's steps. */
  constructor(host, apply, { onStep } = {}) {
    this.#host = host;
    this.#apply = apply;
    this.#step = onStep;
  }

  async refresh() {
    const host = this.#host;
    this.#unfollow();
    if (!host.isConnected) return;
    const forId = host.getAttribute('for');
    if (forId) {
      const target = host.getRootNode().getElementById?.(forId) ?? document.getElementById(forId);
      if (!target) return this.#error(new PageError({ code: 'missing', field: 'for', key: 'error.for_missing', params: { id: forId } }));
      this.#followed = target;
      target.addEventListener('mha-run', this.#onRun);
      target.addEventListener('mha-step', this.#onStep);
      if (target.run) this.#apply(target.run, target.tokens);
      return undefined;
    }
    const { config, tokens } = this.config ? configFromProperty(this.config) : configFromAttributes((name) => host.getAttribute(name));
    const ticket = ++this.#ticket;
    let engine;
    try {
      engine = await getEngine({ wasmUrl: host.getAttribute('wasm-url') });
    } catch (error) {
      return this.#error(engineLoadError(error));
    }
    if (ticket !== this.#ticket) return undefined; // a newer config arrived while the engine loaded
    let run;
    try {
      run = engine.run(config);
    } catch (error) {
      return this.#error(error);
    }
    this.#host.shadowRoot.querySelector(':scope > .element-error')?.remove();
    this.#apply(run, tokens);
    host.dispatchEvent(new CustomEvent('mha-run', { detail: { run, tokens } }));
    return undefined;
  }

  disconnect() {
    this.#unfollow();
    this.#ticket++;
  }

  #unfollow() {
    this.#followed?.removeEventListener('mha-run', this.#onRun);
    this.#followed?.removeEventListener('mha-step', this.#onStep);
    this.#followed = null;
  }

  #error(error) {
    const { code, field, message } = error;
    const root = this.#host.shadowRoot;
    root.querySelector(':scope > .element-error')?.remove();
    if (!this.#host.run) root.replaceChildren(); // nothing to keep: the message replaces "loading"

    root.prepend(el('p', { class: 'error element-error', role: 'alert', 'data-field': field }, error.messageIn(langOf(this.#host))));
    this.#host.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code, field, message } }));
  }
}

/** 'zh' or 'en' for an element: its lang attribute, else the document's. */
export function langOf(element) {
  const lang = element.getAttribute('lang') || element.closest?.('[lang]')?.getAttribute('lang') || document.documentElement.lang || 'en';
  return lang.toLowerCase().startsWith('zh') ? 'zh' : 'en';
}

export const tr = (lang) => translator(lang);

/** The engine did not load (no .wasm at its URL, a refused wasm-url, …): an error the page shows. */
export const engineLoadError = (cause) => new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause });

/** el('button', { class: 'x', 'aria-label': '…' }, 'text', child): children are text or nodes. */
export function el(tag, attributes = {}, ...children) {
  const node = document.createElement(tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value === null || value === undefined || value === false) continue;
    node.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat()) {
    if (child === null || child === undefined || child === false) continue;
    node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/**
 * Makes `parent`'s children look like `children` (freshly built nodes), changing only what
 * differs: a node of the same name keeps its place (and its open/closed or scroll state) and
 * gets the new attributes and text; other nodes are swapped in. A new run of the same shapes
 * then changes a few numbers in place instead of making the browser style and lay out a whole
 * new subtree. For subtrees whose listeners do not depend on the run (old nodes keep theirs).
 */
export function patchChildren(parent, children) {
  const old = [...parent.childNodes];
  const next = children.flat().filter((child) => child !== null && child !== undefined && child !== false)
    .map((child) => (child instanceof Node ? child : document.createTextNode(String(child))));
  next.forEach((node, i) => {
    if (i >= old.length) parent.append(node);
    else patch(old[i], node);
  });
  for (let i = next.length; i < old.length; i++) old[i].remove();
}

function patch(current, next) {
  if (current.nodeType !== next.nodeType || current.nodeName !== next.nodeName || current.namespaceURI !== next.namespaceURI) {
    current.replaceWith(next);
    return;
  }
  if (current.nodeType !== Node.ELEMENT_NODE) {
    if (current.nodeValue !== next.nodeValue) current.nodeValue = next.nodeValue;
    return;
  }
  // Whether a <details> is open is the reader's choice, not data: it stays as the reader left it.
  const readerState = (name) => name === 'open' && current.localName === 'details';
  for (const name of current.getAttributeNames()) if (!next.hasAttribute(name) && !readerState(name)) current.removeAttribute(name);
  for (const name of next.getAttributeNames()) {
    if (readerState(name)) continue;
    const value = next.getAttribute(name);
    if (current.getAttribute(name) === value) continue;
    // Styles go through the CSSOM: a strict CSP (style-src-attr) refuses setAttribute('style').
    if (name === 'style') current.style.cssText = next.style.cssText;
    else current.setAttribute(name, value);
  }
  patchChildren(current, [...next.childNodes]);
}

const SVG_NS = 'http://www.w3.org/2000/svg';

export function svg(tag, attributes = {}, ...children) {
  const node = document.createElementNS(SVG_NS, tag);
  for (const [name, value] of Object.entries(attributes)) {
    if (value !== null && value !== undefined) node.setAttribute(name, String(value));
  }
  for (const child of children.flat()) {
    if (child !== null && child !== undefined) node.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return node;
}

/** An axis chip: "T=4" with the axis's stable colour; a merged axis ("H·D") shows both colours. */
export function axisChip(name, size, lang) {
  const t = tr(lang);
  const chip = el('span', { class: 'chip', title: t(`axis.${name}`) }, el('span', { class: 'chip-name' }, name), size === undefined ? null : el('span', { class: 'chip-size' }, `=${size}`));
  const [first, second] = axisColors(name);
  chip.style.setProperty('--axis', first);
  chip.style.setProperty('--axis2', second ?? first);
  return chip;
}

let baseSheet = null;

/** The stylesheet every element adopts; themeable through --mha-* custom properties. */
export function baseStyles() {
  if (baseSheet) return baseSheet;
  baseSheet = new CSSStyleSheet();
  baseSheet.replaceSync(`
:host {
  --fg: var(--mha-fg, #1d1f24);
  --muted: var(--mha-muted, #5b6170);
  --bg: var(--mha-bg, #ffffff);
  --panel: var(--mha-panel, #f5f6f8);
  --line: var(--mha-line, #d5d8de);
  --accent: var(--mha-accent, #0b5cad);
  --error: var(--mha-error, #b00020);
  --ok: var(--mha-ok, #1b7a3d);
  --focus: var(--mha-focus, #e0a100);
  display: block;
  color: var(--fg);
  font: var(--mha-font-size, 15px)/1.5 var(--mha-font, system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif);
  container-type: inline-size;
}
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
:host([theme="dark"]) {
  --fg: var(--mha-fg, #e8eaee); --muted: var(--mha-muted, #a3a9b6); --bg: var(--mha-bg, #16181d);
  --panel: var(--mha-panel, #1f2229); --line: var(--mha-line, #3a3f4a); --accent: var(--mha-accent, #4c9be8);
  --error: var(--mha-error, #ff7a8a); --ok: var(--mha-ok, #5fd08a);
  background: var(--bg);
}
@media (prefers-color-scheme: dark) {
  :host([theme="auto"]) {
    --fg: var(--mha-fg, #e8eaee); --muted: var(--mha-muted, #a3a9b6); --bg: var(--mha-bg, #16181d);
    --panel: var(--mha-panel, #1f2229); --line: var(--mha-line, #3a3f4a); --accent: var(--mha-accent, #4c9be8);
    --error: var(--mha-error, #ff7a8a); --ok: var(--mha-ok, #5fd08a);
    background: var(--bg);
  }
}
* { box-sizing: border-box; }
button, select, input, summary { font: inherit; color: inherit; }
select { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.15em 0.3em; }
button {
  background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.3em 0.7em;
  cursor: pointer; min-height: 2.2em;
}
button:hover { border-color: var(--accent); }
button[aria-pressed="true"], button[aria-current="step"] { background: var(--accent); color: #fff; border-color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, .mono { font-family: var(--mha-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace); font-size: 0.92em; }
.chip {
  display: inline-flex; align-items: baseline; gap: 0.1em; padding: 0 0.45em; margin: 0.1em 0.15em 0.1em 0;
  border-radius: 999px; border: 2px solid var(--axis); border-right-color: var(--axis2); border-bottom-color: var(--axis2);
  background: color-mix(in srgb, var(--axis) 14%, var(--bg)); font-weight: 600; white-space: nowrap;
}
.chip-size { font-weight: 400; }
.muted { color: var(--muted); }
.error { color: var(--error); margin: 0.2em 0 0; font-size: 0.9em; }
.error:empty { display: none; }
.note { color: var(--muted); font-size: 0.9em; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 0.15em 0.4em; text-align: right; }
th { background: var(--panel); font-weight: 600; }
`);
  return baseSheet;
}

/** A stylesheet from text, built once per element class. */
export function sheet(text) {
  const s = new CSSStyleSheet();
  s.replaceSync(text);
  return s;
}

/** True if the reader asked for less motion: steps then change without animation. */
export const reducedMotion = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

/** Starts a file download of `blob` named `name`. */
export function download(blob, name) {
  const url = URL.createObjectURL(blob);
  const link = document.createElement('a');
  link.href = url;
  link.download = name;
  document.body.append(link);
  link.click();
  link.remove();
  setTimeout(() => URL.revokeObjectURL(url), 10000);
}
