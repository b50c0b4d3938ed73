// <mha-walkthrough>: the stepper. Each step shows its title, formula (KaTeX, MathML output),
// the formula with this config's numbers, the shape as axis chips, three answers read from the
// snapshot, a picture of the tensor that animates one kind of change at a time, and its memory
// layout. The run comes in as the `run` property (from <mha-playground>), or from the element's
// own config (attributes b, t, c, h, … or the `config` property), or from another element named
// by `for`. `from`/`to` limit it to a range of steps, `step` pins it to one. Fires a bubbling
// `mha-step` event when the step changes and `mha-run` (once) when it has a new run.
import { formatCount, shapeText } from '../../logic/format.js';
import { scaleFor } from '../../logic/heatmap/colors.js';
import { MAX_PICTURE_CELLS, cellSources, changeKind, pictureLayout } from '../../logic/walkthrough/tensor-picture.js';
import { keyLabels, labelEm, shortLabel } from '../../logic/heatmap/layout.js';
import { maskBroadcast, memoryLayout, stepAnswers } from '../../logic/walkthrough/walkthrough-text.js';
import { JACOBIAN_LATEX, JACOBIAN_STEP, gradientOf } from '../../logic/walkthrough/backward-text.js';
import { renderMath } from '../../logic/math.js';
import { inputStep, stepTitle } from '../../catalogue/steps.js';
import { shapeFormulaOf, shapeFormulaText } from '../../catalogue/shape-formula.js';
import { translator } from '../../text/translate.js';
import { axisChip, el, langOf, patchChildren, reducedMotion, svg } from '../base/dom.js';
import { RunElement } from '../base/run-element.js';
import { installProperties } from '../base/properties.js';
import { sheet } from '../base/styles.js';

const UNIT = 10; // SVG units per cell in the tensor picture
const MAX_PX_PER_UNIT = 0.17 * 15; // a picture is drawn at most 0.17em (15 px type) per unit
const LABEL_PX = 11; // the smallest label on screen
const ANIMATION_MS = 700;
const PLAY_INTERVAL_MS = 1800;

const STYLES = sheet(`
.broadcast p { margin: 0.3em 0; max-width: 46em; }
.step-link { font-size: 0.8em; }
.broadcast .table-wrap { overflow-x: auto; max-width: 100%; }
.broadcast-table { border-collapse: collapse; font-size: 0.85em; margin-bottom: 0.5em; }
.broadcast-table th, .broadcast-table td { border: 1px solid var(--line); padding: 0.15em 0.45em; text-align: center; }
.broadcast-table td.stretched { background: repeating-linear-gradient(90deg, transparent 0 6px, color-mix(in srgb, var(--accent) 14%, transparent) 6px 12px); }
.wt { display: grid; grid-template-columns: minmax(11em, 16em) minmax(0, 1fr); gap: 1em; }
.wt > * { min-width: 0; }
.wt.single { grid-template-columns: minmax(0, 1fr); }
.steps ol { list-style: none; margin: 0; padding: 0; display: flex; flex-direction: column; gap: 2px; }
.steps button { width: 100%; text-align: left; display: flex; justify-content: space-between; gap: 0.5em; border-radius: 4px; padding: 0.2em 0.5em; min-height: 2em; }
.steps .shape { font-size: 0.8em; opacity: 0.85; white-space: nowrap; }
.toolbar { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; }
.toolbar .position { margin-left: auto; color: var(--muted); }
h3 { margin: 0.4em 0 0.2em; font-size: 1.2em; }
.formula { font-size: 1.15em; overflow-x: auto; }
.numbers { overflow-x: auto; white-space: nowrap; margin: 0.2em 0; }
.axes-formula { overflow-x: auto; white-space: nowrap; margin: 0.1em 0 0.3em; font-size: 0.92em; }
.axes-formula .chip { font-size: 0.85em; padding: 0 0.35em; margin: 0; }
.role { margin: 0.3em 0; padding: 0.3em 0.6em; border-left: 3px solid var(--accent); background: var(--panel); }
dl.answers { display: grid; grid-template-columns: auto 1fr; gap: 0.2em 0.8em; margin: 0.6em 0; }
dl.answers dt { font-weight: 600; }
dl.answers dd { margin: 0; }
figure { margin: 0.6em 0; }
figure svg { width: 100%; height: auto; max-height: 60vh; display: block; }
figcaption { font-size: 0.9em; color: var(--muted); }
.layout table { font-size: 0.9em; }
.layout { overflow-x: auto; }
@container (max-width: 640px) {
  .wt { grid-template-columns: minmax(0, 1fr); }
  .steps ol { flex-direction: row; overflow-x: auto; padding-bottom: 0.3em; }
  .steps li { flex: none; }
  .steps button { flex-direction: column; gap: 0; }
  dl.answers { grid-template-columns: minmax(0, 1fr); }
  dl.answers dd { margin-bottom: 0.4em; }
}
`);

export class MhaWalkthroughElement extends RunElement {
  #run = null;
  #tokens = null;
  #index = 0;
  #shownId = null;
  #drawnKey = null; // what the step list was drawn for
  #detailKey = null; // what the step's text and picture were drawn for
  #layoutOpen = false; // the reader opened the memory layout
  #timer = null;
  #onKey = (event) => this.#handleKey(event);
  #width = 0;
  #observer = null;

  constructor() { super(STYLES); }

  connectedCallback() {
    this.addEventListener('keydown', this.#onKey);
    // The picture's labels are sized for its width: a new width redraws the step (next frame).
    this.#observer ??= new ResizeObserver((entries) => {
      const width = Math.floor(entries[0].contentRect.width);
      if (!width || Math.round(width / 20) === Math.round(this.#width / 20)) return;
      this.#width = width;
      requestAnimationFrame(() => { if (this.#run && this.isConnected) this.#renderDetail(false); });
    });
    this.#observer.observe(this);
    super.connectedCallback();
  }

  disconnectedCallback() {
    this.#observer?.disconnect();
    this.removeEventListener('keydown', this.#onKey);
    super.disconnectedCallback();
    this.pause();
  }

  /** The Run whose snapshots this stepper shows. */
  get run() { return this.#run; }
  set run(run) { this.takeRun(run, this.#tokens); }

  acceptRun(run, tokens) {
    const current = this.stepId;
    this.#run = run;
    this.#tokens = tokens;
    const steps = this.#visibleSteps();
    const keep = steps.findIndex((s) => s.id === (current ?? this.getAttribute('step')));
    this.#index = keep >= 0 ? keep : 0;
    this.#shownId = null; // new numbers: redraw the picture without animating from the old run
    this.render();
  }

  /**
   * Token labels (query positions) for captions, without a new run (the `tokens` attribute and
   * property set T and B and run again).
   */
  get labels() { return this.#tokens; }
  set labels(tokens) {
    this.#tokens = tokens;
    this.scheduleRender(); // the labels in the picture
  }

  /** The id of the step on screen. */
  get stepId() { return this.#visibleSteps()[this.#index]?.id ?? null; }
  set stepId(id) { this.#goTo(this.#visibleSteps().findIndex((s) => s.id === id), { animate: false, emit: false }); }

  /** Focuses the current step in the list of steps (its heading when the list is hidden). */
  focusStep() {
    const button = this.shadowRoot.querySelector(`.steps:not([hidden]) button[data-id="${this.stepId}"]`);
    if (button) {
      button.focus();
      return;
    }
    const heading = this.shadowRoot.querySelector('h3');
    heading?.setAttribute('tabindex', '-1');
    heading?.focus();
  }

  next() { this.#goTo(this.#index + 1, { animate: true, emit: true }); }
  prev() { this.#goTo(this.#index - 1, { animate: false, emit: true }); }

  play() {
    if (this.#timer) return;
    if (this.#index >= this.#visibleSteps().length - 1) this.#goTo(0, { animate: false, emit: true });
    this.#timer = setInterval(() => {
      if (this.#index >= this.#visibleSteps().length - 1) this.pause();
      else this.next();
    }, PLAY_INTERVAL_MS);
    this.#renderToolbar();
  }

  pause() {
    clearInterval(this.#timer);
    this.#timer = null;
    if (this.#run) this.#renderToolbar();
  }

  #visibleSteps() {
    if (!this.#run) return [];
    const steps = this.#run.steps;
    const pinned = this.hasAttribute('step');
    const one = pinned ? steps.filter((s) => s.id === this.getAttribute('step')) : [];
    if (one.length) return one;
    // A step id that names no step, or `from` after `to`, leaves the whole walkthrough (an empty
    // one broke the element).
    const from = steps.findIndex((s) => s.id === this.getAttribute('from'));
    const to = steps.findIndex((s) => s.id === this.getAttribute('to'));
    const range = steps.slice(from >= 0 ? from : 0, to >= 0 ? to + 1 : steps.length);
    return range.length ? range : steps;
  }

  #goTo(index, { animate, emit }) {
    const steps = this.#visibleSteps();
    if (index < 0 || index >= steps.length || index === this.#index) return;
    this.#index = index;
    this.#renderDetail(animate);
    this.#updateList();
    if (emit) this.dispatchEvent(new CustomEvent('mha-step', { bubbles: true, composed: true, detail: { step: steps[index].id, index } }));
  }

  #handleKey(event) {
    const target = event.composedPath()[0];
    if (target instanceof HTMLElement && target.matches('input, select, textarea')) return;
    const inList = target instanceof HTMLElement && target.closest('.steps');
    const back = event.key === 'ArrowLeft' || (inList && event.key === 'ArrowUp');
    const forward = event.key === 'ArrowRight' || (inList && event.key === 'ArrowDown');
    if (!back && !forward) return;
    event.preventDefault();
    if (back) this.prev(); else this.next();
    if (inList) this.shadowRoot.querySelector(`.steps button[data-id="${this.stepId}"]`)?.focus();
  }

  draw() {
    const lang = langOf(this);
    const t = translator(lang);
    if (!this.#run) {
      this.shadowRoot.replaceChildren(this.placeholder(t));
      return;
    }
    const steps = this.#visibleSteps();
    // A new run of the same steps and shapes (another seed) keeps the list and the layout of the
    // step; only the numbers in it change.
    const key = JSON.stringify([lang, steps.map((step) => [step.id, step.shape]), this.#tokens]);
    if (key === this.#drawnKey && this.shadowRoot.querySelector('.body')) {
      this.shadowRoot.querySelectorAll('.steps button').forEach((button, i) => {
        if (i === this.#index) button.setAttribute('aria-current', 'step'); else button.removeAttribute('aria-current');
        button.tabIndex = i === this.#index ? 0 : -1;
      });
      this.#shownId = null;
      this.#renderDetail(false);
      return;
    }
    this.#drawnKey = key;
    // The list is one tab stop (the current step); the arrow keys move through it.
    const list = el('ol', {}, steps.map((step, i) => el('li', {}, el('button', { type: 'button', 'data-id': step.id, tabindex: i === this.#index ? 0 : -1, 'aria-current': i === this.#index ? 'step' : null },
      el('span', {}, `${this.#number(step)}. ${stepTitle(t, step.id, this.#run.summary)}`), el('span', { class: 'shape mono' }, shapeText(step.shape))))));
    list.addEventListener('click', (event) => {
      const button = event.target.closest('button[data-id]');
      if (button) this.#goTo(this.#visibleSteps().findIndex((s) => s.id === button.dataset.id), { animate: true, emit: true });
    });
    const nav = el('nav', { class: 'steps', part: 'steps', 'aria-label': t('wt.steps') }, list);
    const detail = el('div', { class: 'detail', part: 'detail' },
      el('div', { class: 'toolbar', part: 'toolbar', role: 'toolbar', 'aria-label': t('wt.controls'), 'data-control': '' }),
      el('div', { class: 'body', 'aria-live': 'polite' }));
    this.shadowRoot.replaceChildren(el('section', { class: steps.length <= 1 ? 'wt single' : 'wt', 'aria-label': t('wt.label') }, nav, detail));
    if (steps.length <= 1) nav.hidden = true;
    this.#shownId = null;
    this.#renderDetail(false);
  }

  // A step's number in the whole walkthrough (a pinned or ranged stepper numbers its steps as
  // the full one does: q_heads is step 8 wherever it is shown).
  #number(step) {
    return this.#run.steps.findIndex((s) => s.id === step.id) + 1;
  }

  #updateList() {
    this.shadowRoot.querySelectorAll('.steps button').forEach((button, i) => {
      button.tabIndex = i === this.#index ? 0 : -1;
      if (i === this.#index) {
        button.setAttribute('aria-current', 'step');
        button.scrollIntoView?.({ block: 'nearest', inline: 'nearest' });
      } else {
        button.removeAttribute('aria-current');
      }
    });
  }

  #renderToolbar() {
    const toolbar = this.shadowRoot.querySelector('.toolbar');
    if (!toolbar) return;
    const t = translator(langOf(this));
    const steps = this.#visibleSteps();
    const button = (action, text, label, extra = {}) => {
      const b = el('button', { type: 'button', 'data-action': action, 'aria-label': label, ...extra }, text);
      b.addEventListener('click', () => this[action]());
      return b;
    };
    const playing = Boolean(this.#timer);
    toolbar.replaceChildren(
      button('prev', `◀ ${t('wt.prev')}`, t('wt.prev'), { disabled: this.#index === 0 }),
      button(playing ? 'pause' : 'play', playing ? `⏸ ${t('wt.pause')}` : `▶ ${t('wt.play')}`, playing ? t('wt.pause') : t('wt.play'), { 'aria-pressed': String(playing) }),
      button('next', `${t('wt.next')} ▶`, t('wt.next'), { disabled: this.#index >= steps.length - 1 }),
      el('span', { class: 'position' }, t('wt.position', { n: this.#index + 1, m: steps.length })));
    if (steps.length <= 1) toolbar.hidden = true;
  }

  #renderDetail(animate) {
    const body = this.shadowRoot.querySelector('.body');
    if (!body) return;
    const lang = langOf(this);
    const steps = this.#run.steps;
    const step = this.#visibleSteps()[this.#index];
    // Everything but the picture's colours follows from the step's sizes, layout and op: the same
    // step of a new run of the same shapes (another seed) only recolours the cells.
    const key = JSON.stringify([lang, this.#index, this.#visibleSteps().length, step.id, step.op, step.shape, step.strides, step.contiguous,
      step.changesValues, step.formula, step.shapeFormula, this.#run.summary, this.#tokens, Boolean(this.#timer), Math.round(this.#pictureWidth() / 20)]);
    if (!animate && key === this.#detailKey && body.firstChild) {
      this.#recolor(body, step);
      this.#shownId = step.id;
      return;
    }
    this.#detailKey = animate ? null : key;
    this.#renderToolbar();
    const t = translator(lang);
    const answers = stepAnswers(step, steps);
    const yesNo = (value) => (value ? t('cli.yes') : t('cli.no'));
    const formula = el('div', { class: 'formula', 'aria-label': formulaLabel(t, step) });
    renderMath(formula, step.latex);
    const countText = answers.countBefore === null
      ? t('wt.countFirst', { n: formatCount(step.numel) })
      : `${yesNo(answers.changesCount)} — ${formatCount(answers.countBefore)} → ${formatCount(answers.countAfter)}`;
    // [B, T, H, D]: the last two axes are a head and its features, but the picture keeps a row per
    // token with the heads side by side, so the answer says what the axes are and how they are drawn.
    const sideBySide = step.axes.length === 4 && ['H', 'Hkv'].includes(answers.rowAxis);
    const axesAnswer = sideBySide
      ? el('span', { 'data-layout': 'side-by-side' }, axisChip(answers.rowAxis, step.shape.at(-2), lang), ` ${t(`axis.${answers.rowAxis}`)}; `,
        axisChip(answers.colAxis, step.shape.at(-1), lang), ` ${t(`axis.${answers.colAxis}`)}. `,
        t('wt.sideBySide', { rows: step.axes[1], T: step.shape[1], heads: answers.rowAxis, H: step.shape[2], D: step.shape[3] }))
      : el('span', {}, axisChip(answers.rowAxis, step.shape.at(-2), lang), ` ${t('wt.rows')}: ${t(`axis.${answers.rowAxis}`)}; `,
        axisChip(answers.colAxis, step.shape.at(-1), lang), ` ${t('wt.cols')}: ${t(`axis.${answers.colAxis}`)}`);
    // Without an animation the step is patched in place: the same step of a new run changes only
    // its numbers. An animated step gets new cells to animate.
    (animate ? (...children) => body.replaceChildren(...children.filter((child) => child !== null)) : (...children) => patchChildren(body, children))(
      el('h3', { 'data-step': step.id }, `${this.#number(step)}. ${stepTitle(t, step.id, this.#run.summary)}`),
      // A page that handles #step-<id> (the docs page) asks for a link to each step.
      this.hasAttribute('step-links') ? el('a', { class: 'step-link', href: `#step-${step.id}` }, t('wt.stepLink')) : null,
      formula,
      ...this.#shapeFormula(step, t, lang),
      this.#broadcast(step, t, lang),
      ROLES.has(step.id) ? el('p', { class: 'role', 'data-role': step.id }, t(`role.${step.id}`, { heads: this.#run.summary.H })) : null,
      el('p', { class: 'shape' }, `${t('cli.shape')}: `, el('code', { class: 'shape-text' }, shapeText(step.shape)), ' ', el('span', { class: 'chips' }, step.axes.map((axis, i) => axisChip(axis, step.shape[i], lang)))),
      this.#backwardNotes(step, t),
      el('dl', { class: 'answers' },
        el('dt', {}, t('wt.qValues')), el('dd', { 'data-answer': 'values' }, `${yesNo(answers.changesValues)} — ${t(answers.valuesKey)}`),
        el('dt', {}, t('wt.qCount')), el('dd', { 'data-answer': 'count' }, countText),
        el('dt', {}, t('wt.qAxes')), el('dd', { 'data-answer': 'axes' }, axesAnswer)),
      this.#picture(step, animate),
      this.#layoutTable(step, t));
    this.#shownId = step.id;
  }

  // The mask step: how the mask's own shape broadcasts over the scores, axis by axis.
  #broadcast(step, t, lang) {
    const plan = step.id === 'masked' ? maskBroadcast(this.#run.summary) : null;
    if (!plan) return null;
    const shape = `[${plan.mask.filter((n) => n !== null).join(',')}]`;
    return el('div', { class: 'broadcast' },
      el('p', {}, t('wt.broadcast', { shape })),
      el('div', { class: 'table-wrap' }, el('table', { class: 'broadcast-table' },
        el('tr', {}, el('th', { scope: 'row' }, t('wt.broadcastScores')), plan.axes.map(({ axis, size }) => el('td', {}, axisChip(axis, size, lang)))),
        el('tr', {}, el('th', { scope: 'row' }, t('wt.broadcastMask')), plan.axes.map(({ mask }) => el('td', { class: 'mono' }, mask === null ? '–' : String(mask)))),
        el('tr', {}, el('th', { scope: 'row' }, ''), plan.axes.map(({ axis, size, stretched }) => el('td', { 'data-axis': axis, class: stretched ? 'stretched' : 'own' },
          stretched ? t('wt.stretched', { n: size }) : t('wt.ownAxis')))))));
  }

  // A step of the backward pass says whose gradient it is (a gradient has the shape of its
  // tensor); the softmax step also shows the row Jacobian its formula applies.
  #backwardNotes(step, t) {
    const tensor = gradientOf(step);
    if (!tensor) return null;
    const notes = el('div', { class: 'backward-notes' },
      el('p', { class: 'grad-shape', 'data-grad': step.id }, t('wt.gradShape', { grad: step.id, tensor, shape: shapeText(step.shape) })));
    if (step.id === JACOBIAN_STEP) {
      const jacobian = el('span', { class: 'formula jacobian' });
      renderMath(jacobian, JACOBIAN_LATEX);
      notes.append(el('p', { class: 'jacobian-line' }, `${t('wt.jacobian')} `, jacobian));
    }
    return notes;
  }

  // The shape formula with numbers (words in the reader's language) and, under it, the same
  // formula in axis names as chips: equal sizes (the seed's B = H = 2, T = D = 4) cannot hide
  // which axis is which. The engine's own text when no catalogue is known (a run made elsewhere).
  #shapeFormula(step, t, lang) {
    const parts = shapeFormulaOf(step, this.#run.summary);
    if (!parts) return [el('p', { class: 'numbers' }, el('code', { class: 'shape-formula' }, step.shapeFormula))];
    const chips = [];
    for (const part of parts) {
      if (part.kind === 'shape') {
        chips.push('[');
        part.axes.forEach((axis, i) => chips.push(i ? ',' : null, axisChip(axis, undefined, lang)));
        chips.push(']');
      } else if (part.kind === 'word') {
        chips.push(t(part.key));
      } else {
        chips.push(part.kind === 'head' ? 'D' : part.text);
      }
    }
    return [
      el('p', { class: 'numbers' }, el('code', { class: 'shape-formula' }, shapeFormulaText(parts, t, { D: this.#run.summary.D }))),
      el('p', { class: 'axes-formula', 'aria-label': `${t('formula.symbols')}: ${shapeFormulaText(parts, t, { symbols: true })}` }, chips),
    ];
  }

  // The picture's cells in the colours of this run's values (the cells are the step's elements in
  // order; nothing else in the step depends on the values).
  #recolor(body, step) {
    const rects = body.querySelectorAll('figure.picture svg > g > rect');
    if (rects.length !== step.numel) return;
    const scale = scaleFor(step);
    for (let i = 0; i < rects.length; i++) {
      const value = step.data[i];
      const fill = value === -Infinity ? 'url(#wt-hatch)' : scale.color(value);
      if (rects[i].getAttribute('fill') !== fill) rects[i].setAttribute('fill', fill);
    }
  }

  // Once the reader opens the memory layout it stays open from step to step and run to run.
  #layoutTable(step, t) {
    const layout = memoryLayout(step);
    const details = el('details', { class: 'layout', open: this.#layoutOpen },
      el('summary', {}, `${t('wt.memory')}: ${step.contiguous ? t('cli.contiguous') : t('cli.view')}`),
      el('table', {},
        el('tr', {}, el('th', { scope: 'row' }, t('cli.axes')), step.axes.map((a) => el('td', {}, a))),
        el('tr', {}, el('th', { scope: 'row' }, t('cli.shape')), step.shape.map((s) => el('td', {}, s))),
        el('tr', { 'data-row': 'strides' }, el('th', { scope: 'row' }, t('cli.strides')), layout.strides.map((s) => el('td', {}, s))),
        el('tr', {}, el('th', { scope: 'row' }, t('wt.rowMajor')), layout.rowMajor.map((s) => el('td', {}, s)))),
      el('p', { class: 'note' }, t(layout.note)));
    details.addEventListener('toggle', () => { this.#layoutOpen = details.open; });
    return details;
  }

  #picture(step, animate) {
    const t = translator(langOf(this));
    const figure = el('figure', { class: 'picture' });
    if (step.numel > MAX_PICTURE_CELLS) {
      figure.append(el('p', { class: 'note' }, t('wt.tooBig', { n: formatCount(step.numel) })));
      return figure;
    }
    const layout = pictureLayout(step.shape, step.axes);
    const scale = scaleFor(step);
    const rows = this.#rowLabels(step, layout);
    const columns = this.#columnLabels(step, layout);
    const sideBySide = step.shape.length === 4 && ['H', 'Hkv'].includes(step.axes[2]);
    // Labels at least LABEL_PX on screen whatever the picture's scale (on a 360 px phone a picture
    // is shrunk and 5-unit type read as 5 px): the type is sized in the picture's units for the
    // width it will get, and rows are labelled every k-th when the type is taller than a row.
    const available = this.#pictureWidth();
    let font = 5;
    let left = 14;
    let width = 0;
    for (let pass = 0; pass < 3; pass++) {
      const widest = rows ? Math.max(1, ...rows.map(({ label }) => labelEm(shortLabel(label, 8)))) : 0;
      left = rows ? Math.ceil(widest * font + 6) : 14; // room for token names, so a token can be followed across steps
      width = layout.width * UNIT + left + 14;
      const shown = Math.min(width * MAX_PX_PER_UNIT, available);
      font = Math.max(5, LABEL_PX / (shown / width));
    }
    const every = Math.max(1, Math.ceil(font / UNIT - 0.05));
    const pad = Math.ceil(Math.max(14, font + 5));
    // Below the cells: key tokens under the columns (slanted), or each head's name under its block.
    const widestColumn = columns ? Math.max(1, ...columns.map(({ label }) => labelEm(shortLabel(label, 8)))) : 0;
    const below = columns ? Math.ceil(widestColumn * font * 0.72 + font + 2) : sideBySide ? Math.ceil(font + 4) : 0;
    const height = layout.height * UNIT + pad + 4 + below;
    const picture = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('wt.pictureLabel', { step: stepTitle(t, step.id, this.#run.summary), shape: shapeText(step.shape) }) },
      svg('defs', {}, svg('pattern', { id: 'wt-hatch', width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
        svg('rect', { width: 4, height: 4, fill: '#e8e8e8' }), svg('line', { x1: 0, y1: 0, x2: 0, y2: 4, stroke: '#555', 'stroke-width': 1.5 }))));
    const [B] = step.shape;
    for (let b = 0; b < B; b++) {
      const x = left + b * (layout.blockWidth + 2) * UNIT;
      picture.append(svg('text', { x, y: pad - 4, 'font-size': font, fill: 'currentColor' }, `b=${b}`));
    }
    (rows ?? []).forEach(({ y, label, index }) => {
      if (index % every !== 0) return;
      picture.append(svg('text', { x: left - 2, y: pad + y * UNIT + UNIT / 2 + font * 0.35, 'font-size': font, 'text-anchor': 'end', fill: 'currentColor', class: 'row-label' }, shortLabel(label, 8)));
    });
    const bottom = pad + layout.height * UNIT + 2;
    (columns ?? []).forEach(({ x, label, index }) => {
      if (index % every !== 0) return;
      const cx = left + x * UNIT + UNIT / 2 + font * 0.3;
      picture.append(svg('text', { x: cx, y: bottom + font * 0.3, 'font-size': font, 'text-anchor': 'end', fill: 'currentColor', class: 'column-label',
        transform: `rotate(-45 ${cx} ${bottom + font * 0.3})` }, shortLabel(label, 8)));
    });
    if (sideBySide) {
      const [, , heads, d] = step.shape;
      for (let b = 0; b < B; b++) {
        for (let h = 0; h < heads; h++) {
          const x = left + (b * (layout.blockWidth + 2) + h * (d + 1) + d / 2) * UNIT;
          picture.append(svg('text', { x, y: bottom + font, 'font-size': font, 'text-anchor': 'middle', fill: 'currentColor', class: 'head-label' }, `${step.axes[2] === 'Hkv' ? 'kv' : 'h'}${h}`));
        }
      }
    }
    // Head labels in the gap above each head's block (the first one left of "b=0").
    const headFont = Math.min(font, UNIT - 1);
    for (const group of layout.groups) {
      if (group.b === 0) picture.append(svg('text', { x: 1, y: group.y === 0 ? pad - 4 : pad + group.y * UNIT - 2, 'font-size': headFont, fill: 'currentColor' }, `${group.axis === 'Hkv' ? 'kv' : 'h'}${group.head}`));
    }
    const cells = svg('g', { transform: `translate(${left} ${pad})` });
    const rects = new Array(step.numel);
    for (let i = 0; i < step.numel; i++) {
      const value = step.data[i];
      const rect = svg('rect', { x: layout.x[i] * UNIT + 0.5, y: layout.y[i] * UNIT + 0.5, width: UNIT - 1, height: UNIT - 1,
        fill: value === -Infinity ? 'url(#wt-hatch)' : scale.color(value) });
      rects[i] = rect;
      cells.append(rect);
    }
    picture.append(cells);
    // Cells about as big as a chip, never wider than the column: small tensors stay small.
    picture.style.maxWidth = `${(width * 0.17).toFixed(2)}em`;
    picture.dataset.font = font.toFixed(2); // label size in the picture's units (tests read it)
    figure.append(picture, el('figcaption', {}, t(`kind.${captionKind(inputStep(step, this.#run.steps), step)}`)));
    if (animate && !reducedMotion()) this.#animate(step, rects, layout);
    return figure;
  }

  // The width the picture will be drawn at: the step's column, from the element's width as the
  // resize observer last saw it (no layout is forced to measure it): the whole width up to the
  // 640 px breakpoint, beside the 16em list of steps above it.
  #pictureWidth() {
    const width = this.#width || 600;
    return width <= 640 ? width : width - 17 * 15;
  }

  // Token names for the rows of the picture when its rows are token positions: [B, T, C],
  // [B, T, H, D], or per head [B, H, T, D]. Returns [{ y, label }] in cell units, or null.
  #rowLabels(step, layout) {
    const tokens = this.#tokens;
    const { T, Tk, cross } = this.#run.summary;
    if (!tokens || tokens.length !== T) return null;
    const stacked = step.shape.length === 4 && !['H', 'Hkv'].includes(step.axes[2]);
    const axis = stacked ? step.axes[2] : step.axes[1];
    const labels = axis === 'T' || axis === 'Tq' ? tokens : axis === 'Tk' ? keyLabels(tokens, Tk, cross) : null;
    if (!labels) return null;
    const tops = stacked ? layout.groups.filter((g) => g.b === 0).map((g) => g.y) : [0];
    return tops.flatMap((top) => labels.map((label, r) => ({ y: top + r, label, index: r })));
  }

  // Token names under the columns when the picture's columns are token positions (Kᵀ's keys, the
  // scores' keys): [{ x (cell units), label, index }] for every batch block, or null.
  #columnLabels(step, layout) {
    const tokens = this.#tokens;
    const { T, Tk, cross } = this.#run.summary;
    if (!tokens || tokens.length !== T || step.shape.length !== 4 || ['H', 'Hkv'].includes(step.axes[2])) return null;
    const axis = step.axes[3];
    const labels = axis === 'T' || axis === 'Tq' ? tokens : axis === 'Tk' ? keyLabels(tokens, Tk, cross) : null;
    if (!labels || labels.length !== step.shape[3]) return null;
    const [B] = step.shape;
    return Array.from({ length: B }, (_, b) => labels.map((label, c) => ({ x: b * (layout.blockWidth + 2) + c, label, index: c }))).flat();
  }

  // The step's own change, from its input to it: positions for moves and regroupings, colours
  // for value changes, a fade for a tensor of new values.
  #animate(step, rects, layout) {
    const input = inputStep(step, this.#run.steps);
    const kind = changeKind(input, step);
    const timing = { duration: ANIMATION_MS, easing: 'ease-in-out' };
    if (kind === 'append') {
      // The new token's row (the last of each head's rows) fades in; the cached rows stay.
      const [, , rows, D] = step.shape;
      rects.forEach((rect, i) => { if (Math.floor(i / D) % rows === rows - 1) rect.animate([{ opacity: 0 }, { opacity: 1 }], timing); });
      return;
    }
    if (kind === 'appear') {
      for (const rect of rects) rect.animate([{ opacity: 0 }, { opacity: 1 }], timing);
      return;
    }
    const sources = cellSources(input, step);
    const from = pictureLayout(input.shape, input.axes);
    const inputScale = scaleFor(input);
    for (let i = 0; i < rects.length; i++) {
      const source = sources[i];
      if (source < 0) continue;
      if (kind === 'recolor') {
        const before = input.data[source];
        if (before === -Infinity || step.data[i] === -Infinity) continue;
        rects[i].animate([{ fill: inputScale.color(before) }, { fill: rects[i].getAttribute('fill') }], timing);
      } else {
        const dx = (from.x[source] - layout.x[i]) * UNIT;
        const dy = (from.y[source] - layout.y[i]) * UNIT;
        if (dx !== 0 || dy !== 0) rects[i].animate([{ transform: `translate(${dx}px, ${dy}px)` }, { transform: 'translate(0px, 0px)' }], timing);
      }
    }
  }
}


// Steps that say what they are for in one sentence (Q, K and V; the product; the output).
const ROLES = new Set(['q', 'k', 'v', 'scores', 'context', 'output']);

/** A formula as a screen reader says it, in the reader's language where the symbols need words. */
function formulaLabel(t, step) {
  const key = `formula.label.${step.id}`;
  const text = t(key);
  return text === key ? step.formula : text;
}

/**
 * What the picture's caption says: a step that changes no value says why (nothing masked, or
 * D = 1 so that 1/√D = 1), each in its own words.
 */
function captionKind(input, step) {
  const kind = changeKind(input, step);
  if (kind !== 'recolor' || step.changesValues) return kind;
  return step.op === 'mask' ? 'sameMask' : step.op === 'scale' ? 'sameScale' : 'same';
}

installProperties(MhaWalkthroughElement, 'mha-walkthrough');
