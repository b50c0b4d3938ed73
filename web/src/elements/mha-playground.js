// <mha-playground>: the whole lens — controls, shape chain, walkthrough, heatmaps, what the
// numbers teach (parameters, growth, KV cache), common mistakes, a self-test and export —
// composed of the same elements a tutorial page embeds and of the panels in playground/. Config
// comes from attributes (b, tk, c, h, hkv, mask, key-lengths, bias, seed, tokens, lang) or the
// `state` property; it fires `mha-state` after every change (the docs page keeps the URL in step
// with it) and `mha-error` for an invalid config, whose message is shown next to the control at
// fault while the last valid run stays on screen.
import { MhaError } from '../engine/engine.js';
import { DEFAULT_STATE, DEFAULT_TOKENS, engineConfig } from '../logic/page-state.js';
import { CONFIG_FIELDS, parseBias, parseTokens } from '../model/config-input.js';
import { translator } from '../text/translate.js';
import { ElementBase, el, langOf } from './dom.js';
import { engineLoadError, getEngine } from './page-engine.js';
import { baseStyles } from './styles.js';
import { followHostScheme, stopFollowingHostScheme } from './theme.js';
import { CONTROLS_STYLES, ControlsPanel } from './playground/controls.js';
import { EXPORT_STYLES, ExportPanel } from './playground/export-panel.js';
import { FRAME_STYLES, block } from './playground/frame.js';
import { IMPORT_STYLES, ImportPanel } from './playground/import-panel.js';
import { LESSONS_STYLES, LessonsPanel } from './playground/lessons-panel.js';
import { MISTAKES_STYLES, MistakesPanel } from './playground/mistakes-panel.js';
import { QUIZ_STYLES, QuizPanel } from './playground/quiz-panel.js';
import { BLOCK_STYLES, BlockSourcePanel } from './trainer/block-source.js';
import './define.js';

// The config attributes it takes: all but t (T follows the tokens).
const ATTRIBUTE_FIELDS = CONFIG_FIELDS.filter(({ field }) => field !== 'T');

// A page that stays responsive: the engine explains the cap if it is hit.
const PAGE_MEMORY_CAP = 64 * 2 ** 20;

const STYLES = [FRAME_STYLES, CONTROLS_STYLES, IMPORT_STYLES, LESSONS_STYLES, MISTAKES_STYLES, QUIZ_STYLES, EXPORT_STYLES, BLOCK_STYLES];

// Side runs the panels read (other head counts, the 1/√D trend): the same config gives the same
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

export class MhaPlaygroundElement extends ElementBase {
  static get observedAttributes() { return ['lang', 'theme', ...ATTRIBUTE_FIELDS.map(({ attribute }) => attribute)]; }

  #root;
  #engine = null;
  #state = { ...DEFAULT_STATE };
  #run = null;
  #runTokens = [];
  #configKey = null; // the config last run, so a blur's change event does not redraw the same run
  #panels = null; // { controls, lessons, mistakes, quiz }, and the elements, built for one language
  #summaryOf = memo((config) => this.#engine.run({ ...config, snapshots: false }).summary, 200);
  #runOf = memo((config) => this.#engine.run(config), 16);

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

  // --- The walkthrough's source: seeded, or the trained model's block (issue 13) ---
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
    if (name === 'lang' || name === 'theme') {
      this.#build();
      this.#compute({ force: true });
      return;
    }
    this.#readAttributes();
    this.#panels.controls.show(this.#state);
    this.#compute();
  }

  /** The page state: config text as typed, and the selected step, heatmap step, batch and head. */
  get state() { return { ...this.#state }; }
  set state(state) {
    this.#state = { ...DEFAULT_STATE, ...state };
    this.#panels?.controls.show(this.#state);
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

  // Everything, in the reader's language: the controls (with the import panel), the three
  // elements, and the panels below them.
  #build() {
    const lang = this.#lang;
    const t = translator(lang);
    const importPanel = new ImportPanel({ t, lang, apply: (imported) => this.#import(imported) });
    const controls = new ControlsPanel({ t, lang, extra: importPanel.element, onChange: () => this.#fromControls() });
    const lessons = new LessonsPanel({ t, summaryOf: this.#summaryOf });
    const mistakes = new MistakesPanel({ t, runOf: this.#runOf });
    const quiz = new QuizPanel({ t, variant: this.#panels?.quiz.variant });
    const exports = new ExportPanel({ t, lang, embedBase: () => this.getAttribute('embed-base') ?? new URL('./', document.baseURI).href,
      view: () => ({ state: this.#state, config: engineConfig(this.#state, lang), tokens: this.#runTokens, run: this.#run }) });

    const walkthrough = el('mha-walkthrough', { lang });
    const heatmap = el('mha-heatmap', { lang, step: this.#state.view, batch: this.#state.batch, head: this.#state.head });
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
      Object.assign(this.#state, { view: event.detail.step, batch: event.detail.batch, head: event.detail.head });
      this.#emitState();
    });

    this.#panels = { controls, lessons, mistakes, quiz, walkthrough, heatmap, shapes, block: blockSource };
    this.#root.replaceChildren(controls.section,
      block('shapes', t('shapes.title'), shapes),
      block('walkthrough', t('wt.title'), blockSource.element, walkthrough),
      block('heatmaps', t('hm.title'), heatmap),
      trained,
      lessons.section, mistakes.section, quiz.section, exports.section);
    const slot = trained.querySelector('slot');
    const showTrained = () => { trained.hidden = slot.assignedElements().length === 0; };
    slot.addEventListener('slotchange', showTrained);
    showTrained();
    controls.show(this.#state);
  }

  #fromControls() {
    this.#panels.controls.read(this.#state);
    this.#compute();
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

  #compute({ force = false } = {}) {
    if (!this.#engine || !this.#panels) return;
    const lang = this.#lang;
    const { controls, walkthrough, heatmap, shapes } = this.#panels;
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
      controls.clearErrors();
      controls.showError(error.field, error.messageIn(lang));
      this.#configKey = null;
      this.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code: error.code, field: error.field, message: error.message } }));
      return; // the last valid run stays on screen
    }
    controls.clearErrors();
    this.#configKey = key;
    this.#run = run;
    this.#runTokens = parseTokens(this.#state.tokens ?? DEFAULT_TOKENS[lang]);
    controls.showRun(run);

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
    if (this.#panels.block.active) this.#panels.block.apply({ walkthrough, heatmap, shapes }); // the trained block instead
    this.#panels.lessons.show(run);
    this.#panels.mistakes.show(run, this.#runTokens);
    this.#panels.quiz.show(run);
    this.dispatchEvent(new CustomEvent('mha-run', { detail: { run, tokens: this.#runTokens } }));
    this.#emitState();
  }

  #emitState() {
    this.dispatchEvent(new CustomEvent('mha-state', { bubbles: true, composed: true, detail: { state: this.state } }));
  }
}
