// What the playground's walkthrough shows: its own seeded run (tokens are labels over seeded X),
// or one layer's attention block of the trained model on the page (<mha-trainer>: its X, weights
// and the probe's tokens), forward only or continuing after `output` with the backward pass of one
// training step. The playground puts this bar above its walkthrough and hands it its elements.
import { el } from '../base/dom.js';
import { sheet } from '../base/styles.js';

export const BLOCK_STYLES = sheet(`
.block-source { display: flex; flex-wrap: wrap; gap: 0.4em 1.2em; align-items: center; margin: 0 0 0.6em; }
.block-source label { display: inline-flex; gap: 0.4em; align-items: center; }
.block-source input[type="checkbox"] { width: 1.2em; height: 1.2em; }
.block-source select { min-height: 2.2em; }
.block-note { font-size: 0.88em; margin: 0 0 0.8em; border-left: 3px solid var(--accent); padding-left: 0.6em; max-width: 52em; }
`);

// The most layers a trainer has (the engine's limit): a layer asked for beyond it is its last.
const MAX_LAYERS = 4;

export class BlockSourcePanel {
  #host;
  #onChange;
  #layer = null; // null: the seeded run
  #backward = false;
  #layers = 1;
  #ticket = 0;

  /** `host`: the playground (its trainer is a child, or elsewhere on the page); `onChange()`: the reader changed the source. */
  constructor({ t, host, state, onChange }) {
    this.t = t;
    this.#host = host;
    this.#onChange = onChange;
    if (state) this.state = state;
    this.use = el('input', { type: 'checkbox', id: 'block-use', name: 'block' });
    this.layer = el('select', { id: 'block-layer', name: 'blockLayer', 'aria-label': t('block.layer') });
    this.backward = el('input', { type: 'checkbox', id: 'block-backward', name: 'backward' });
    this.note = el('p', { class: 'block-note', 'aria-live': 'polite' });
    this.use.addEventListener('change', () => this.#set({ layer: this.use.checked ? Number(this.layer.value) || 0 : null, backward: this.use.checked && this.#backward }));
    this.layer.addEventListener('change', () => this.#set({ layer: Number(this.layer.value), backward: this.#backward }));
    // The backward pass is one training step's: it needs the trained model's block.
    this.backward.addEventListener('change', () => this.#set({ layer: this.backward.checked ? (this.#layer ?? 0) : this.#layer, backward: this.backward.checked }));
    this.element = el('div', {},
      el('div', { class: 'block-source', role: 'group', 'aria-label': t('block.use') },
        el('label', {}, this.use, t('block.use')),
        el('label', {}, `${t('block.layer')} `, this.layer),
        el('label', {}, this.backward, t('block.backward'))),
      this.note);
    this.#show();
  }

  /** { layer (null: seeded), backward }: what the URL keeps. */
  get state() { return { layer: this.#layer, backward: this.#backward }; }
  set state({ layer = null, backward = false } = {}) {
    this.#layer = Number.isInteger(layer) && layer >= 0 ? Math.min(layer, MAX_LAYERS - 1) : null;
    this.#backward = Boolean(backward) && this.#layer !== null;
    if (this.use) this.#show();
  }

  /** True when the walkthrough shows the trained model's block. */
  get active() { return this.#layer !== null; }

  /** The trainer whose block is shown: the playground's child, else the page's first. */
  get trainer() {
    return this.#host.querySelector('mha-trainer') ?? document.querySelector('mha-trainer');
  }

  #set(state) {
    this.state = state;
    this.#onChange();
  }

  #show() {
    const { t } = this;
    const trainer = this.trainer;
    this.use.checked = this.active;
    this.use.disabled = !trainer;
    this.backward.checked = this.#backward;
    this.backward.disabled = !trainer;
    const count = Math.max(this.#layers, (this.#layer ?? 0) + 1);
    if (this.layer.options.length !== count) this.layer.replaceChildren(...Array.from({ length: count }, (_, i) => el('option', { value: String(i) }, String(i))));
    this.layer.value = String(this.#layer ?? 0);
    this.layer.disabled = !this.active;
    if (!trainer) this.note.textContent = `${t('block.seeded')} ${t('block.noTrainer')}`;
    else if (!this.active) this.note.textContent = t('block.seeded');
  }

  /**
   * Shows the source in `elements` ({ walkthrough, heatmap, shapes }): nothing to do for the
   * seeded run (the playground has handed it already); the trained block is asked of the trainer.
   * Returns true when it drew the trained block.
   */
  async apply({ walkthrough, heatmap, shapes }) {
    this.#show();
    const trainer = this.trainer;
    if (!this.active || !trainer) return false;
    const ticket = ++this.#ticket;
    this.note.textContent = this.t('block.waiting');
    let block;
    try {
      block = await trainer.blockRun({ layer: this.#layer, backward: this.#backward });
    } catch {
      return false; // the trainer shows its own error
    }
    if (ticket !== this.#ticket || !this.active) return false;
    this.#layers = block.layers;
    if (this.#layer >= block.layers) {
      this.#layer = block.layers - 1;
      return this.apply({ walkthrough, heatmap, shapes });
    }
    const tokens = block.tokens.map(String);
    const { T, C, H } = block.run.summary;
    walkthrough.labels = tokens;
    walkthrough.run = block.run;
    heatmap.labels = tokens;
    heatmap.origin = { x: 'model', weights: 'trained', layer: this.#layer, step: block.step };
    heatmap.run = block.run;
    shapes.run = block.run;
    this.#show();
    this.note.textContent = `${this.t('block.trained', { layer: this.#layer, step: block.step, T, C, H })}${this.#backward ? ` ${this.t('block.backwardNote')}` : ''}`;
    return true;
  }
}
