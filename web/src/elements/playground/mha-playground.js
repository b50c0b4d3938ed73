// <mha-playground>: the whole lens — controls, shape chain, walkthrough, heatmaps, what the
// numbers teach (why 1/√D, parameters, growth, KV cache), PyTorch's layout with a state dict to
// run, common mistakes, a self-test and export — composed of the same elements a tutorial page
// embeds and of the panels in playground/. Config comes from attributes (b, tk, c, h, hkv, mask,
// key-lengths, bias, seed, tokens, lang) or the `state` property; it fires `mha-state` after every
// change (the docs page keeps the URL in step with it) and `mha-error` for an invalid config,
// whose message is shown next to the control at fault while the last valid run stays on screen,
// marked as stale.
import { MhaError } from '../../engine/engine.js';
import { pageErrorText } from '../../text/page-message.js';
import { DEFAULT_STATE, DEFAULT_TOKENS, engineConfig } from '../../logic/page/page-state.js';
import { CONFIG_FIELDS, parseBias, parseTokens } from '../../logic/config-input.js';
import { translator } from '../../text/translate.js';
import { ElementBase, el, langOf } from '../base/dom.js';
import { installProperties } from '../base/properties.js';
import { engineLoadError, getEngine } from '../base/page-engine.js';
import { baseStyles, sheet } from '../base/styles.js';
import { followHostScheme, stopFollowingHostScheme } from '../base/theme.js';
import { CONTROLS_STYLES, ControlsPanel } from './controls.js';
import { EXPORT_STYLES, ExportPanel } from './export-panel.js';
import { FRAME_STYLES, block } from './frame.js';
import { IMPORT_STYLES, ImportPanel } from './import-panel.js';
import { LESSONS_STYLES, LessonsPanel } from './lessons-panel.js';
import { MISTAKES_STYLES, MistakesPanel } from './mistakes-panel.js';
import { QUIZ_STYLES, QuizPanel } from './quiz-panel.js';
import { BLOCK_STYLES, BlockSourcePanel } from '../trainer/block-source.js';
import { TORCH_STYLES, TorchPanel } from './torch-panel.js';
import { ALGORITHMS_STYLES, AlgorithmsPanel } from './algorithms-panel.js';
import '../define.js';

// The config attributes it takes: all but t (T follows the tokens).
const ATTRIBUTE_FIELDS = CONFIG_FIELDS.filter(({ field }) => field !== 'T');

// A page that stays responsive: the engine explains the cap if it is hit.
const PAGE_MEMORY_CAP = 64 * 2 ** 20;

/** The example where every size differs, so no shape can be read two ways: B=2, T=3, H=4, D=5, C=20. */
export const DISTINCT_EXAMPLE = { tokens: { en: 'cats chase mice', zh: '猫 追 老鼠' }, B: 2, C: 20, H: 4 };

const STALE_STYLES = sheet(`
section.block.stale > :not(h2):not(.stale-note) { opacity: 0.45; }
.stale-note { color: var(--error); font-weight: 600; margin: 0 0 0.5em; }
.stale-note:empty { display: none; }
`);

const STYLES = [FRAME_STYLES, CONTROLS_STYLES, IMPORT_STYLES, LESSONS_STYLES, TORCH_STYLES, MISTAKES_STYLES, QUIZ_STYLES, EXPORT_STYLES, BLOCK_STYLES, ALGORITHMS_STYLES, STALE_STYLES];

// Side runs the panels read (other head counts, the 1/√D probes): the same config gives the same
// answer, so each is run once; `limit` keeps the memo small.
function memo(compute, limit) {
  const cache = new Map();
  return (config) => {
    const key = JSON.stringify(config);
    if (!cache.has(key)) {
      if (cache.size > limit) cache.clear();
      cache.set(key, compute(config));
    }
    return cache.get(key);
  };
}

// Sizes as the stale note names them: "B=2, T=4, C=8, H=2".
const sizesText = ({ B, T, Tk, C, H, Hkv, cross }) => [`B=${B}`, `T=${T}`, cross ? `Tk=${Tk}` : null, `C=${C}`, `H=${H}`, Hkv !== H ? `Hkv=${Hkv}` : null].filter(Boolean).join(', ');

export class MhaPlaygroundElement extends ElementBase {
  #root;
  #engine = null;
  #state = { ...DEFAULT_STATE };
  #weights = null; // { weights, C } from a pasted state dict, or null: seeded
  #weightsId = 0;
  #run = null;
  #runTokens = [];
  #configKey = null; // the config last run, so a blur's change event does not redraw the same run
  #failed = false; // the engine refused that config (its message is shown)
  #panels = null; // the panels and elements, built for one language
  #cut = null; // { given, total }: the link held only some token labels
  #deferred = 0; // the panels below the heatmaps, updated after the frame (see #compute)
  #summaryOf = memo((config) => this.#engine.run({ ...config, snapshots: false }).summary, 200);
  #runOf = memo((config) => this.#engine.run(config), 32);

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [baseStyles(), ...STYLES];
  }

  disconnectedCallback() {
    stopFollowingHostScheme(this);
    this.removeEventListener('mha-train-view', this.#onTrainerView);
    this.removeEventListener('mha-train-done', this.#onTrainerView);
  }

  // --- The walkthrough's source: seeded, or the trained model's block ---
  #onTrainerView = (event) => {
    if (this.#panels?.block.active && !event.target.running) this.#applyBlock();
  };

  /** { layer (null: the seeded run), backward }: what the walkthrough shows, for the URL. */
  get blockSource() { return this.#panels?.block.state ?? this.#blockState; }
  set blockSource(state) {
    this.#blockState = state;
    if (!this.#panels) return;
    this.#panels.block.state = state;
    this.#compute({ force: true });
  }

  #blockState = null;

  #applyBlock() {
    const { block, walkthrough, heatmap, shapes } = this.#panels;
    if (block.active) block.apply({ walkthrough, heatmap, shapes });
    else this.#compute({ force: true });
  }
  // --- end of the walkthrough's source ---

  async connectedCallback() {
    followHostScheme(this);
    // The trained model's block (trainer/block-source.js) follows the trainer when it stops.
    this.addEventListener('mha-train-view', this.#onTrainerView);
    this.addEventListener('mha-train-done', this.#onTrainerView);
    this.#readAttributes();
    this.#build();
    try {
      this.#engine = await getEngine();
    } catch (error) {
      this.#panels.controls.showError('config', engineLoadError(error).messageIn(this.#lang));
      return;
    }
    this.#compute();
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.#panels) return;
    if (name === 'lang' || name === 'theme' || name === 'trained-href') {
      this.#build();
      this.#compute({ force: true });
      return;
    }
    this.#readAttributes();
    this.#panels.controls.show(this.#state);
    this.#compute();
  }

  /** The page state: config text as typed, and the selected step, heatmap step, scale, batch and head. */
  get state() { return { ...this.#state }; }
  set state(state) {
    this.#state = { ...DEFAULT_STATE, ...state };
    this.#panels?.controls.show(this.#state);
    this.#compute({ force: true });
  }

  /**
   * The last valid run (stays when the controls hold an invalid config). A new run releases the
   * one before it (Run.release()): keep values you need beyond that as copies.
   */
  get run() { return this.#run; }

  /** The token labels of that run (the `tokens` attribute and property: the tokens typed). */
  get labels() { return this.#runTokens; }

  /** True while the weights are seeded (random), false with a pasted state dict's. */
  get seeded() { return !this.#weights; }

  /** { given, total }: the page's link held the labels of the first `given` of `total` tokens. */
  set tokensCut(cut) {
    this.#cut = cut;
    this.#showCut();
  }

  /** Moves to the walkthrough: scrolls it into view and focuses its current step. */
  focusWalkthrough() {
    const { walkthrough } = this.#panels;
    this.#root.querySelector('section.walkthrough')?.scrollIntoView({ block: 'start' });
    walkthrough.focusStep();
  }

  /**
   * The chapters in page order: [{ id ('shapes', 'walkthrough', …), title, section }], one per
   * titled section shown (the docs page builds its table of contents from them).
   */
  get chapters() {
    if (!this.#panels) return [];
    return [...this.#root.children].filter((node) => node.matches('section.block') && !node.hidden).map((section) => ({
      id: [...section.classList].find((name) => name !== 'block' && name !== 'stale'),
      title: section.querySelector(':scope > h2')?.textContent ?? '',
      section,
    }));
  }

  /** Scrolls chapter `id` into view and moves focus to its heading; false if there is none. */
  goTo(id) {
    const chapter = this.chapters.find((c) => c.id === id);
    if (!chapter) return false;
    const heading = chapter.section.querySelector(':scope > h2');
    heading.setAttribute('tabindex', '-1');
    chapter.section.scrollIntoView({ block: 'start' });
    heading.focus({ preventScroll: true });
    return true;
  }

  /** Shows step `id` in the walkthrough and goes there; false if the run has no such step. */
  goToStep(id) {
    if (!this.#run?.steps.some((step) => step.id === id)) return false;
    this.#goToStep(id);
    return true;
  }

  get #lang() { return langOf(this); }

  // The state holds the text as written; bias is read now, as the one config reader reads it.
  #readAttributes() {
    for (const { field, attribute } of ATTRIBUTE_FIELDS) {
      if (!this.hasAttribute(attribute)) continue;
      const value = this.getAttribute(attribute);
      this.#state[field] = field === 'bias' ? parseBias(value) : value;
    }
    // One sentence of tokens and no b is one batch row, as for every element.
    if (this.hasAttribute('tokens') && !this.hasAttribute('b') && this.getAttribute('tokens').trim()) this.#state.B = 1;
  }

  // Everything, in the reader's language: the controls (with the import panel), the three
  // elements, and the panels below them.
  #build() {
    const lang = this.#lang;
    const t = translator(lang);
    const importPanel = new ImportPanel({ t, lang, apply: (imported) => this.#import(imported) });
    const controls = new ControlsPanel({ t, lang, extra: importPanel.element, onChange: () => this.#fromControls(), onDistinct: () => this.#distinct() });
    const lessons = new LessonsPanel({ t, summaryOf: this.#summaryOf, runOf: this.#runOf });
    const torch = new TorchPanel({ t, lang, apply: (stateDict) => this.#applyStateDict(stateDict), reset: () => this.#seededWeights() });
    const algorithms = new AlgorithmsPanel({ t, lang, engine: () => this.#engine, config: () => this.#config(), walk: (run) => this.#walkAlgorithm(run) });
    const mistakes = new MistakesPanel({ t });
    const quiz = new QuizPanel({ t, practice: this.#panels?.quiz.practice, answers: this.#panels?.quiz.answers, onDistinct: () => this.#distinct() });
    const exports = new ExportPanel({ t, lang, embedBase: () => this.getAttribute('embed-base') ?? new URL('./', document.baseURI).href,
      view: () => ({ state: this.#state, config: engineConfig(this.#state, lang), tokens: this.#runTokens, run: this.#run }) });

    const walkthrough = el('mha-walkthrough', { lang, 'step-links': this.hasAttribute('step-links') ? '' : null });
    const heatmap = el('mha-heatmap', { lang, step: this.#state.view, batch: this.#state.batch, head: this.#state.head,
      'trained-href': this.getAttribute('trained-href') ?? '#trained' });
    const shapes = el('mha-shapes', { lang });
    const blockSource = new BlockSourcePanel({ t, host: this, state: this.#panels?.block.state ?? this.#blockState, onChange: () => { this.#applyBlock(); this.#emitState(); } });
    // The trainer section (<mha-trainer slot="trained">, a child in the page, so that #trained
    // is a link into it), right after the heatmaps; hidden when the page gives none.
    const trained = block('trained', t('tr.title'), el('slot', { name: 'trained' }));
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
      const { step, batch, head, scale, average } = event.detail;
      Object.assign(this.#state, { view: step, batch, head, scale, average });
      this.#emitState();
    });

    const staleNote = () => el('p', { class: 'stale-note', role: 'status' });
    this.#panels = { controls, lessons, torch, algorithms, mistakes, quiz, walkthrough, heatmap, shapes, block: blockSource };
    this.#root.replaceChildren(controls.section,
      block('shapes', t('shapes.title'), staleNote(), shapes),
      block('walkthrough', t('wt.title'), staleNote(), blockSource.element, walkthrough),
      block('heatmaps', t('hm.title'), staleNote(), heatmap),
      trained,
      algorithms.section,
      lessons.section, torch.section, mistakes.section, quiz.section, exports.section);
    const slot = trained.querySelector('slot');
    const showTrained = () => { trained.hidden = slot.assignedElements().length === 0; };
    slot.addEventListener('slotchange', showTrained);
    showTrained();
    controls.show(this.#state);
    this.#showCut();
  }

  #showCut() {
    if (!this.#panels) return;
    const cut = this.#cut;
    this.#panels.controls.noteTokens(cut ? translator(this.#lang)('ctl.cut', { given: cut.given, total: cut.total, next: cut.given + 1 }) : '');
  }

  #fromControls() {
    const before = this.#state.tokens;
    this.#panels.controls.read(this.#state);
    if (this.#cut && this.#state.tokens !== before) this.tokensCut = null; // the reader's own tokens now
    this.#compute();
  }

  // The all-sizes-different example, kept in the reader's language.
  #distinct() {
    const { tokens, ...sizes } = DISTINCT_EXAMPLE;
    this.state = { ...this.#state, ...sizes, tokens: tokens[this.#lang], Tk: null, Hkv: null, mask: 'none', keyLengths: '' };
    this.#root.querySelector('section.walkthrough')?.scrollIntoView({ block: 'start' });
  }

  // An imported config replaces the state once the engine accepts it (MhaError otherwise).
  #import(imported) {
    if (!this.#engine) return false;
    const candidate = { ...this.#state, ...imported };
    // The engine judges the values (and the size, before it allocates) without a full run.
    this.#engine.validate({ ...engineConfig(candidate, this.#lang), memoryCap: PAGE_MEMORY_CAP });
    this.state = candidate;
    return true;
  }

  // A pasted state dict: its weights (converted by the engine) with its C and bias, the H set in
  // the controls. Throws the engine's MhaError (shown by the panel) if they do not fit.
  #applyStateDict({ kind, params, C, bias }) {
    if (!this.#engine) return;
    const weights = kind === 'torch' ? this.#engine.fromTorch(params) : this.#engine.fromLinear(params);
    const kvWidth = weights.Wk.length / C;
    const H = Number(this.#state.H);
    const Hkv = kvWidth !== C && Number.isInteger(H) && C % H === 0 ? kvWidth / (C / H) : null;
    const candidate = { ...this.#state, C, bias, Hkv };
    this.#engine.validate({ ...engineConfig(candidate, this.#lang), weights, memoryCap: PAGE_MEMORY_CAP });
    this.#weights = { weights, C };
    this.#weightsId++;
    this.state = candidate;
  }

  #seededWeights() {
    if (!this.#weights) return;
    this.#weights = null;
    this.#weightsId++;
    this.#compute({ force: true });
  }

  #config() {
    const config = { ...engineConfig(this.#state, this.#lang), memoryCap: PAGE_MEMORY_CAP };
    return this.#weights ? { ...config, weights: this.#weights.weights } : config;
  }

  #compute({ force = false } = {}) {
    if (!this.#engine || !this.#panels) return;
    const lang = this.#lang;
    const { controls, walkthrough, heatmap, shapes } = this.#panels;
    const config = this.#config();
    const tokens = parseTokens(this.#state.tokens ?? DEFAULT_TOKENS[lang]);
    const { weights, ...sizes } = config;
    const key = `${lang} ${JSON.stringify(sizes)} ${weights ? this.#weightsId : 'seeded'}`;
    if (key === this.#configKey && !force) {
      // The same run: new words for its tokens are only labels (the values do not depend on them).
      // The same refused config keeps its message as it is (a click on its link must find it).
      if (!this.#failed && tokens.join('\u0000') !== this.#runTokens.join('\u0000')) this.#relabel(tokens);
      this.#emitState();
      return;
    }
    let run;
    try {
      run = this.#engine.run(config);
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      this.#refused(error);
      this.#configKey = key;
      this.#failed = true;
      return; // the last valid run stays on screen, marked as stale
    }
    this.#failed = false;
    controls.clearErrors();
    this.#markStale(false);
    this.#configKey = key;
    const previous = this.#run;
    this.#run = run;
    this.#runTokens = tokens;
    controls.showRun(run);

    const step = run.steps.some((s) => s.id === this.#state.step) ? this.#state.step : 'x';
    walkthrough.labels = this.#runTokens;
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
    if (this.#state.scale) heatmap.setAttribute('scale', this.#state.scale); else heatmap.removeAttribute('scale');
    heatmap.toggleAttribute('average', parseBias(this.#state.average) === true);
    heatmap.seeded = !this.#weights;
    heatmap.origin = { x: 'seeded', weights: this.#weights ? 'pasted' : 'seeded' }; // the trained block sets its own
    heatmap.labels = this.#runTokens;
    heatmap.run = run;
    if (this.#panels.block.active) this.#panels.block.apply({ walkthrough, heatmap, shapes }); // the trained block instead
    this.#updatePanels();
    this.dispatchEvent(new CustomEvent('mha-run', { detail: { run, tokens: this.#runTokens } }));
    // Everything shows the new run now (elements that follow this one took it from mha-run): the
    // previous run's arrays go at once instead of waiting for the garbage collector, so that the
    // next run's snapshots reuse their memory (at T = 128 a run is megabytes of new arrays).
    if (previous && previous !== run) previous.release();
    this.#emitState();
  }

  // The panels below the heatmaps (lessons, PyTorch, mistakes, self-test) are drawn when the main
  // thread is idle after the frame that shows the new run: a change of a control repaints what is
  // on screen first, and while a reader drags a slider or types, these sections (mostly off
  // screen, with content-visibility: auto) are drawn once, for the run the reader stops at.
  #updatePanels() {
    const ticket = ++this.#deferred;
    // One task per panel, so that no single task holds them all (at T = 128 together they took
    // over a second): the reader's next keystroke is handled between two panels, and a newer run
    // drops the rest. Each panel's time is a performance measure ("mha-panel lessons", …).
    const { lessons, torch, algorithms, mistakes, quiz } = this.#panels;
    const jobs = [
      ['algorithms', () => algorithms.show(this.#run, { batch: Number(this.#state.batch) || 0, head: Number(this.#state.head) || 0 })],
      ['lessons', () => lessons.show(this.#run, { tokens: this.#runTokens, seeded: !this.#weights })],
      ['torch', () => torch.show(this.#run, Boolean(this.#weights))],
      ['mistakes', () => mistakes.show(this.#run, this.#runTokens)],
      ['quiz', () => quiz.show(this.#run)],
    ];
    const later = (fn) => (typeof requestIdleCallback === 'function' ? requestIdleCallback(fn, { timeout: 2000 }) : setTimeout(fn, 0));
    const next = () => {
      if (ticket !== this.#deferred || !this.#run) return;
      const job = jobs.shift();
      if (!job) {
        this.dispatchEvent(new CustomEvent('mha-panels', { detail: { run: this.#run } }));
        return;
      }
      const start = performance.now();
      job[1]();
      performance.measure?.(`mha-panel ${job[0]}`, { start, end: performance.now() });
      later(next);
    };
    requestAnimationFrame(() => later(next));
  }

  // Only the labels changed: the same run, shown with the new tokens everywhere they appear.
  #relabel(tokens) {
    this.#runTokens = tokens;
    const { walkthrough, heatmap } = this.#panels;
    walkthrough.labels = tokens;
    heatmap.labels = tokens;
    this.#updatePanels();
    this.dispatchEvent(new CustomEvent('mha-run', { detail: { run: this.#run, tokens } }));
  }

  // A config the engine refused: its message next to the control at fault (the page's own words
  // for the memory cap, which it has no control for), and what is on screen marked as stale.
  #refused(error) {
    const lang = this.#lang;
    const t = translator(lang);
    const { controls } = this.#panels;
    controls.clearErrors();
    const split = this.#run?.steps.findIndex((s) => s.op === 'reshape') ?? -1;
    const action = error.key === 'not_divisible' && split >= 0
      ? { text: t('error.seeSplit', { n: split + 1 }), run: () => this.#goToStep(this.#run.steps[split].id) }
      : null;
    controls.showError(error.field, pageErrorText(error, lang, this.#engine.messages), action);
    this.#markStale(true);
    this.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code: error.code, field: error.field, message: error.message } }));
  }

  #markStale(stale) {
    const t = translator(this.#lang);
    this.#panels.controls.markStale(stale);
    const note = stale && this.#run ? t('stale.note', { config: sizesText(this.#run.summary) }) : '';
    for (const name of ['shapes', 'walkthrough', 'heatmaps']) {
      const section = this.#root.querySelector(`section.block.${name}`);
      section.classList.toggle('stale', Boolean(note));
      section.querySelector('.stale-note').textContent = note;
    }
  }

  // The walkthrough over another algorithm's run of the same config (the algorithms panel): from
  // its first step of its own; the next change of the config brings the naive pass back.
  #walkAlgorithm(run) {
    const { walkthrough } = this.#panels;
    walkthrough.run = run;
    const first = run.steps.find((step) => step.id.startsWith('tile_') || step.id.startsWith('decode_')) ?? run.steps[0];
    walkthrough.stepId = first.id;
    this.focusWalkthrough();
  }

  #goToStep(id) {
    const { walkthrough, shapes } = this.#panels;
    walkthrough.stepId = id;
    this.#state.step = walkthrough.stepId;
    shapes.setAttribute('current', this.#state.step);
    this.focusWalkthrough();
    this.#emitState();
  }

  #emitState() {
    this.dispatchEvent(new CustomEvent('mha-state', { bubbles: true, composed: true, detail: { state: this.state } }));
  }
}

installProperties(MhaPlaygroundElement, 'mha-playground');
