// <mha-shapes>: the compact shape chain X[B,T,C] → … → output[B,T,C] with this config's numbers,
// each shape as axis chips. The run comes in as the `run` property, from its own config
// (attributes or `config`), or from the element named by `for`; clicking a shape fires `mha-step`.
import { chainSteps, keyValueChains, stepTitle } from '../../catalogue/steps.js';
import { translator } from '../../text/translate.js';
import { axisChip, el, langOf, patchChildren } from '../base/dom.js';
import { RunElement } from '../base/run-element.js';
import { installProperties } from '../base/properties.js';
import { sheet } from '../base/styles.js';

const STYLES = sheet(`
ol { list-style: none; display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.3em; margin: 0; padding: 0; }
li { display: flex; align-items: center; gap: 0.3em; }
li + li::before { content: "→"; color: var(--muted); }
button { display: inline-flex; flex-direction: column; align-items: flex-start; padding: 0.15em 0.4em; min-height: 0; }
.id { font-size: 0.75em; color: var(--muted); }
button[aria-current="step"] { background: var(--bg); color: inherit; border: 2px solid var(--accent); box-shadow: 0 0 0 2px var(--accent); }
button[aria-current="step"] .id { color: var(--accent); font-weight: 700; }
.paths { display: grid; gap: 0.35em; }
.path { display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.5em; }
.path-name { font-size: 0.8em; color: var(--muted); min-width: 5.5em; }
.joins { font-size: 0.8em; color: var(--muted); }
.kv-paths summary { cursor: pointer; margin: 0.2em 0; }
.kv-paths .paths { margin-top: 0.3em; }
`);

export class MhaShapesElement extends RunElement {
  #run = null;
  #tokens = null;
  #drawnKey = null;
  #shared = null; // GQA/MQA in the chain last drawn

  constructor() {
    super(STYLES);
    // One handler for the life of the element: the list is patched, not rebuilt, between runs.
    this.shadowRoot.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-id]');
      if (button) this.dispatchEvent(new CustomEvent('mha-step', { bubbles: true, composed: true, detail: { step: button.dataset.id } }));
    });
    // The chain is one tab stop: the arrow keys (and Home, End) move along it (roving tabindex).
    this.shadowRoot.addEventListener('keydown', (event) => {
      const buttons = [...this.shadowRoot.querySelectorAll('button[data-id]')];
      const at = buttons.indexOf(event.composedPath()[0]);
      if (at < 0) return;
      const moves = { ArrowRight: at + 1, ArrowDown: at + 1, ArrowLeft: at - 1, ArrowUp: at - 1, Home: 0, End: buttons.length - 1 };
      if (!(event.key in moves)) return;
      event.preventDefault();
      event.stopPropagation(); // the page's own arrow keys step the walkthrough
      const next = buttons[Math.max(0, Math.min(buttons.length - 1, moves[event.key]))];
      for (const button of buttons) button.tabIndex = button === next ? 0 : -1;
      next.focus();
    });
  }

  get run() { return this.#run; }
  set run(run) { this.takeRun(run, this.#tokens); }

  /** The token labels of its run (it shows shapes only; followers of it read them). */
  get labels() { return this.#tokens; }

  acceptRun(run, tokens) {
    this.#run = run;
    this.#tokens = tokens ?? null;
    this.render();
  }

  followStep(id) { this.setAttribute('current', id); }

  draw() {
    const lang = langOf(this);
    const t = translator(lang);
    if (!this.#run) {
      this.#drawnKey = null;
      this.shadowRoot.replaceChildren(this.placeholder(t));
      return;
    }
    const current = this.getAttribute('current');
    const chain = chainSteps(this.#run.steps);
    const { k, v, kJoins, vJoins } = keyValueChains(this.#run.steps);
    const all = [...chain, ...k, ...v];
    // The chain shows shapes only: a new run of the same shapes (another seed) changes nothing.
    const key = JSON.stringify([lang, current, all.map((step) => [step.id, step.shape, step.axes])]);
    if (key === this.#drawnKey && this.shadowRoot.querySelector('ol')) return;
    this.#drawnKey = key;
    // The focusable one: the current step, else the first.
    const focusable = all.some((step) => step.id === current) ? current : chain[0]?.id;
    const item = (step) => el('li', {},
      el('button', { type: 'button', 'data-id': step.id, tabindex: step.id === focusable ? 0 : -1, 'aria-current': step.id === current ? 'step' : null, 'aria-label': `${stepTitle(t, step.id, this.#run.summary)} [${step.shape.join(',')}]` },
        el('span', { class: 'id' }, step.id),
        el('span', {}, step.axes.map((axis, i) => axisChip(axis, step.shape[i], lang)))));
    const list = el('ol', { part: 'chain', 'aria-label': t('shapes.label') }, chain.map(item));
    // K and V have paths of their own (Hkv heads under GQA/MQA, repeated to H), which join the
    // query path at the scores and the context.
    const { H, Hkv } = this.#run.summary;
    const path = (name, steps, joins) => (steps.length ? el('div', { class: 'path', 'data-path': name },
      el('span', { class: 'path-name' }, t(`shapes.path.${name}`)),
      el('ol', { 'aria-label': t(`shapes.label.${name}`) }, steps.map(item)),
      el('span', { class: 'joins' }, `${t('shapes.joins')} `, el('code', {}, joins))) : null);
    // Open under GQA/MQA, where K and V differ from Q; in plain MHA one line says they match.
    const kv = k.length ? el('details', { class: 'kv-paths', open: Hkv < H },
      el('summary', { class: 'joins kv-note' }, t(Hkv < H ? 'shapes.kvShared' : 'shapes.kvOwn', { H, Hkv, group: H / Hkv })),
      el('div', { class: 'paths' }, path('k', k, kJoins), path('v', v, vJoins))) : null;
    const paths = el('div', { class: 'paths' },
      el('div', { class: 'path', 'data-path': 'q' }, el('span', { class: 'path-name' }, t('shapes.path.q')), list), kv);
    // Patched in place: another step or language changes a few attributes and texts.
    patchChildren(this.shadowRoot, [paths]);
    // Head sharing turned on or off: the K/V paths open or close with it (else the reader's choice stays).
    const shared = Hkv < H;
    if (shared !== this.#shared) this.shadowRoot.querySelector('details.kv-paths')?.toggleAttribute('open', shared);
    this.#shared = shared;
  }
}

installProperties(MhaShapesElement, 'mha-shapes');
