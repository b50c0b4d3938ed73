// <mha-playground>: the whole lens — controls, shape chain, walkthrough, heatmaps, what the
// seeds teach (parameters, growth, KV cache), common mistakes and a self-test — composed of the
// same elements a tutorial page embeds. Config comes from attributes (b, tk, c, h, hkv, mask,
// key-lengths, bias, seed, tokens, lang) or the `state` property; it fires `mha-state` after every
// change (the docs page keeps the URL in step with it) and `mha-error` for an invalid config,
// whose message is shown next to the control at fault while the last valid run stays on screen.
import { MhaError } from '../engine/engine.js';
import { formatBytes, formatCount, formatValue } from '../logic/format.js';
import { DEFAULT_STATE, DEFAULT_TOKENS, engineConfig } from '../logic/page-state.js';
import { CONFIG_FIELDS, parseBias, parseTokens } from '../model/config-input.js';
import { headSharing } from '../model/steps.js';
import { divisors, growthChartGeometry, growthSeries, shortNumber } from '../logic/growth.js';
import { hiddenAxisMistakes, noProjection, noScale, noTranspose, reshapeWithoutTranspose, softmaxOverQueries } from '../logic/mistakes.js';
import { answerText, checkAnswer, makeQuestions } from '../logic/self-test.js';
import { embedSnippets } from '../logic/embed-code.js';
import { ImportError, checkImportSize, importConfig } from '../logic/config-import.js';
import { renderMath } from '../logic/math.js';
import { parameterFormula } from '../logic/walkthrough-text.js';
import { baseStyles, download, el, engineLoadError, getEngine, langOf, patchChildren, sheet, svg, tr } from './shared.js';
import './define.js';

// Controls in the order they appear, with the engine's field name each one sets.
const CONTROLS = [
  { field: 'T', key: 'tokens', type: 'text', wide: true },
  { field: 'B', key: 'B', type: 'number', min: 1 },
  { field: 'C', key: 'C', type: 'number', min: 1 },
  { field: 'H', key: 'H', type: 'number', min: 1 },
  { field: 'Hkv', key: 'Hkv', type: 'number', min: 1, placeholder: 'H' },
  { field: 'Tk', key: 'Tk', type: 'number', min: 1, placeholder: 'T' },
  { field: 'mask', key: 'mask', type: 'select', options: ['none', 'causal'] },
  { field: 'keyLengths', key: 'keyLengths', type: 'text' },
  { field: 'bias', key: 'bias', type: 'checkbox' },
  { field: 'seed', key: 'seed', type: 'number', min: 0 },
];

// The config attributes it takes: all but t (T follows the tokens).
const ATTRIBUTE_FIELDS = CONFIG_FIELDS.filter(({ field }) => field !== 'T');

const PAGE_MEMORY_CAP = 64 * 2 ** 20;
const MAX_MATRIX = 8; // rows and columns shown of each mistake's matrices // a page that stays responsive: the engine explains the cap if it is hit

const STYLES = sheet(`
section.block { margin: 1.2em 0; padding: 0.8em 1em; background: var(--panel); border-radius: 10px; }
/* The panels below the heatmaps are not styled, laid out or painted while off screen (they stay
   in the accessibility tree and in find-in-page): a changed control then costs what is on screen,
   not the whole page. auto remembers each section's last size for the scrollbar. Not on the
   sections with the controls and the elements: Chromium then left their content without boxes
   after typing in a control while scrolled far down (tests/browser/page.test.js). */
section.lessons, section.mistakes, section.quiz, section.export { content-visibility: auto; contain-intrinsic-size: auto 30em; }
section.block > h2 { margin: 0 0 0.5em; font-size: 1.2em; }
form.controls { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.5em, 1fr)); gap: 0.6em 0.9em; align-items: start; }
.field { display: flex; flex-direction: column; gap: 0.15em; min-width: 0; }
.field.wide { grid-column: 1 / -1; }
.field label { font-weight: 600; font-size: 0.9em; }
.field .hint { font-size: 0.8em; color: var(--muted); }
.field input[type="text"], .field input[type="number"], .field select { width: 100%; padding: 0.35em 0.5em; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); min-height: 2.4em; }
.field input[aria-invalid="true"] { border: 2px solid var(--error); }
.field.check { flex-direction: row; align-items: center; gap: 0.4em; padding-top: 1.4em; }
.field.check input { width: 1.3em; height: 1.3em; }
.general-error { margin-top: 0.5em; }
.summary-line { margin: 0.6em 0 0; }
.warnings { margin: 0.5em 0 0; padding-left: 1.2em; color: #8a5a00; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(min(100%, 19em), 1fr)); gap: 0.8em; }
.card { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.8em; min-width: 0; overflow-x: auto; }
.card h3 { margin: 0 0 0.4em; font-size: 1.02em; }
.card p { margin: 0.3em 0; }
.pair { display: flex; flex-wrap: wrap; gap: 0.8em; }
.pair > div { min-width: 0; }
.label-wrong { color: var(--error); font-weight: 600; }
.label-right { color: var(--ok); font-weight: 600; }
table.matrix td { font-size: 0.82em; padding: 0.05em 0.3em; }
table.matrix td.sum, table.matrix th.sum { background: color-mix(in srgb, #f0c419 22%, var(--bg)); }
table.matrix td.holds { text-align: left; }
.chart svg { width: 100%; max-width: 30em; height: auto; display: block; }
.chart .legend-line { font-size: 0.85em; }
.legend-scores { color: #0072b2; }
.legend-flops { color: #d55e00; }
.legend-t { color: #a0457f; }
ol.quiz { padding-left: 1.2em; }
ol.quiz li { margin: 0.5em 0; }
.quiz-row { display: flex; flex-wrap: wrap; gap: 0.4em; align-items: center; }
.quiz-row input { padding: 0.3em 0.5em; border: 1px solid var(--line); border-radius: 6px; min-height: 2.2em; width: 11em; max-width: 100%; }
.verdict-ok { color: var(--ok); font-weight: 600; }
.verdict-no { color: var(--error); font-weight: 600; }
.formula-line { overflow-x: auto; }
.exports-row { display: flex; gap: 0.5em; flex-wrap: wrap; align-items: center; }
.embed { display: flex; flex-direction: column; gap: 0.3em; }
.embed[hidden] { display: none; }
.import { margin-top: 0.6em; }
.import-body { display: flex; flex-direction: column; gap: 0.35em; margin-top: 0.4em; }
.import-body input[type="file"] { max-width: 100%; }
.import-body textarea { width: 100%; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); font-size: 0.85em; border: 1px solid var(--line); border-radius: 6px; padding: 0.4em; background: var(--bg); color: var(--fg); }
.import-body button { align-self: flex-start; }
.import-body code { overflow-wrap: anywhere; }
.embed textarea { width: 100%; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); font-size: 0.85em; border: 1px solid var(--line); border-radius: 6px; padding: 0.4em; background: var(--bg); color: var(--fg); }
`);

export class MhaPlaygroundElement extends HTMLElement {
  static get observedAttributes() { return ['lang', 'theme', ...ATTRIBUTE_FIELDS.map(({ attribute }) => attribute)]; }

  #root;
  #engine = null;
  #state = { ...DEFAULT_STATE };
  #run = null;
  #runTokens = [];
  #errors = {};
  #quizVariant = 0;
  #configKey = null; // the config last run, so a blur's change event does not redraw the same run
  #cache = new Map();
  #probeRuns = new Map(); // the mistakes panel's fixed side runs (the 1/√D trend), by config
  #shown = {}; // what the lessons and quiz panels show now, so an unchanged panel is not rebuilt
  #offscreen = new WeakSet(); // sections the browser skips for now

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [baseStyles(), STYLES];
  }

  async connectedCallback() {
    this.#readAttributes();
    this.#build();
    try {
      this.#engine = await getEngine();
    } catch (error) {
      this.#showError('config', engineLoadError(error).messageIn(this.#lang));
      return;
    }
    this.#compute();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.#root.firstChild) return;
    if (name === 'lang' || name === 'theme') {
      this.#build();
      this.#compute({ force: true });
      return;
    }
    this.#readAttributes();
    this.#syncControls();
    this.#compute();
  }

  /** The page state: config text as typed, and the selected step, heatmap step, batch and head. */
  get state() { return { ...this.#state }; }
  set state(state) {
    this.#state = { ...DEFAULT_STATE, ...state };
    this.#syncControls();
    this.#compute({ force: true });
  }

  /** The last valid run (stays when the controls hold an invalid config). */
  get run() { return this.#run; }

  /** The token labels of that run. */
  get tokens() { return this.#runTokens; }

  get #lang() { return langOf(this); }

  // The state holds the text as written; bias is read now, as the one config reader reads it.
  #readAttributes() {
    for (const { field, attribute } of ATTRIBUTE_FIELDS) {
      if (!this.hasAttribute(attribute)) continue;
      const value = this.getAttribute(attribute);
      this.#state[field] = field === 'bias' ? parseBias(value) : value;
    }
  }

  #build() {
    const t = tr(this.#lang);
    const form = el('form', { class: 'controls', 'aria-label': t('ctl.label') });
    form.addEventListener('submit', (event) => event.preventDefault());
    for (const control of CONTROLS) form.append(this.#control(control, t));
    form.addEventListener('input', () => this.#fromControls());
    form.addEventListener('change', () => this.#fromControls());

    const walkthrough = el('mha-walkthrough', { lang: this.#lang });
    const heatmap = el('mha-heatmap', { lang: this.#lang, step: this.#state.view, batch: this.#state.batch, head: this.#state.head });
    const shapes = el('mha-shapes', { lang: this.#lang });
    // Handing each child a run (none yet) tells it not to run a config of its own.
    for (const child of [walkthrough, heatmap, shapes]) {
      child.run = this.#run;
      if (this.hasAttribute('theme')) child.setAttribute('theme', this.getAttribute('theme'));
    }
    const onStep = (event) => {
      if (event.target === shapes) walkthrough.stepId = event.detail.step;
      this.#state.step = walkthrough.stepId;
      shapes.setAttribute('current', this.#state.step);
      this.#emitState();
    };
    walkthrough.addEventListener('mha-step', onStep);
    shapes.addEventListener('mha-step', onStep);
    heatmap.addEventListener('mha-select', (event) => {
      Object.assign(this.#state, { view: event.detail.step, batch: event.detail.batch, head: event.detail.head });
      this.#emitState();
    });
    const exportJson = el('button', { type: 'button', 'data-export': 'json' }, t('ctl.exportJson'));
    exportJson.addEventListener('click', () => this.#exportJson());
    const embedButton = el('button', { type: 'button', 'data-action': 'embed' }, t('embed.button'));
    const embedBox = el('div', { class: 'embed', hidden: true },
      el('label', { for: 'embed-html' }, t('embed.html')), el('textarea', { id: 'embed-html', readonly: true, rows: 4, spellcheck: 'false' }),
      el('label', { for: 'embed-iframe' }, t('embed.iframe')), el('textarea', { id: 'embed-iframe', readonly: true, rows: 3, spellcheck: 'false' }),
      el('p', { class: 'note', 'aria-live': 'polite' }));
    embedButton.addEventListener('click', () => this.#showEmbed(embedBox));
    const importBox = this.#importBox(t);

    this.#shown = {}; // new, empty panels
    this.#offscreen = new WeakSet();
    this.#root.replaceChildren(
      el('section', { class: 'block', 'aria-labelledby': 'h-controls' }, el('h2', { id: 'h-controls' }, t('ctl.title')), form,
        el('p', { class: 'error general-error', id: 'error-config', role: 'alert' }),
        el('p', { class: 'summary-line' }), el('ul', { class: 'warnings', 'aria-live': 'polite' }), importBox),
      el('section', { class: 'block', 'aria-labelledby': 'h-shapes' }, el('h2', { id: 'h-shapes' }, t('shapes.title')), shapes),
      el('section', { class: 'block', 'aria-labelledby': 'h-walkthrough' }, el('h2', { id: 'h-walkthrough' }, t('wt.title')), walkthrough),
      el('section', { class: 'block', 'aria-labelledby': 'h-heatmaps' }, el('h2', { id: 'h-heatmaps' }, t('hm.title')), heatmap),
      el('section', { class: 'block lessons', 'aria-labelledby': 'h-lessons' }, el('h2', { id: 'h-lessons' }, t('lessons.title')), el('div', { class: 'cards' })),
      el('section', { class: 'block mistakes', 'aria-labelledby': 'h-mistakes' }, el('h2', { id: 'h-mistakes' }, t('mistakes.title')), el('p', { class: 'note' }, t('mistakes.intro')), el('div', { class: 'cards' })),
      el('section', { class: 'block quiz', 'aria-labelledby': 'h-quiz' }, el('h2', { id: 'h-quiz' }, t('quiz.title')), el('div', { class: 'quiz-body' })),
      el('section', { class: 'block export', 'aria-labelledby': 'h-export' }, el('h2', { id: 'h-export' }, t('export.title')), el('div', { class: 'exports-row' }, exportJson, embedButton), el('p', { class: 'note' }, t('export.note')), embedBox));
    // Which sections the browser is skipping (off screen, content-visibility: auto).
    for (const section of this.#root.querySelectorAll('section.block')) {
      section.addEventListener('contentvisibilityautostatechange', (event) => {
        if (event.skipped) this.#offscreen.add(section); else this.#offscreen.delete(section);
      });
    }
    this.#syncControls();
  }

  #control({ field, key, type, min, options, placeholder, wide }, t) {
    const id = `input-${key}`;
    const errorId = `error-${field}`;
    const attributes = { id, name: key, 'aria-describedby': `${errorId} hint-${key}`, autocomplete: 'off' };
    let input;
    if (type === 'select') {
      input = el('select', attributes, options.map((option) => el('option', { value: option }, t(`ctl.mask.${option}`))));
    } else if (type === 'checkbox') {
      input = el('input', { ...attributes, type: 'checkbox' });
    } else {
      input = el('input', { ...attributes, type, min, step: type === 'number' ? 1 : null, inputmode: type === 'number' ? 'numeric' : null, placeholder: placeholder ? t(`ctl.placeholder.${placeholder}`) : null, spellcheck: type === 'text' ? 'false' : null });
    }
    const label = el('label', { for: id }, t(`ctl.${key}`));
    const hint = el('span', { class: 'hint', id: `hint-${key}` }, t(`ctl.hint.${key}`));
    const error = el('p', { class: 'error', id: errorId, role: 'alert' });
    return type === 'checkbox'
      ? el('div', { class: 'field check' }, input, label, error)
      : el('div', { class: wide ? 'field wide' : 'field' }, label, input, hint, error);
  }

  #syncControls() {
    const form = this.#root.querySelector('form.controls');
    if (!form) return;
    const tokens = this.#state.tokens ?? DEFAULT_TOKENS[this.#lang];
    const values = { ...this.#state, tokens };
    for (const { key, type } of CONTROLS) {
      const input = form.elements.namedItem(key);
      if (type === 'checkbox') input.checked = Boolean(values.bias);
      else input.value = values[key] ?? '';
    }
  }

  #fromControls() {
    const form = this.#root.querySelector('form.controls');
    for (const { key, type } of CONTROLS) {
      const input = form.elements.namedItem(key);
      this.#state[key] = type === 'checkbox' ? input.checked : input.value;
    }
    if (this.#state.tokens === DEFAULT_TOKENS[this.#lang]) this.#state.tokens = null; // keep following the language
    for (const key of ['Tk', 'Hkv']) if (this.#state[key] === '') this.#state[key] = null;
    this.#compute();
  }

  #showError(field, message) {
    const slot = this.#root.getElementById(`error-${field}`) ?? this.#root.getElementById('error-config');
    slot.textContent = message;
    const input = this.#root.querySelector(`[aria-describedby^="${slot.id} "]`);
    input?.setAttribute('aria-invalid', 'true');
  }

  #clearErrors() {
    this.#root.querySelectorAll('.error').forEach((slot) => { slot.textContent = ''; });
    this.#root.querySelectorAll('[aria-invalid]').forEach((input) => input.removeAttribute('aria-invalid'));
  }

  #compute({ force = false } = {}) {
    if (!this.#engine || !this.#root.firstChild) return;
    const lang = this.#lang;
    const t = tr(lang);
    const config = { ...engineConfig(this.#state, lang), memoryCap: PAGE_MEMORY_CAP };
    const key = `${lang} ${JSON.stringify(config)}`;
    if (key === this.#configKey && !force) {
      this.#emitState();
      return;
    }
    let run;
    try {
      run = this.#engine.run(config);
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      this.#clearErrors();
      this.#showError(error.field, error.messageIn(lang));
      this.#configKey = null;
      this.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code: error.code, field: error.field, message: error.message } }));
      return; // the last valid run stays on screen
    }
    this.#clearErrors();
    this.#configKey = key;
    this.#run = run;
    this.#runTokens = parseTokens(this.#state.tokens ?? DEFAULT_TOKENS[lang]);
    this.#root.querySelector('.summary-line').textContent = t('ctl.summary', { T: run.summary.T, D: run.summary.D, kind: t(run.summary.cross ? 'cli.cross' : 'cli.self'), heads: headSharing(run.summary) });
    this.#root.querySelector('.warnings').replaceChildren(...run.warnings.map((warning) => el('li', {}, warning.messageIn(lang))),
      ...hiddenAxisMistakes(run.summary).map(({ axes, size, key }) => el('li', { 'data-warning': key }, t(key, { a: axes[0], b: axes[1], n: size }))));

    const walkthrough = this.#root.querySelector('mha-walkthrough');
    const heatmap = this.#root.querySelector('mha-heatmap');
    const shapes = this.#root.querySelector('mha-shapes');
    const step = run.steps.some((s) => s.id === this.#state.step) ? this.#state.step : 'x';
    walkthrough.tokens = this.#runTokens;
    walkthrough.run = run;
    walkthrough.stepId = step;
    this.#state.step = step;
    shapes.setAttribute('current', step);
    shapes.run = run;
    const { B, H } = run.summary;
    if (!(Number(this.#state.batch) < B)) this.#state.batch = 0;
    if (!(Number(this.#state.head) < H)) this.#state.head = 0;
    heatmap.setAttribute('step', this.#state.view);
    heatmap.setAttribute('batch', this.#state.batch);
    heatmap.setAttribute('head', this.#state.head);
    heatmap.tokens = this.#runTokens;
    heatmap.run = run;
    this.#renderLessons(run, t);
    this.#renderMistakes(run, t);
    this.#renderQuiz(run, t);
    this.dispatchEvent(new CustomEvent('mha-run', { detail: { run, tokens: this.#runTokens } }));
    this.#emitState();
  }

  #emitState() {
    this.dispatchEvent(new CustomEvent('mha-state', { bubbles: true, composed: true, detail: { state: this.state } }));
  }

  /** Memoised engine runs for the side tables (other head counts): same config, same answer. */
  #probe(config) {
    const key = JSON.stringify(config);
    if (!this.#cache.has(key)) {
      if (this.#cache.size > 200) this.#cache.clear();
      this.#cache.set(key, this.#engine.run({ ...config, snapshots: false }).summary);
    }
    return this.#cache.get(key);
  }

  /** The trend's runs are the same few configs every time: run each once. */
  #probeRun(config) {
    const key = JSON.stringify(config);
    if (!this.#probeRuns.has(key)) {
      if (this.#probeRuns.size > 16) this.#probeRuns.clear();
      this.#probeRuns.set(key, this.#engine.run(config));
    }
    return this.#probeRuns.get(key);
  }

  #renderLessons(run, t) {
    const s = run.summary;
    // The lessons read only sizes and options (the summary), never values: a new seed keeps them.
    const key = `${this.#lang} ${JSON.stringify(s)}`;
    if (this.#shown.lessons === key) return;
    this.#shown.lessons = key;
    const cards = this.#root.querySelector('.lessons .cards');

    // Parameters: the same for every H that divides C, because D shrinks as H grows.
    const formula = el('div', { class: 'formula-line' });
    const mha = this.#probe({ B: 1, T: 1, C: s.C, H: s.H, bias: s.bias }).parameterCount;
    renderMath(formula, parameterFormula(s.bias), { C: s.C, N: mha });
    const heads = divisors(s.C).filter((h) => h <= 64);
    const paramRows = heads.map((h) => ({ h, D: s.C / h, count: this.#probe({ B: 1, T: 1, C: s.C, H: h, bias: s.bias }).parameterCount }));
    const params = el('div', { class: 'card', 'data-card': 'params' }, el('h3', {}, t('lessons.params')),
      el('p', {}, t('lessons.paramsNow', { n: formatCount(s.parameterCount) })), formula,
      s.Hkv !== s.H ? el('p', { class: 'note' }, t('lessons.paramsGqa')) : null,
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, 'H'), el('th', {}, 'D'), el('th', {}, t('cli.parameters'))),
        paramRows.map((row) => el('tr', { 'data-h': row.h, class: row.h === s.H ? 'current' : null }, el('td', {}, row.h === s.H ? `▶ ${row.h}` : row.h), el('td', {}, row.D), el('td', {}, formatCount(row.count))))),
      el('p', { class: 'note' }, t('lessons.paramsWhy')));

    // KV cache per token for MHA, this config, and MQA.
    const kvRows = [
      { label: 'MHA', Hkv: s.H },
      ...(s.Hkv !== s.H && s.Hkv !== 1 ? [{ label: `GQA`, Hkv: s.Hkv }] : []),
      { label: 'MQA', Hkv: 1 },
    ].map((row) => ({ ...row, bytes: this.#probe({ B: 1, T: 1, C: s.C, H: s.H, Hkv: row.Hkv }).kvCacheBytesPerToken }));
    const kv = el('div', { class: 'card', 'data-card': 'kv' }, el('h3', {}, t('lessons.kv')),
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, ''), el('th', {}, 'Hkv'), el('th', {}, t('cli.bytesPerToken'))),
        kvRows.map((row) => el('tr', { 'data-kv': row.label }, el('th', {}, row.Hkv === s.Hkv ? `▶ ${row.label}` : row.label), el('td', {}, row.Hkv), el('td', { 'data-bytes': row.bytes }, row.bytes < 1024 ? `${row.bytes} ${t('unit.bytes')}` : formatBytes(row.bytes))))),
      el('p', { class: 'note' }, t('lessons.kvWhy', { D: s.D })));

    cards.replaceChildren(params, this.#growthCard(s, t), kv);
  }

  #growthCard(s, t) {
    const series = growthSeries(s);
    const g = growthChartGeometry(series);
    const path = (points) => points.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`).join(' ');
    const current = series.find((p) => p.current);
    const chart = svg('svg', { viewBox: `0 0 ${g.width} ${g.height}`, role: 'img', 'aria-label': t('lessons.growthLabel', { T: s.T, scores: formatCount(current.scores), flops: formatCount(current.flops) }) });
    for (let e = g.yMin; e <= g.yMax; e++) {
      const y = g.y(10 ** e);
      chart.append(svg('line', { x1: g.left, x2: g.width - g.right, y1: y, y2: y, stroke: '#d5d8de' }),
        svg('text', { x: g.left - 4, y: y + 3, 'text-anchor': 'end', 'font-size': 9, fill: 'currentColor' }, shortNumber(10 ** e)));
    }
    for (const p of series) {
      if (!Number.isInteger(Math.log2(p.T))) continue;
      chart.append(svg('text', { x: g.x(p.T), y: g.height - g.bottom + 12, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, p.T));
    }
    chart.append(svg('text', { x: (g.left + g.width) / 2, y: g.height - 3, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, 'T'),
      svg('line', { x1: g.x(s.T), x2: g.x(s.T), y1: g.top, y2: g.height - g.bottom, stroke: '#cc79a7', 'stroke-dasharray': '3 2', 'stroke-width': 1.5 }),
      svg('path', { d: path(g.scores), fill: 'none', stroke: '#0072b2', 'stroke-width': 2 }),
      svg('path', { d: path(g.flops), fill: 'none', stroke: '#d55e00', 'stroke-width': 2, 'stroke-dasharray': '6 3' }),
      svg('circle', { cx: g.x(s.T), cy: g.y(current.scores), r: 4, fill: '#0072b2' }),
      svg('rect', { x: g.x(s.T) - 4, y: g.y(current.flops) - 4, width: 8, height: 8, fill: '#d55e00' }));
    const table = el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, 'T'), el('th', {}, t('lessons.scoresSize')), el('th', {}, t('cli.flops'))),
      series.map((p) => el('tr', { 'data-t': p.T }, el('td', {}, p.current ? `▶ ${p.T}` : p.T), el('td', {}, formatCount(p.scores)), el('td', {}, formatCount(p.flops)))));
    return el('div', { class: 'card chart', 'data-card': 'growth' }, el('h3', {}, t('lessons.growth')),
      el('p', {}, t('lessons.growthNow', { B: s.B, H: s.H, T: s.T, Tk: s.Tk, n: formatCount(current.scores), flops: formatCount(current.flops) })),
      chart,
      el('p', { class: 'legend-line' }, el('span', { class: 'legend-scores' }, `● — ${t('lessons.scoresSize')}`), ' · ', el('span', { class: 'legend-flops' }, `■ - - ${t('cli.flops')}`), ' · ', el('span', { class: 'legend-t' }, `┆ ${t('lessons.currentT')}`)),
      el('details', {}, el('summary', {}, t('lessons.table')), table));
  }

  #matrix(allRows, { rowSums: allRowSums, colSums: allColSums, digits = 2, labels } = {}) {
    // Big matrices are cut to their top-left corner: the point of each mistake shows there, and
    // the page stays quick to redraw.
    const rows = allRows.slice(0, MAX_MATRIX).map((row) => row.slice(0, MAX_MATRIX));
    const rowSums = allRowSums?.slice(0, MAX_MATRIX);
    const colSums = allColSums?.slice(0, MAX_MATRIX);
    const sumRow = colSums ? el('tr', {}, el('th', { class: 'sum' }, 'Σ'), colSums.map((v) => el('td', { class: 'sum mono', 'data-colsum': v }, formatValue(v, digits))), rowSums ? el('td', {}, '') : null) : null;
    const cut = allRows.length > MAX_MATRIX || allRows[0].length > MAX_MATRIX;
    return el('table', { class: 'matrix' },
      cut ? el('caption', { class: 'note' }, tr(this.#lang)('mistakes.corner', { n: MAX_MATRIX, rows: allRows.length, cols: allRows[0].length })) : null,
      rows.map((row, r) => el('tr', {}, el('th', {}, labels?.[r] ?? r), row.map((v) => el('td', { class: 'mono', 'data-value': v }, formatValue(v, digits))),
        rowSums ? el('td', { class: 'sum mono', 'data-rowsum': rowSums[r] }, formatValue(rowSums[r], digits)) : null)),
      sumRow);
  }

  #renderMistakes(run, t) {
    const cards = this.#root.querySelector('.mistakes .cards');
    const s = run.summary;
    const labels = this.#runTokens;
    const pair = (wrong, right) => el('div', { class: 'pair' },
      el('div', { 'data-side': 'wrong' }, el('p', { class: 'label-wrong' }, `✗ ${t('mistakes.wrong')}`), wrong),
      el('div', { 'data-side': 'right' }, el('p', { class: 'label-right' }, `✓ ${t('mistakes.right')}`), right));
    const card = (id, title, ...body) => el('div', { class: 'card', 'data-mistake': id }, el('h3', {}, title), ...body);

    const p = noProjection(run);
    const projection = card('noProjection', t('mistakes.noProjection'),
      el('p', {}, t('mistakes.noProjectionWhat', { a: p.features[0], b: p.features[1] })),
      pair(this.#matrix(p.wrong, { labels }), this.#matrix(p.right, { labels })),
      p.wrongAsymmetry === null ? null : el('p', { 'data-result': 'symmetry' }, t('mistakes.symmetry', { wrong: formatValue(p.wrongAsymmetry), right: formatValue(p.rightAsymmetry) })));

    const k = noTranspose(run);
    const transpose = card('noTranspose', t('mistakes.noTranspose'),
      k.ok
        ? [el('p', { class: 'label-wrong', 'data-result': 'silent' }, t('mistakes.silent', { D: s.D, Tk: s.Tk, diff: formatValue(k.maxDiff) })), pair(this.#matrix(k.wrong, { labels }), this.#matrix(k.right, { labels }))]
        : [el('p', { class: 'label-wrong', 'data-result': 'shape-error' }, t('mistakes.shapeError', { a: `[${k.left.join(',')}]`, b: `[${k.right.join(',')}]`, D: s.D, Tk: s.Tk })),
          el('p', {}, t('mistakes.shapeErrorHint'))]);

    const q = softmaxOverQueries(run);
    const softmaxCard = card('softmaxOverQueries', t('mistakes.softmaxTq'),
      el('p', {}, t('mistakes.softmaxTqWhat')),
      pair(this.#matrix(q.wrong, { rowSums: q.wrongRowSums, colSums: q.wrongColSums, labels }), this.#matrix(q.right, { rowSums: q.rightRowSums, colSums: q.rightColSums, labels })));

    const r = reshapeWithoutTranspose(run);
    const reshape = card('reshapeWithoutTranspose', t('mistakes.reshape'),
      el('p', {}, t('mistakes.reshapeWhat', { n: r.scrambledRows, m: r.rows.length })),
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, t('mistakes.headRow')), el('th', {}, t('mistakes.holds'))),
        r.rows.slice(0, 2 * MAX_MATRIX).map((row) => el('tr', { 'data-scrambled': String(row.scrambled) }, el('th', {}, `h${row.h} · ${labels[row.t] ?? row.t}`),
          el('td', { class: row.scrambled ? 'holds label-wrong' : 'holds label-right' }, t('mistakes.holdsText', { token: labels[row.token] ?? row.token, h: row.tokenHead }))))));

    const n = noScale(run, (config) => this.#probeRun(config));
    const scale = card('noScale', t('mistakes.noScale'),
      el('p', { 'data-result': 'peak' }, t('mistakes.peak', { wrong: formatValue(n.wrongPeak, 3), right: formatValue(n.rightPeak, 3), uniform: formatValue(1 / s.Tk, 3) })),
      pair(this.#matrix(n.wrong, { labels }), this.#matrix(n.right, { labels })),
      el('p', {}, t('mistakes.trend')),
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, 'D'), el('th', {}, t('mistakes.wrong')), el('th', {}, t('mistakes.right'))),
        n.trend.map((row) => el('tr', { 'data-d': row.D }, el('td', {}, row.D), el('td', {}, formatValue(row.wrong, 3)), el('td', {}, formatValue(row.right, 3))))));

    // On screen, a new seed changes only numbers in place (little to lay out again); off screen
    // nothing is laid out until it is seen, so swapping in the new cards is cheaper than comparing.
    const fresh = [projection, transpose, softmaxCard, reshape, scale];
    if (this.#offscreen.has(cards.closest('section'))) cards.replaceChildren(...fresh);
    else patchChildren(cards, fresh);
  }

  #renderQuiz(run, t) {
    const body = this.#root.querySelector('.quiz-body');
    const questions = makeQuestions(run, this.#quizVariant);
    // The same questions (a new seed asks about the same shapes) keep the reader's answers.
    const key = `${this.#lang} ${this.#quizVariant} ${JSON.stringify(questions)}`;
    if (this.#shown.quiz === key) return;
    this.#shown.quiz = key;
    const list = el('ol', { class: 'quiz' }, questions.map((question, i) => {
      const text = t(question.key, question.params);
      const input = el('input', { type: 'text', id: `quiz-${i}`, 'aria-label': text, autocomplete: 'off', placeholder: t(question.kind === 'shape' ? 'quiz.shapePlaceholder' : 'quiz.numberPlaceholder') });
      const verdict = el('span', { class: 'verdict', 'aria-live': 'polite' });
      const check = el('button', { type: 'button' }, t('quiz.check'));
      const judge = () => {
        const ok = checkAnswer(question, input.value);
        verdict.className = ok ? 'verdict verdict-ok' : 'verdict verdict-no';
        verdict.dataset.ok = String(ok);
        verdict.textContent = ok ? `✓ ${t('quiz.right')}` : `✗ ${t('quiz.wrong', { answer: answerText(question) })}`;
      };
      check.addEventListener('click', judge);
      input.addEventListener('keydown', (event) => { if (event.key === 'Enter') judge(); });
      return el('li', { 'data-question': question.id }, el('label', { for: `quiz-${i}` }, text), el('div', { class: 'quiz-row' }, input, check, verdict));
    }));
    const more = el('button', { type: 'button', 'data-action': 'more' }, t('quiz.more'));
    more.addEventListener('click', () => {
      this.#quizVariant += 1;
      this.#renderQuiz(this.#run, tr(this.#lang));
    });
    body.replaceChildren(el('p', { class: 'note' }, t('quiz.intro')), list, more);
  }

  // Import config (JSON): a file or pasted text, an exported snapshot or a plain config. Anything
  // refused gets a message here and changes nothing; the last valid run stays.
  #importBox(t) {
    const file = el('input', { type: 'file', id: 'import-file', accept: '.json,application/json', 'aria-describedby': 'error-import import-hint' });
    const paste = el('textarea', { id: 'import-text', rows: 3, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'error-import import-hint' });
    const button = el('button', { type: 'button', 'data-action': 'import' }, t('import.button'));
    file.addEventListener('change', async () => {
      const chosen = file.files?.[0];
      if (!chosen) return;
      let text;
      try {
        checkImportSize(chosen.size); // refused before a byte is read
        text = await chosen.text();
      } catch (error) {
        this.#importFailed(error instanceof ImportError ? error : new ImportError('unreadable', { detail: error.message }));
        return;
      } finally {
        file.value = ''; // the same file can be chosen again
      }
      this.#importText(text);
    });
    button.addEventListener('click', () => this.#importText(paste.value));
    return el('details', { class: 'import' }, el('summary', {}, t('import.title')),
      el('div', { class: 'import-body' },
        el('p', { class: 'note', id: 'import-hint' }, t('import.hint'), ' ', el('code', {}, t('import.example')), ' ', t('import.only')),
        el('label', { for: 'import-file' }, t('import.file')), file,
        el('label', { for: 'import-text' }, t('import.paste')), paste, button,
        el('p', { class: 'error', id: 'error-import', role: 'alert' }),
        el('p', { class: 'note import-status', 'aria-live': 'polite' })));
  }

  #importText(text) {
    const lang = this.#lang;
    let imported;
    try {
      imported = importConfig(text);
    } catch (error) {
      this.#importFailed(error);
      return;
    }
    const candidate = { ...this.#state, ...imported };
    try {
      // The engine judges the values (and the size, before it allocates) without a full run.
      this.#engine?.validate({ ...engineConfig(candidate, lang), memoryCap: PAGE_MEMORY_CAP });
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      this.#importFailed(error);
      return;
    }
    if (!this.#engine) return;
    this.state = candidate;
    this.#root.querySelector('.import-status').textContent = tr(lang)('import.done');
  }

  #importFailed(error) {
    const lang = this.#lang;
    const t = tr(lang);
    // An import refused (ImportError) or the engine's own error (MhaError): each says itself.
    const message = error.messageIn(lang);
    this.#root.querySelector('.import-status').textContent = '';
    this.#root.getElementById('error-import').textContent = `${t('import.refused')} ${message}`;
  }

  async #showEmbed(box) {
    const t = tr(this.#lang);
    const base = this.getAttribute('embed-base') ?? new URL('./', document.baseURI).href;
    const { html, iframe } = embedSnippets(this.#state, this.#runTokens, { bundleUrl: new URL('dist/mha-lens.js', base).href, embedUrl: new URL('embed.html', base).href, lang: this.#lang });
    const [htmlBox, iframeBox] = box.querySelectorAll('textarea');
    htmlBox.value = html;
    iframeBox.value = iframe;
    box.hidden = false;
    htmlBox.select();
    const note = box.querySelector('.note');
    try {
      await navigator.clipboard.writeText(html);
      note.textContent = t('embed.copied');
    } catch {
      note.textContent = t('embed.select'); // no clipboard permission: the text is selected instead
    }
  }

  #exportJson() {
    const run = this.#run;
    if (!run) return;
    const data = {
      tool: 'mha-lens',
      config: engineConfig(this.#state, this.#lang),
      tokens: this.#runTokens,
      summary: run.summary,
      warnings: run.warnings,
      steps: run.steps.map((step) => ({ ...step, data: Array.from(step.data, (v) => (Number.isFinite(v) ? v : String(v))) })),
    };
    download(new Blob([JSON.stringify(data)], { type: 'application/json' }), 'mha-lens-run.json');
  }
}
