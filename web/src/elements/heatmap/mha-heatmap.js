// <mha-heatmap>: the attention heatmaps of one step (weights by default; scores, scaled and masked
// scores on a diverging scale), one per (batch, head), query tokens on the rows and key tokens on
// the columns, laid out as a grid of small multiples that fills the element's width. Masked cells
// are hatched (and read "−∞" or "masked"), so colour is never the only signal; heads that share a
// K/V head (GQA/MQA) sit in one labelled box. A colour scale to choose (relative to uniform, per
// head, fixed 0–1; shared or per head for scores) with its numbers in the legend; the average
// over heads (what nn.MultiheadAttention returns by default); a batch and head picker whenever
// not every panel is drawn. Exact values on hover and on keyboard focus (arrow keys inside a
// focused heatmap), and as a table. Data: the `run` property, the element's own config
// (attributes b, t, c, h, … or `config`), another element named by `for`, or precomputed
// attention (the `attention` property or `src="attention.json"`, logic/heatmap/attention-file.js).
// Attributes: step, batch, head, only, pinned, scale, average, cell-size, label-length,
// trained-href, lang. Fires `mha-select`.
import { formatBytes, formatCount, formatValue } from '../../logic/format.js';
import { heatmapScaleKinds, heatmapScales, legendNumbers, rampColors } from '../../logic/heatmap/colors.js';
import { averageOverHeads, keyLabels, maskedPath, panelGrid, panelPlan, panelFits, canvasCellPixels, MAX_AXIS, MAX_PANEL_CELLS } from '../../logic/heatmap/layout.js';
import { MAX_ATTENTION_BYTES, parseAttention, readAttention } from '../../logic/heatmap/attention-file.js';
import { parseTokens } from '../../logic/config-input.js';
import { entryOf, isScoresSized, stepTitle } from '../../catalogue/steps.js';
import { PageError } from '../../text/page-error.js';
import { translator } from '../../text/translate.js';
import { download, el, langOf, svg } from '../base/dom.js';
import { RunElement, showElementError } from '../base/run-element.js';
import { installProperties } from '../base/properties.js';
import { sheet } from '../base/styles.js';
import { paintCells, svgToPng } from './canvas.js';
import { exportSvgText } from './export.js';
import { buildPanel, hatchDefs } from './panel.js';

export { MAX_CELLS } from '../../logic/heatmap/layout.js';

const STYLES = sheet(`
.bar { display: flex; flex-wrap: wrap; gap: 0.5em 1.1em; align-items: center; margin-bottom: 0.4em; }
.bar label { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.3em; max-width: 100%; }
.bar select { max-width: 100%; }
.legend { display: inline-flex; flex-wrap: wrap; align-items: center; gap: 0.3em 0.5em; font-size: 0.85em; }
.legend .ramp-box { display: inline-grid; grid-template-columns: auto auto auto; align-items: center; column-gap: 0.3em; }
.legend svg.ramp { width: 8em; height: 1.1em; grid-column: 1 / -1; }
.legend .numbers { display: flex; justify-content: space-between; gap: 0.6em; grid-column: 1 / -1; }
.legend .swatch { display: inline-flex; align-items: center; gap: 0.3em; }
.notes p { margin: 0.2em 0; }
.picker { display: flex; flex-wrap: wrap; gap: 0.4em 1em; align-items: center; margin: 0.2em 0 0.5em; }
.picker label { display: inline-flex; gap: 0.3em; align-items: center; }
.grid { display: flex; flex-wrap: wrap; gap: 0.4em 8px; align-items: flex-start; }
.batch { margin: 0.2em 0 0.6em; min-width: 0; max-width: 100%; }
.batch h4 { margin: 0 0 0.3em; font-size: 0.95em; }
.groups { display: flex; flex-wrap: wrap; gap: 8px; }
.group { display: flex; flex-direction: column; max-width: 100%; }
.group .members { display: flex; flex-wrap: wrap; gap: 8px; }
.group.shared { border: 2px dashed var(--muted); border-radius: 8px; padding: 3px; }
.group-label { font-size: 0.8em; color: var(--muted); margin: 0; }
figure.panel { margin: 0; padding: 2px; border: 2px solid transparent; border-radius: 6px; position: relative; cursor: pointer; max-width: 100%; }
figure.panel[aria-current="true"] { border-color: var(--accent); }
figure.panel figcaption { font-size: 0.85em; text-align: center; }
figure.panel figcaption .range:not(:empty)::before { content: " · "; }
figure.panel svg { max-width: 100%; height: auto; display: block; }
canvas.cells { display: block; width: 100%; height: 100%; image-rendering: pixelated; }
.readout { min-height: 1.5em; font-size: 0.95em; }
.hm { position: relative; } /* the tip is placed in .hm's coordinates */
.tip { position: absolute; pointer-events: none; background: var(--fg); color: var(--bg); padding: 0.1em 0.4em; border-radius: 4px; font-size: 0.8em; white-space: nowrap; z-index: 2; }
.tip[hidden] { display: none; }
.table-view { overflow-x: auto; }
.table-view td.masked { background: repeating-linear-gradient(45deg, #e8e8e8 0 3px, #bbb 3px 5px); }
.exports { display: flex; gap: 0.4em; flex-wrap: wrap; }
`);

let legendCount = 0;
// Choices a batch or head picker lists; more get a number field.
const MAX_OPTIONS = 64;

export class MhaHeatmapElement extends RunElement {
  #run = null;
  #tokens = null;
  #attention = null; // precomputed attention (logic/heatmap/attention-file.js), or null
  #attentionStep = null;
  #ownData = false; // precomputed attention was given (even if it was refused)
  #loadTicket = 0;
  #active = null; // { panel, r, c } for the keyboard cursor
  #view = null; // what is on screen: { step, kind, maskedAt, labels, t, averaged }
  #built = null; // the elements drawn for one set of shapes (reused by the next run of them)
  #averages = new WeakMap(); // a weights step → its average over heads
  #width = 0;
  #observer = null;
  #resizeQueued = false;
  #scales = []; // the colour scale of each panel on screen
  #attentionFrom = null; // 'property' or 'src'
  #minExtent = 0;
  #origin = null;

  constructor() { super(STYLES); }

  connectedCallback() {
    super.connectedCallback();
    // The grid follows the element's width (a phone turned sideways, a resized window); drawn in
    // the next frame, not inside the observer's callback, which must not change sizes.
    this.#observer ??= new ResizeObserver((entries) => {
      const width = Math.floor(entries[0].contentRect.width);
      if (!width || width === this.#width) return;
      this.#width = width;
      if (!this.#built || this.#resizeQueued) return;
      this.#resizeQueued = true;
      requestAnimationFrame(() => {
        this.#resizeQueued = false;
        if (this.#built && this.#layoutKey(this.#layout()) !== this.#built.layoutKey) this.render();
      });
    });
    this.#observer.observe(this);
    if (this.hasAttribute('src') && !this.#attention) this.#load();
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    super.disconnectedCallback();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (name === 'src') {
      if (oldValue !== newValue && this.isConnected) this.#load();
      return;
    }
    if (name === 'tokens' && this.#ownData) {
      // Labels for precomputed attention that brought none.
      if (this.#attentionFrom === 'property') this.attention = this.#raw;
      else if (this.isConnected) this.#load();
      return;
    }
    super.attributeChangedCallback(name, oldValue, newValue);
  }

  providesOwnData() { return this.#ownData || this.hasAttribute('src'); }

  get run() { return this.#run; }
  set run(run) { this.takeRun(run, this.#tokens); }

  /**
   * Precomputed attention to draw instead of a run: nested arrays [H][Tq][Tk] or [B][H][Tq][Tk],
   * { shape, data } or a whole attention file (scripts/export_attention.py); labels from its
   * `tokens` or the element's. Checked before anything is drawn; a refusal says why, in the
   * element's language. Reads back as { shape: [B, H, Tq, Tk], data, tokens, keyTokens, … }.
   */
  get attention() { return this.#attention; }
  set attention(value) {
    this.#loadTicket++; // a file still loading for `src` is not wanted any more
    if (value === null || value === undefined) {
      // No attention any more: the element's config (or src) again.
      this.#ownData = false;
      this.#attention = null;
      this.#attentionFrom = null;
      if (this.hasAttribute('src')) this.#load(); else this.attachSource();
      return;
    }
    this.#ownData = true;
    this.#attentionFrom = 'property';
    this.#raw = value;
    this.detachSource();
    let attention;
    try {
      attention = readAttention(value, { tokens: this.#givenTokens() });
    } catch (error) {
      this.#refuse(error, translator(langOf(this))('attention.property'));
      return;
    }
    this.#show(attention);
  }

  #raw = null;

  acceptRun(run, tokens) {
    this.#run = run;
    this.#tokens = tokens;
    this.render();
  }

  followStep(id) { if (this.#steps().some((s) => s.id === id)) this.setAttribute('step', id); }

  /**
   * Query token labels, without a new run (the `tokens` attribute and property set T and B and run
   * again); keys use the same ones for self-attention, s0… for a separate source.
   */
  get labels() { return this.#tokens; }
  set labels(tokens) { this.#tokens = tokens; this.#labelsGiven = true; this.scheduleRender(); }

  /**
   * The least range of the scale relative to uniform, as the largest |w·n − 1| it spans (at least
   * 1: weight 0 to twice uniform). Heatmaps given the same one share a scale, so that a head at
   * step 0 beside the trained one is drawn as pale as its numbers are.
   */
  get minExtent() { return this.#minExtent; }
  set minExtent(value) {
    const extent = Number(value) > 0 ? Number(value) : 0;
    if (extent === this.#minExtent) return;
    this.#minExtent = extent;
    this.scheduleRender();
  }

  /**
   * Where the run's X and weights come from, for the note above the weights:
   * { x: 'seeded' | 'model', weights: 'seeded' | 'pasted' | 'trained', layer, step } (layer and
   * step of a trained model's block), or null: seeded X, and seeded weights while `seeded` is true.
   */
  get origin() { return this.#origin; }
  set origin(value) {
    const origin = value && typeof value === 'object' ? { ...value } : null;
    if (JSON.stringify(origin) === JSON.stringify(this.#origin)) return;
    this.#origin = origin;
    this.scheduleRender();
  }

  // The origin drawn: the one given, else what `seeded` says (with weights not seeded, an
  // author's own, over the engine's seeded X unless told otherwise).
  #originNow() {
    if (this.#origin) return this.#origin;
    return this.seeded ? { x: 'seeded', weights: 'seeded' } : null;
  }

  get stepId() {
    const id = this.getAttribute('step');
    return this.#steps().some((s) => s.id === id) ? id : 'weights';
  }

  /**
   * The panel drawn as selected, { batch, head }: the `batch` and `head` attributes (and
   * properties) when this run has them, else 0.
   */
  get selected() { return { batch: this.#batch, head: this.#head }; }

  get #batch() { return this.#clamp(Number(this.getAttribute('batch') ?? 0), this.#summary()?.B); }
  get #head() { return this.#clamp(Number(this.getAttribute('head') ?? 0), this.#summary()?.H); }

  /** The colour scale drawn: the `scale` attribute if the step offers it, else the step's default. */
  get scaleShown() {
    const step = this.#steps().find((s) => s.id === this.stepId);
    if (!step) return null;
    const kinds = heatmapScaleKinds(step);
    return kinds.includes(this.getAttribute('scale')) ? this.getAttribute('scale') : kinds[0];
  }

  #clamp(value, size) {
    return Number.isInteger(value) && value >= 0 && value < (size ?? 1) ? value : 0;
  }

  // --- Where the numbers come from: a run, or precomputed attention. ---------------------------

  #steps() {
    if (this.#attention) return [this.#attentionStep];
    return this.#run?.steps.filter(isScoresSized) ?? [];
  }

  #summary() {
    if (this.#attention) {
      const [B, H, T, Tk] = this.#attention.shape;
      return { B, H, Hkv: H, T, Tk, cross: T !== Tk };
    }
    return this.#run?.summary ?? null;
  }

  #labels() {
    if (this.#attention) return { rows: this.#attention.tokens, cols: this.#attention.keyTokens };
    const { T, Tk, cross } = this.#run.summary;
    const rows = this.#tokens?.length === T ? this.#tokens : Array.from({ length: T }, (_, i) => `t${i}`);
    return { rows, cols: keyLabels(rows, Tk, cross) };
  }

  // Labels for precomputed attention that brings none: the tokens attribute (or property), else
  // labels set as such (not a run's).
  #givenTokens() {
    if (this.hasAttribute('tokens')) return parseTokens(this.getAttribute('tokens'));
    return this.#labelsGiven && Array.isArray(this.#tokens) ? this.#tokens : undefined;
  }

  #labelsGiven = false;

  #show(attention) {
    this.#attention = attention;
    this.#attentionStep = { id: 'weights', op: 'softmax', shape: attention.shape, axes: entryOf('weights').axes.split(','), data: attention.data, changesValues: true };
    this.#run = null;
    this.shadowRoot.querySelector(':scope > .element-error')?.remove();
    this.render();
  }

  // Attention that cannot be drawn: the reason, in the element's language, and `mha-error`.
  #refuse(cause, src) {
    this.#attention = null;
    this.#built = null;
    showElementError(this, new PageError({ code: cause.code ?? 'bad_value', field: 'attention', key: 'attention.refused', params: { src }, cause }));
  }

  // Fetches and checks src="attention.json": JSON only, never run; a newer src or an `attention`
  // property set meanwhile wins.
  async #load() {
    const src = this.getAttribute('src');
    const ticket = ++this.#loadTicket;
    if (!src) {
      this.#ownData = false;
      this.#attention = null;
      this.attachSource();
      return;
    }
    this.#ownData = true;
    this.#attentionFrom = 'src';
    this.detachSource();
    let attention;
    // A server that never finishes is given up on, with its name, rather than loading forever.
    const abort = new AbortController();
    const timer = setTimeout(() => abort.abort(), SRC_TIMEOUT_MS);
    try {
      let response;
      try {
        response = await fetch(new URL(src, document.baseURI), { credentials: 'same-origin', signal: abort.signal });
      } catch (error) {
        throw new PageError({ code: 'missing', field: 'src', key: 'attention.fetch', params: { src, detail: abort.signal.aborted ? `${SRC_TIMEOUT_MS / 1000} s` : error.message } });
      }
      if (!response.ok) throw new PageError({ code: 'missing', field: 'src', key: 'attention.fetch', params: { src, detail: `HTTP ${response.status}` } });
      attention = parseAttention(await boundedText(response, abort, src), { tokens: this.#givenTokens() });
    } catch (error) {
      clearTimeout(timer);
      if (ticket === this.#loadTicket) this.#refuse(error, src);
      return;
    }
    clearTimeout(timer);
    if (ticket === this.#loadTicket) this.#show(attention);
  }

  // --- What is drawn. ---------------------------------------------------------------------------

  // The mean over heads replaces the heads when asked for, for the weights of more than one head.
  #averaged(step) {
    if (!this.hasAttribute('average') || step.op !== 'softmax' || step.shape[1] < 2) return null;
    if (!this.#averages.has(step)) this.#averages.set(step, averageOverHeads(step));
    return this.#averages.get(step);
  }

  // Masked cells of the step drawn (masked scores and weights), by index into what is drawn.
  #maskedAt(step, averaged) {
    const masked = this.#run?.steps.find((s) => s.id === 'masked');
    if (!masked && step.id === 'weights' && this.#run?.summary.mask === 'causal' && !this.#run.summary.cross) {
      // Weights without the scores they came from (a trained model's heads): a causal mask hides
      // every key after its query, which each query's uniform weight 1/n must leave out.
      const [, , Tq, Tk] = step.shape;
      return (i) => i % Tk > Math.floor(i / Tk) % Tq;
    }
    if (!masked || !masked.changesValues || (step.id !== 'masked' && step.id !== 'weights')) return null;
    if (!averaged) return (i) => masked.data[i] === -Infinity;
    // The mask is the same for every head: cell i of batch row b's mean is head 0's.
    const [, H, Tq, Tk] = step.shape;
    const block = Tq * Tk;
    return (i) => masked.data[(Math.floor(i / block) * H) * block + (i % block)] === -Infinity;
  }

  #layout() {
    const { panels, shown } = this.#plan();
    const labels = this.#labels();
    const cellSize = Number(this.getAttribute('cell-size'));
    const labelLength = Number(this.getAttribute('label-length'));
    const width = this.#width || this.clientWidth || this.parentElement?.clientWidth || 640;
    const grouped = !shown.averaged && this.#summary().Hkv < this.#summary().H;
    const perBatch = panels.filter((p) => p.b === panels[0].b).length;
    return panelGrid({ width, count: panels.length, group: perBatch, rows: shown.shape[2], cols: shown.shape[3], rowLabels: labels.rows, colLabels: labels.cols,
      cellSize: Number.isFinite(cellSize) && cellSize >= 1 ? Math.min(cellSize, 200) : undefined,
      labelLength: Number.isInteger(labelLength) && labelLength >= 1 ? labelLength : undefined, frame: grouped ? 18 : 8, gap: 8 });
  }

  #layoutKey(layout) { return `${layout.columns} ${layout.cell} ${layout.labelLength}`; }

  // Which panels are drawn: all, or (over MAX_CELLS, or `only`) the selected batch row, then head.
  #plan() {
    const step = this.#steps().find((s) => s.id === this.stepId);
    const averaged = this.#averaged(step);
    const shown = averaged ?? step;
    const { batch, head } = this.selected;
    const { panels, total } = panelPlan(shown.shape, averaged ? 1 : this.#summary().Hkv, { batch, head, only: this.hasAttribute('only'), averaged: Boolean(averaged) });
    return { step, averaged, shown, total, panels };
  }

  #select(b, h, { focus = false } = {}) {
    this.setAttribute('batch', b);
    this.setAttribute('head', h);
    this.render(); // now, so that keyboard focus can move to the redrawn panel
    if (focus) this.shadowRoot.querySelector(`figure.panel[data-b="${b}"][data-h="${this.#view?.averaged ? 0 : h}"]`)?.focus();
    this.#announce();
  }

  #announce() {
    this.dispatchEvent(new CustomEvent('mha-select', { bubbles: true, composed: true,
      detail: { step: this.stepId, batch: this.#batch, head: this.#head, scale: this.getAttribute('scale'), average: this.hasAttribute('average') } }));
  }

  draw() {
    const lang = langOf(this);
    const t = translator(lang);
    if (!this.#summary()) {
      this.#built = null;
      if (!this.shadowRoot.querySelector('.element-error')) this.shadowRoot.replaceChildren(this.placeholder(t));
      return;
    }
    if (!this.#steps().length) {
      this.#built = null;
      this.shadowRoot.replaceChildren(el('p', { class: 'note' }, t('hm.noSteps')));
      return;
    }
    const { step, averaged, shown, total, panels } = this.#plan();
    const summary = this.#summary();
    if (!panelFits(shown.shape[2], shown.shape[3])) {
      // One head too big to draw in a frame: its sizes instead of a page blocked for seconds.
      this.#built = null;
      this.shadowRoot.replaceChildren(el('p', { class: 'note too-large' }, t('hm.tooLarge', { rows: formatCount(shown.shape[2]), cols: formatCount(shown.shape[3]),
        max: formatCount(MAX_PANEL_CELLS), axis: formatCount(MAX_AXIS) })));
      return;
    }
    const labels = this.#labels();
    const kind = this.scaleShown;
    const maskedAt = this.#maskedAt(step, Boolean(averaged));
    const layout = this.#layout();
    this.#view = { step: shown, kind, maskedAt: maskedAt ?? (() => false), hasMask: Boolean(maskedAt), labels, t, averaged: averaged ? summary.H : 0 };
    // A new run of the same shapes (another seed, other weights) keeps every element and only
    // repaints the numbers: no new elements, so no style or layout work for the whole heatmap.
    const key = JSON.stringify([lang, step.id, shown.shape, summary.Hkv, panels.map((p) => `${p.b}.${p.h}`), labels, Boolean(maskedAt), kind,
      Boolean(averaged), this.#layoutKey(layout), this.hasAttribute('pinned'), this.#batch, this.#head, this.#steps().map((s) => s.id),
      this.seeded, this.#originNow(), this.getAttribute('trained-href'), this.#attention?.title ?? null]);
    if (this.#built?.key === key && this.shadowRoot.contains(this.#built.section)) {
      this.#repaint();
      return;
    }

    const heatmapSteps = this.#steps();
    const stepSelect = el('select', { 'aria-label': t('hm.step'), class: 'step-select' },
      heatmapSteps.map(({ id }) => el('option', { value: id, selected: id === step.id }, this.#title(t, id))));
    stepSelect.addEventListener('change', () => {
      this.setAttribute('step', stepSelect.value);
      this.#announce();
    });
    const scaleSelect = el('select', { class: 'scale-select', 'aria-label': t('hm.scale') },
      heatmapScaleKinds(step).map((name) => el('option', { value: name, selected: name === kind }, t(`hm.scale.${name}`))));
    scaleSelect.addEventListener('change', () => {
      this.setAttribute('scale', scaleSelect.value);
      this.#announce();
    });
    const averageBox = el('input', { type: 'checkbox', class: 'average', checked: Boolean(averaged) });
    averageBox.addEventListener('change', () => {
      this.toggleAttribute('average', averageBox.checked);
      this.#announce();
    });
    const exports = el('div', { class: 'exports', 'data-control': '' },
      el('button', { type: 'button', 'data-export': 'png', 'aria-label': t('hm.exportPng') }, 'PNG'),
      el('button', { type: 'button', 'data-export': 'svg', 'aria-label': t('hm.exportSvg') }, 'SVG'));
    exports.addEventListener('click', (event) => this.#export(event.target.closest('button')?.dataset.export));
    const legend = this.#legend(shown, Boolean(maskedAt), t);
    const bar = el('div', { class: 'bar', part: 'bar' },
      this.hasAttribute('pinned') || heatmapSteps.length < 2 ? null : el('label', { 'data-control': '' }, `${t('hm.step')} `, stepSelect),
      el('label', { 'data-control': '' }, `${t('hm.scale')} `, scaleSelect),
      step.op === 'softmax' && summary.H > 1 ? el('label', { class: 'average-toggle', 'data-control': '' }, averageBox, t('hm.average')) : null,
      legend.element, exports);

    const notes = el('div', { class: 'notes' },
      this.#attention?.title ? el('p', { class: 'attention-title' }, this.#attention.title) : null,
      this.#attention?.source ? el('p', { class: 'note attention-source' }, this.#attention.source) : null,
      !this.#attention && step.op === 'softmax' ? this.#originNote(t) : null,
      averaged ? el('p', { class: 'note average-note' }, t('hm.averageNote', { H: summary.H })) : null,
      legend.floorNote);
    // `only` draws the one panel its author chose (a head's card): nothing to pick, nothing left out.
    const picker = panels.length < total && !this.hasAttribute('only') ? this.#picker(t, summary, Boolean(averaged), panels.length, total) : null;

    const readout = el('p', { class: 'readout', 'aria-live': 'polite', 'data-control': '' }, t('hm.hint'));
    const tip = el('div', { class: 'tip', hidden: true });
    const self = this;
    const host = {
      readout, tip,
      box: () => this.shadowRoot.querySelector('.hm').getBoundingClientRect(),
      get active() { return self.#active; },
      set active(value) { self.#active = value; },
      select: (b, h, options) => this.#select(b, h, options),
    };
    const grid = el('div', { class: 'grid', part: 'grid' });
    const { geometry } = layout;
    const Hkv = averaged ? 1 : summary.Hkv;
    const group = averaged ? 1 : summary.H / Hkv;
    const pictures = [];
    const view = () => this.#view;
    // The drawn panels by batch row, then K/V head: loops over what is drawn, never over B or Hkv.
    const byBatch = new Map();
    for (const panel of panels) {
      if (!byBatch.has(panel.b)) byBatch.set(panel.b, new Map());
      const kvs = byBatch.get(panel.b);
      if (!kvs.has(panel.kvHead)) kvs.set(panel.kvHead, []);
      kvs.get(panel.kvHead).push(panel);
    }
    for (const [b, kvs] of byBatch) {
      const groups = el('div', { class: 'groups' });
      for (const [kv, members] of kvs) {
        const shared = group > 1;
        const sharedText = shared ? t('hm.shared', { kv, heads: members.map((p) => p.h).join(', ') }) : null;
        const box = el('div', { class: shared ? 'group shared' : 'group', role: shared ? 'group' : null, 'aria-label': sharedText });
        if (shared) box.append(el('p', { class: 'group-label' }, sharedText));
        box.append(el('div', { class: 'members' }, members.map((panel) => {
          const caption = averaged ? t('hm.mean', { H: summary.H }) : t('hm.head', { h: panel.h }) + (summary.Hkv !== summary.H ? ` · KV ${panel.kvHead}` : '');
          const label = averaged
            ? t('hm.panelLabelMean', { step: this.#title(t, step.id), b: panel.b, H: summary.H, rows: panel.rows, cols: panel.cols })
            : t('hm.panelLabel', { step: this.#title(t, step.id), b: panel.b, h: panel.h, rows: panel.rows, cols: panel.cols });
          const picture = buildPanel({ panel, geometry, caption, label, selected: panel.b === this.#batch && (averaged || panel.h === this.#head), view, host });
          pictures.push(picture);
          return picture.figure;
        })));
        groups.append(box);
      }
      grid.append(el('section', { class: 'batch', 'aria-label': `b=${b}` }, summary.B > 1 ? el('h4', {}, t('hm.batch', { b })) : null, groups));
    }
    const table = this.#table(t, shown, Boolean(averaged));
    // An open table stays open for the new step or head (#repaint fills it).
    if (this.#built?.table.details.open) table.details.open = true;
    const section = el('section', { class: 'hm', 'aria-label': t('hm.label') }, bar, notes, picker, grid, readout, tip, table.details);
    this.#built = { key, layoutKey: this.#layoutKey(layout), section, geometry, pictures, legend, table, readout, tip };
    this.#repaint();
    this.shadowRoot.querySelector(':scope > .element-error')?.remove();
    this.shadowRoot.replaceChildren(section);
  }

  #title(t, id) {
    return this.#attention ? t('hm.precomputed') : stepTitle(t, id, this.#run.summary);
  }

  // The numbers of the current run into the elements already built for its shapes: canvas pixels,
  // masked cells, the legend's range, each panel's range (per head), the table and the readout.
  #repaint() {
    const { step, kind, maskedAt, hasMask, t } = this.#view;
    const { geometry, pictures, legend, table, readout, tip } = this.#built;
    const masked = hasMask ? maskedAt : null;
    const scales = heatmapScales(step, pictures.map((picture) => picture.panel), kind, masked, { minExtent: this.#minExtent });
    const gap = canvasCellPixels(geometry) === 1 ? 0 : 1;
    pictures.forEach((picture, k) => {
      paintCells(picture.canvas, step.data, picture.panel, geometry, scales[k], masked);
      picture.mask.setAttribute('d', hasMask ? maskedPath(geometry, (r, c) => maskedAt(picture.panel.offset + r * picture.panel.cols + c), gap) : '');
      picture.range.textContent = kind === 'head' ? `${formatValue(scales[k].min, 3)}–${formatValue(scales[k].max, 3)}` : '';
    });
    this.#scales = scales;
    const selected = Math.max(0, pictures.findIndex((picture) => picture.figure.getAttribute('aria-current') === 'true'));
    legend.fill(scales[selected], t);
    table.refresh();
    const focused = pictures.find((picture) => picture.figure.matches(':focus'));
    if (focused && this.#active) {
      focused.show(this.#active.r, this.#active.c);
    } else {
      for (const picture of pictures) picture.hide();
      readout.textContent = t('hm.hint');
      tip.hidden = true;
    }
  }

  // The legend: the ramp, its numbers (low, middle, high) and, for a scale relative to each row's
  // uniform weight, what the middle means; the hatch when something is masked.
  #legend(step, hasMask, t) {
    const id = `legend-${++legendCount}`;
    const gradient = svg('linearGradient', { id });
    const tick = svg('line', { y1: 0, y2: 14, stroke: '#1d1f24', 'stroke-width': 1.2, visibility: 'hidden' });
    // Relative to uniform: the part of the scale this view's weights reach, outlined.
    const reached = svg('rect', { class: 'reached', y: 0.75, height: 12.5, fill: 'none', stroke: '#1d1f24', 'stroke-width': 1.5, 'vector-effect': 'non-scaling-stroke', visibility: 'hidden' });
    const bar = svg('svg', { class: 'ramp', viewBox: '0 0 100 14', role: 'img', preserveAspectRatio: 'none' },
      svg('defs', {}, gradient), svg('rect', { width: 100, height: 14, fill: `url(#${id})` }), reached, tick);
    const low = el('span', { class: 'mono', 'data-legend': 'min' });
    const middle = el('span', { class: 'mono', 'data-legend': 'mid' });
    const high = el('span', { class: 'mono', 'data-legend': 'max' });
    const note = el('span', { class: 'legend-note', 'data-legend': 'note' });
    const reachedText = el('span', { class: 'legend-reached', 'data-legend': 'reached' });
    // Why near-uniform weights look pale: shown when the scale's minimum range, not the weights, set it.
    // (A control-less heatmap, such as a trainer's head card, leaves it to its page to say once.)
    const floorNote = el('p', { class: 'note floor-note', hidden: true, 'data-control': '' });
    const element = el('div', { class: 'legend' },
      el('span', { class: 'ramp-box' }, bar, el('span', { class: 'numbers' }, low, middle, high)), reachedText, note,
      hasMask ? el('span', { class: 'swatch' }, svg('svg', { viewBox: '0 0 14 14', width: 14, height: 14, 'aria-hidden': 'true' }, hatchDefs('legend-hatch'), svg('rect', { width: 14, height: 14, fill: 'url(#legend-hatch)' })), ` ${t(step.id === 'weights' ? 'hm.maskedZero' : 'hm.maskedInf')}`) : null);
    // The part of the ramp the values reach, with a tick where uniform (or 0) is.
    const fill = (scale) => {
      const numbers = legendNumbers(scale, step, t);
      gradient.replaceChildren(...rampColors(scale.ramp, 11, numbers.from, numbers.to).map((color, i) => svg('stop', { offset: i / 10, 'stop-color': color })));
      tick.setAttribute('x1', numbers.midAt * 100);
      tick.setAttribute('x2', numbers.midAt * 100);
      tick.setAttribute('visibility', numbers.numbers[1] === null ? 'hidden' : 'visible');
      low.textContent = numbers.numbers[0];
      middle.textContent = numbers.numbers[1] ?? '';
      high.textContent = numbers.numbers[2];
      note.textContent = numbers.note ?? '';
      reached.setAttribute('visibility', numbers.reached ? 'visible' : 'hidden');
      if (numbers.reached) {
        reached.setAttribute('x', numbers.reached.from * 100);
        reached.setAttribute('width', Math.max(0.8, (numbers.reached.to - numbers.reached.from) * 100));
      }
      reachedText.textContent = numbers.reached ? t('hm.reached', { range: numbers.reachedText }) : '';
      floorNote.hidden = !scale.floored;
      floorNote.textContent = scale.floored ? t('hm.floor', { range: numbers.reachedText, top: numbers.numbers[2] }) : '';
      const reachedLabel = numbers.reached ? `; ${t('hm.reached', { range: numbers.reachedText })}` : '';
      bar.setAttribute('aria-label', `${t('hm.range')} ${numbers.numbers.filter((n) => n !== null).join(' … ')}${reachedLabel}${numbers.note ? ` (${numbers.note})` : ''}`);
    };
    return { element, fill, floorNote };
  }

  // What is true of this run's X and weights: both seeded (random, near-uniform attention), real
  // weights over seeded X, or a trained model's block over its own input.
  #originNote(t) {
    const origin = this.#originNow();
    if (!origin) return null;
    if (origin.weights === 'trained') {
      const key = origin.step === 0 ? 'hm.origin.trainedStart' : 'hm.origin.trained';
      return el('p', { class: 'note origin-note', 'data-origin': 'trained' }, t(key, { layer: origin.layer ?? 0, step: origin.step ?? 0 }));
    }
    if (origin.weights === 'pasted') return el('p', { class: 'note origin-note', 'data-origin': 'pasted' }, t('hm.origin.pasted'));
    return this.#seededNote(t);
  }

  #seededNote(t) {
    // A fragment on this page, or an http(s) page: an author's attribute never becomes a script link.
    const raw = this.getAttribute('trained-href');
    const href = raw && (raw.startsWith('#') || /^https?:$/.test(safeProtocol(raw))) ? raw : null;
    const link = href ? el('a', { href, class: 'trained-link' }, t('hm.trainedLink')) : null;
    // The section may live in the same shadow root as this heatmap (the docs page's playground),
    // where a fragment link cannot reach: scroll to it there.
    link?.addEventListener('click', (event) => {
      if (!href.startsWith('#') || document.getElementById(href.slice(1))) return;
      const target = this.getRootNode().getElementById?.(href.slice(1));
      if (!target) return;
      event.preventDefault();
      target.scrollIntoView({ block: 'start' });
      target.focus?.({ preventScroll: true });
    });
    return el('p', { class: 'note seeded-note origin-note', 'data-origin': 'seeded' }, t('hm.seeded'), link ? ' ' : null, link);
  }

  #picker(t, summary, averaged, shown, total) {
    // A list of up to MAX_OPTIONS choices, else a number field: 65,536 heads are not 65,536 options.
    const choose = (className, label, count, selected, text) => (count <= MAX_OPTIONS
      ? el('select', { class: className, 'aria-label': label }, Array.from({ length: count }, (_, i) => el('option', { value: i, selected: i === selected }, text(i))))
      : el('input', { class: className, 'aria-label': label, type: 'number', min: 0, max: count - 1, step: 1, value: selected, inputmode: 'numeric' }));
    const batch = choose('pick-batch', t('hm.pickBatch'), summary.B, this.#batch, (b) => `b = ${b}`);
    const head = choose('pick-head', t('hm.pickHead'), summary.H, this.#head, (h) => t('hm.head', { h }));
    batch.addEventListener('change', () => this.#select(Number(batch.value), this.#head));
    head.addEventListener('change', () => this.#select(this.#batch, Number(head.value)));
    return el('div', { class: 'picker' }, el('p', { class: 'note' }, t('hm.partial', { n: shown, m: total })),
      summary.B > 1 ? el('label', {}, `${t('hm.pickBatch')} `, batch) : null,
      averaged ? null : el('label', {}, `${t('hm.pickHead')} `, head));
  }

  // The table view of the selected head (or mean). Its header (the tokens) is built now; its T×Tk
  // cells are built when the reader opens it (and again for each new run while it is open), which
  // keeps a closed table of 16 K cells at T=128 from costing every run.
  #table(t, step, averaged) {
    const { labels } = this.#view;
    const panel = panelPlan(step.shape, 1, { batch: this.#batch, head: this.#head, only: true, averaged }).panels[0];
    const tbody = el('tbody', {});
    const which = averaged ? t('hm.mean', { H: this.#summary().H }) : t('hm.head', { h: panel.h });
    const table = el('table', {},
      el('caption', { class: 'visually-hidden' }, t('hm.tableCaption', { step: this.#title(t, step.id), b: panel.b, which })),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, `${t('hm.query')} \\ ${t('hm.key')}`), labels.cols.map((label) => el('th', { scope: 'col' }, label)))),
      tbody);
    const details = el('details', { class: 'table-view' },
      el('summary', {}, t('hm.table', { b: panel.b, which, n: formatCount(panel.rows * panel.cols) })), table);
    const fill = () => {
      const { step: now, maskedAt } = this.#view;
      tbody.replaceChildren(...Array.from({ length: panel.rows }, (_, r) => el('tr', {}, el('th', { scope: 'row' }, labels.rows[r]),
        Array.from({ length: panel.cols }, (_, c) => {
          const i = panel.offset + r * panel.cols + c;
          const masked = maskedAt(i);
          return el('td', { class: masked ? 'masked mono' : 'mono', 'data-value': now.data[i] }, formatValue(now.data[i]), masked && now.id === 'weights' ? ` (${t('hm.masked')})` : '');
        }))));
      details.dataset.filled = 'true';
    };
    details.addEventListener('toggle', () => { if (details.open && !details.dataset.filled) fill(); });
    const refresh = () => {
      if (details.open) fill();
      else if (details.dataset.filled) { tbody.replaceChildren(); delete details.dataset.filled; }
    };
    return { details, refresh, panel };
  }

  #fileName(ext) {
    return `mha-lens-${this.stepId}-b${this.#batch}-${this.#view?.averaged ? 'mean' : `h${this.#head}`}.${ext}`;
  }

  async #export(kind) {
    if (kind !== 'svg' && kind !== 'png') return;
    try {
      if (kind === 'svg') download(new Blob([this.exportSvg()], { type: 'image/svg+xml' }), this.#fileName('svg'));
      else download(await this.exportPng(), this.#fileName('png'));
    } catch (error) {
      if (this.#built) this.#built.readout.textContent = translator(langOf(this))('hm.exportFailed', { detail: error.message });
    }
  }

  /** The selected heatmap as a standalone SVG document: title, labels, cells, legend with its numbers. */
  exportSvg() {
    const { step, maskedAt, labels, averaged } = this.#view;
    const { pictures } = this.#built;
    const index = Math.max(0, pictures.findIndex((picture) => picture.figure.getAttribute('aria-current') === 'true'));
    const { panel } = pictures[index];
    const t = translator(langOf(this));
    const which = averaged ? t('hm.mean', { H: averaged }) : t('hm.head', { h: panel.h });
    const title = `${this.#title(t, step.id)} · b=${panel.b} · ${which} · ${t(`hm.scale.${this.#view.kind}`)}`;
    const scale = this.#scales[index];
    return exportSvgText({ step, panel, scale, maskedAt, labels, title, legend: { ramp: scale.ramp, ...legendNumbers(scale, step, t) } });
  }

  /** The selected heatmap as a PNG, drawn from the same cells, labels and legend as the SVG. */
  async exportPng() {
    const blob = await svgToPng(this.exportSvg());
    if (!blob) throw new Error('no image');
    return blob;
  }
}

// How long a src file may take to arrive.
const SRC_TIMEOUT_MS = 30_000;

// A response's text, refused as soon as it passes MAX_ATTENTION_BYTES (by its Content-Length, or
// while it streams): a 200 MB file is not read whole to be told it is too large.
async function boundedText(response, abort, src) {
  const tooLarge = (size) => new PageError({ code: 'tooLarge', field: 'src', key: 'import.error.tooLarge', params: { size: formatBytes(size), max: formatBytes(MAX_ATTENTION_BYTES) } });
  const declared = Number(response.headers.get('content-length'));
  if (declared > MAX_ATTENTION_BYTES) {
    abort.abort();
    throw tooLarge(declared);
  }
  if (!response.body?.getReader) return response.text();
  const reader = response.body.getReader();
  const chunks = [];
  let size = 0;
  for (;;) {
    let part;
    try {
      part = await reader.read();
    } catch (error) {
      throw new PageError({ code: 'missing', field: 'src', key: 'attention.fetch', params: { src, detail: abort.signal.aborted ? `${SRC_TIMEOUT_MS / 1000} s` : error.message } });
    }
    if (part.done) break;
    size += part.value.byteLength;
    if (size > MAX_ATTENTION_BYTES) {
      abort.abort();
      throw tooLarge(size);
    }
    chunks.push(part.value);
  }
  const bytes = new Uint8Array(size);
  let at = 0;
  for (const chunk of chunks) {
    bytes.set(chunk, at);
    at += chunk.byteLength;
  }
  return new TextDecoder().decode(bytes);
}

function safeProtocol(url) {
  try {
    return new URL(url, document.baseURI).protocol;
  } catch {
    return '';
  }
}

installProperties(MhaHeatmapElement, 'mha-heatmap');
