// <mha-shapes>: the compact shape chain X[B,T,C] → … → output[B,T,C] with this config's numbers,
// each shape as axis chips. The run comes in as the `run` property, from its own config
// (attributes or `config`), or from the element named by `for`; clicking a shape fires `mha-step`.
import { chainSteps } from '../format.js';
import { RunSource, SOURCE_ATTRIBUTES, axisChip, baseStyles, el, langOf, sheet, tr } from './shared.js';

const STYLES = sheet(`
ol { list-style: none; display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.3em; margin: 0; padding: 0; }
li { display: flex; align-items: center; gap: 0.3em; }
li + li::before { content: "→"; color: var(--muted); }
button { display: inline-flex; flex-direction: column; align-items: flex-start; padding: 0.15em 0.4em; min-height: 0; }
.id { font-size: 0.75em; color: var(--muted); }
button[aria-current="step"] { background: var(--bg); color: inherit; border: 2px solid var(--accent); box-shadow: 0 0 0 2px var(--accent); }
button[aria-current="step"] .id { color: var(--accent); font-weight: 700; }
`);

export class MhaShapesElement extends HTMLElement {
  static get observedAttributes() { return ['lang', 'current', ...SOURCE_ATTRIBUTES]; }

  #run = null;
  #root;
  #external = false;
  #source = new RunSource(this, (run) => { this.#run = run; this.#render(); }, { onStep: (id) => this.setAttribute('current', id) });

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [baseStyles(), STYLES];
  }

  connectedCallback() {
    this.#render();
    if (!this.#external) this.#source.refresh();
  }

  disconnectedCallback() { this.#source.disconnect(); }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (SOURCE_ATTRIBUTES.includes(name)) {
      if (!this.#external && this.isConnected) this.#source.refresh();
    } else {
      this.#render();
    }
  }

  get run() { return this.#run; }
  set run(run) {
    this.#external = true;
    this.#source.disconnect();
    this.#run = run;
    this.#render();
  }

  get config() { return this.#source.config; }
  set config(config) {
    this.#source.config = config;
    this.#external = false;
    this.#source.refresh();
  }

  #render() {
    if (!this.isConnected || !this.#run) return;
    const lang = langOf(this);
    const t = tr(lang);
    const current = this.getAttribute('current');
    const list = el('ol', { 'aria-label': t('shapes.label') }, chainSteps(this.#run.steps).map((step) => el('li', {},
      el('button', { type: 'button', 'data-id': step.id, 'aria-current': step.id === current ? 'step' : null, 'aria-label': `${t(`step.${step.id}`)} [${step.shape.join(',')}]` },
        el('span', { class: 'id' }, step.id),
        el('span', {}, step.axes.map((axis, i) => axisChip(axis, step.shape[i], lang)))))));
    list.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-id]');
      if (button) this.dispatchEvent(new CustomEvent('mha-step', { bubbles: true, composed: true, detail: { step: button.dataset.id } }));
    });
    this.#root.replaceChildren(list);
  }
}
