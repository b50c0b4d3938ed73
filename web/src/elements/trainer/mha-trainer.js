// <mha-trainer>: a tiny transformer trained on the page, and its heads finding their jobs. Controls
// (task, Train / Pause / Step / Reset, learning rate, dropout, layers, heads, seed), the loss and
// accuracy curves, every layer's heads as heatmaps over a probe the learner types, each labelled
// with its measured job score, the predictions with the wrong ones marked, step 0 beside now, and
// the maps one training step sees through dropout. Training runs in a Web Worker
// (worker/session.js), on the page's own thread only when no worker can start.
//
// Attributes (small options): task, layers, heads, lr, dropout, seed, probe, trained (open from
// the task's committed checkpoint when the options are its own), compare, lang, theme, controls,
// wasm-url (the trainer's .wasm), worker ("none": train on the page's thread). Properties (data):
// options, state, probe, compare; step, running, mode, task, headScores, losses; methods train(),
// pause(), trainStep(), reset(), blockRun({ layer }). Events (bubbling, composed): mha-train-step
// { step, loss, accuracy } per chunk of steps, mha-train-done { step, loss, accuracy, evaluation },
// mha-train-view { step } when the heads are redrawn, mha-train-state { state } when the learner
// changes an option, the probe or the view, and mha-error { code, field, message }.
import { errorFrom } from '../../worker/protocol.js';
import { Run } from '../../engine/run.js';
import { isBackward } from '../../logic/walkthrough/backward-text.js';
import { TrainingHistory } from '../../logic/training/curves.js';
import { PRESETS, checkpointFor, defaultOptions, engineOptions, readOptions, sameModel } from '../../logic/training/options.js';
import { exampleProbe, probeText } from '../../logic/training/probe.js';
import { formatCount } from '../../logic/format.js';
import { translator } from '../../text/translate.js';
import { ElementBase, el, langOf } from '../base/dom.js';
import { installProperties } from '../base/properties.js';
import { baseStyles } from '../base/styles.js';
import { followHostScheme, stopFollowingHostScheme } from '../base/theme.js';
import { ControlsPanel } from './controls.js';
import { CurvesPanel } from './curves.js';
import { HeadsPanel, optionText } from './heads.js';
import { ProbePanel } from './probe.js';
import { TrainerSession } from '../../worker/session.js';
import { checkpointUrl } from '../../engine/assets.js';
import { TRAINER_STYLES } from './styles.js';

const OPTION_ATTRIBUTES = ['task', 'layers', 'heads', 'lr', 'dropout', 'seed'];

// A checkpoint's recorded curves as the history the section continues.
function historyOf(entry) {
  const history = TrainingHistory.fromCurve(entry.loss);
  entry.batchAccuracy.points.forEach((value, i) => history.accuracy.push({ step: Math.min((i + 1) * entry.batchAccuracy.every, entry.steps), value }));
  return history;
}

export class MhaTrainerElement extends ElementBase {
  #root;
  #session = null;
  #starting = null; // Promise<TrainerSession | null>
  #options = defaultOptions();
  #fromProperty = false; // options set as a property win over the attributes
  #probe = null; // the tokens in use
  #pendingProbe = null; // probe text to check once the task is known
  #compare = false;
  #info = null; // the service's 'opened': { task, options, parameterCount, fromCheckpoint }
  #entry = null; // the checkpoint it opened from
  #step = 0;
  #target = 0;
  #running = false;
  #history = new TrainingHistory();
  #last = { loss: null, accuracy: null };
  #view = null;
  #done = null;
  #panels = null;
  #error = null;
  #dirty = new Set();
  #frame = 0;
  #warned = new Set();
  #opened = null; // resolves when the first model is open

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [baseStyles(), TRAINER_STYLES];
    this.#opened = new Promise((resolve) => { this.#resolveOpened = resolve; });
  }

  #resolveOpened;

  connectedCallback() {
    followHostScheme(this);
    if (!this.#fromProperty) this.#readAttributes();
    this.#compare = this.#compare || this.hasAttribute('compare');
    this.#build();
    if (!this.#starting) this.#start();
  }

  disconnectedCallback() {
    stopFollowingHostScheme(this);
    // Moved within the page in one task: keep training. Gone: stop the worker.
    queueMicrotask(() => { if (!this.isConnected) this.#close(); });
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue || !this.#panels) return;
    if (name === 'lang' || name === 'theme' || name === 'controls') {
      this.#build();
      this.#schedule('all');
    } else if (name === 'compare') {
      this.compare = this.hasAttribute('compare');
    } else if (name === 'probe') {
      this.probe = newValue ?? '';
    } else if (OPTION_ATTRIBUTES.includes(name)) {
      this.#fromProperty = false;
      this.#readAttributes();
      this.#apply(this.#options, { fromAttributes: true });
    }
  }

  // --- Properties ---------------------------------------------------------------------------

  /** { task, layers, heads, lr, dropout, seed }: setting them trains on with the new lr and dropout, or makes a new model. */
  get options() { return { ...this.#options }; }
  set options(options) {
    const { options: read, rejected } = readOptions((name) => (options?.[name] === undefined ? (this.#options[name] ?? null) : options[name]));
    this.#warn(rejected);
    this.#fromProperty = true;
    this.#apply(read);
  }

  /** What the URL keeps: { options, probe (text, or null for the task's example), compare }. */
  get state() {
    return { options: this.options, probe: this.#probeIsExample() ? null : probeText(this.#probe ?? []), compare: this.#compare };
  }

  set state({ options, probe = null, compare = false } = {}) {
    this.#compare = Boolean(compare);
    this.#pendingProbe = probe;
    if (options) this.options = options;
    else if (this.#info) this.probe = probe ?? '';
  }

  /** The probe's tokens (numbers); set an array or text ("3 1 4 1 5 …"). */
  get probe() { return this.#probe ? [...this.#probe] : null; }
  set probe(value) {
    let text;
    try { text = Array.isArray(value) ? value.join(' ') : String(value ?? ''); } catch { text = '?'; }
    // Reflected, as every attribute's property is (an empty probe: the task's example, no attribute).
    if (text.trim() === '') this.removeAttribute('probe');
    else if (this.getAttribute('probe') !== text) this.setAttribute('probe', text);
    if (!this.#info) {
      this.#pendingProbe = text;
      return;
    }
    this.#pendingProbe = null;
    this.#useProbeText(text);
  }

  /** Random vs trained: each head at step 0 beside now. */
  get compare() { return this.#compare; }
  set compare(on) {
    this.#compare = on === '' || Boolean(on); // '' as the bare attribute's text means on
    if (this.hasAttribute('compare') !== this.#compare) this.toggleAttribute('compare', this.#compare);
    this.#session?.send({ type: 'compare', on: this.#compare });
    this.#schedule('controls');
    this.#emitState();
  }

  /** Training steps taken by the model on screen. */
  get step() { return this.#step; }
  /** True while training runs. */
  get running() { return this.#running; }
  /** 'worker' or 'page' (the page's own thread), once started; null before. */
  get mode() { return this.#session?.mode ?? null; }
  /** The task as the engine describes it: { name, T, vocab, causal, steps, job, jobTarget }. */
  get taskInfo() { return this.#info ? { ...this.#info.task } : null; }
  /** The last measured head scores: [{ layer, head, jobs, score }]. */
  get headScores() { return this.#view?.scores.map((s) => ({ ...s, score: s.jobs[this.#info.task.job] })) ?? null; }
  /** Every step's training loss since the model opened (a checkpoint's: one mean per bucket of steps). */
  get losses() { return [...this.#history.losses]; }
  /** Resolves once the first model is open and drawn. */
  get ready() { return this.#opened; }

  // --- Actions ------------------------------------------------------------------------------

  /** Trains until the preset's step count (or as many again when already there); fires mha-train-done. */
  train() {
    if (!this.#info || this.#running) return;
    const length = PRESETS[this.#options.task].steps;
    this.#target = this.#step < length ? length : this.#step + length;
    this.#running = true;
    this.#done = null;
    this.#session.send({ type: 'train', until: this.#target });
    this.#schedule('controls', 'status');
  }

  pause() {
    if (!this.#running) return;
    this.#session.send({ type: 'pause' });
  }

  /** One training step, then every map redrawn (with dropout on: the maps that step used). */
  trainStep() {
    if (!this.#info) return;
    this.#running = false;
    this.#session.send({ type: 'step' });
  }

  /** Back to step 0 with the same options: a new model, near-uniform heads. */
  reset() {
    if (!this.#info) {
      this.#open();  // nothing opened yet (it failed): open again
      return;
    }
    this.#running = false;
    this.#history = new TrainingHistory();
    this.#last = { loss: null, accuracy: null };
    this.#entry = null;
    this.#done = null;
    this.#session.send({ type: 'reset' });
  }

  /**
   * One layer's attention block of the model on screen, over the probe, as a walkthrough Run: its
   * input X (after LayerNorm), trained weights and mask; with `backward`, the steps continue after
   * `output` with the gradient of this step's loss on the probe (the d_ steps). Resolves to
   * { run, tokens, step, layers }.
   */
  async blockRun({ layer = 0, backward = false } = {}) {
    await this.#opened;
    const answer = await this.#session.request({ type: 'block', layer, tokens: this.#probe });
    const transferred = answer.run;
    // Without `backward`, the forward steps only (the trace holds both).
    const run = Run.fromTransfer(backward ? transferred : { ...transferred, steps: transferred.steps.filter((step) => !isBackward(step)), gradients: null },
      this.#session.messages);
    return { run, tokens: [...this.#probe], step: answer.step, layers: this.#info.options.layers };
  }

  // --- Starting, opening, messages -----------------------------------------------------------

  #readAttributes() {
    const { options, rejected } = readOptions((name) => this.getAttribute(name));
    this.#warn(rejected);
    this.#options = options;
    if (this.hasAttribute('probe') && !this.#info) this.#pendingProbe = this.getAttribute('probe');
  }

  // A value the section does not offer: named once in the console with what it takes.
  #warn(rejected) {
    const t = translator(langOf(this));
    for (const { name, value, accepted } of rejected) {
      if (this.#warned.has(`${name}=${value}`)) continue;
      this.#warned.add(`${name}=${value}`);
      console.warn(t('warn.attribute', { tag: this.localName, name, value, accepted }));
    }
  }

  #start() {
    const session = new TrainerSession();
    this.#starting = session.start({ wasmUrl: this.getAttribute('wasm-url'), worker: this.getAttribute('worker') !== 'none' }).then(() => {
      this.#session = session;
      session.addEventListener('message', (event) => this.#receive(event.detail));
      this.#open();
      this.#schedule('where');
      return session;
    }, (error) => {
      this.#fail(error);
      return null;
    });
  }

  #close() {
    this.#session?.close();
    this.#session = null;
    this.#starting = null;
    this.#info = null;
    this.#running = false;
  }

  // Options from the controls, a property or the attributes: lr and dropout go to the model on
  // screen; anything else makes a new one (from its checkpoint when `trained` and it has one).
  #apply(options, { fromAttributes = false } = {}) {
    const before = this.#options;
    this.#options = { ...options };
    if (!this.#info) {
      // No model open yet (its opening failed): these options are another try.
      if (this.#session && !fromAttributes) this.#open();
      return;
    }
    if (sameModel(before, options)) {
      if (before.lr !== options.lr || before.dropout !== options.dropout) this.#session.send({ type: 'configure', training: { lr: options.lr, dropout: options.dropout } });
    } else {
      if (before.task !== options.task) {
        this.#probe = null;
        this.#pendingProbe = null;
      }
      this.#open();
    }
    this.#schedule('controls');
    if (!fromAttributes) this.#emitState();
  }

  #open() {
    const session = this.#session;
    if (!session) return;
    const options = this.#options;
    const entry = this.hasAttribute('trained') ? checkpointFor(options) : null;
    this.#entry = entry;
    this.#history = entry ? historyOf(entry) : new TrainingHistory();
    this.#last = entry ? { loss: entry.loss.points.at(-1), accuracy: entry.batchAccuracy.points.at(-1) } : { loss: null, accuracy: null };
    this.#running = false;
    this.#done = null;
    const text = this.#pendingProbe ?? (this.#probe ? probeText(this.#probe) : null);
    session.send({
      type: 'open',
      options: engineOptions(options),
      checkpoint: entry ? { url: session.givenWasmUrl ? new URL(`./checkpoints/${entry.file}`, session.wasmUrl).href : checkpointUrl(entry.file) } : null,
      training: { lr: options.lr, dropout: options.dropout },
      probeText: text,
      redrawEvery: PRESETS[options.task].redraw,
      compare: this.#compare,
    });
  }

  #receive(message) {
    switch (message.type) {
      case 'opened': {
        this.#info = message;
        this.#step = message.step;
        this.#target = Math.max(PRESETS[this.#options.task].steps, message.step);
        this.#probe = message.probe;
        this.#pendingProbe = null;
        this.#error = null;
        if (!message.fromCheckpoint) this.#entry = null;
        if (message.checkpointError) this.#fail(message.checkpointError);  // opened from step 0 instead
        this.#panels.probe.show(message.task, message.probe, message.probeError);
        this.#schedule('all');
        break;
      }
      case 'progress':
        this.#step = message.step;
        this.#running = message.running;
        this.#last = { loss: message.loss, accuracy: message.accuracy };
        this.#history.append(message);
        this.#schedule('status', 'curves');
        this.dispatchEvent(new CustomEvent('mha-train-step', { bubbles: true, composed: true, detail: { step: message.step, loss: message.loss, accuracy: message.accuracy } }));
        break;
      case 'view':
        this.#view = message;
        this.#step = message.step;
        this.#schedule('view');
        this.#resolveOpened?.();
        this.dispatchEvent(new CustomEvent('mha-train-view', { bubbles: true, composed: true, detail: { step: message.step } }));
        break;
      case 'paused':
        this.#running = false;
        this.#schedule('controls', 'status', 'announce');
        this.#emitState();
        break;
      case 'done':
        this.#running = false;
        this.#done = message.evaluation;
        this.#schedule('controls', 'status', 'announce');
        this.dispatchEvent(new CustomEvent('mha-train-done', { bubbles: true, composed: true,
          detail: { step: message.step, loss: this.#last.loss, accuracy: message.evaluation.accuracy, evaluation: message.evaluation } }));
        this.#emitState();
        break;
      case 'probe': // "another example"
        this.#probe = message.tokens;
        this.#panels.probe.show(this.#info.task, message.tokens, null);
        this.#emitState();
        break;
      case 'error':
        this.#fail(message.error);
        break;
      default:
        break;
    }
  }

  // The probe as typed or set: sent when it reads as T tokens of this task, else its error shown.
  #useProbeText(text) {
    this.#panels.probe.input.value = text;
    this.#panels.probe.input.dispatchEvent(new Event('input'));
  }

  #onProbe(tokens) {
    this.#probe = tokens;
    this.#session?.send({ type: 'probe', tokens });
    this.#emitState();
  }

  // The probe a task opens with (its first example) is left out of the state, and so of the URL.
  #probeIsExample() {
    return !this.#probe || !this.#info || probeText(this.#probe) === probeText(exampleProbe(this.#info.task.name, this.#info.task));
  }

  // An error as the service sends it (plain data) or as thrown here, in the reader's language.
  #fail(error) {
    this.#running = false;
    const shown = errorFrom(error, this.#session?.messages ?? null);
    this.#error = shown;
    this.#schedule('all');
    const message = shown?.message ?? String(shown);
    this.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code: shown?.code ?? 'internal', field: shown?.field ?? 'trainer', message } }));
  }

  #emitState() {
    this.dispatchEvent(new CustomEvent('mha-train-state', { bubbles: true, composed: true, detail: { state: this.state } }));
  }

  // --- Drawing ------------------------------------------------------------------------------

  #build() {
    const lang = langOf(this);
    const t = translator(lang);
    // A new task brings its own model (layers, heads, learning rate: logic/training/options.js
    // PRESETS), which is also the one its checkpoint opens trained; another task's model may never
    // find this task's job (induction's 2 layers at lr 3e-3 never sharpen sort's answer head).
    const choose = (name, value) => (name === 'task' ? { ...defaultOptions(value), dropout: this.#options.dropout } : { ...this.#options, [name]: value });
    const controls = new ControlsPanel({ t, onChange: (name, value) => this.#apply(choose(name, value)), onAction: (action) => this.#action(action) });
    const curves = new CurvesPanel(t);
    const probe = new ProbePanel({ t, onProbe: (tokens) => this.#onProbe(tokens), onExample: () => this.#session?.send({ type: 'example' }) });
    const heads = new HeadsPanel({ t, lang, theme: this.getAttribute('theme') });
    const compare = el('input', { type: 'checkbox', id: 'tr-compare', name: 'compare' });
    compare.addEventListener('change', () => { this.compare = compare.checked; });
    const texts = {
      status: el('p', { class: 'status' }),
      announce: el('p', { class: 'visually-hidden', role: 'status', 'aria-live': 'polite' }),
      where: el('p', { class: 'where' }),
      opened: el('p', { class: 'note' }),
      what: el('p', { class: 'note lesson' }),
      error: el('p', { class: 'error', role: 'alert' }),
      redraw: el('p', { class: 'note' }),
      compareNote: el('p', { class: 'note', hidden: true }, t('tr.compare.note')),
      dropout: el('p', { class: 'note lesson' }),
    };
    this.#panels = { t, lang, controls, curves, probe, heads, compare, texts };
    this.#root.replaceChildren(el('section', { class: 'trainer', 'aria-label': t('tr.label') },
      el('p', { class: 'intro' }, t('tr.intro')),
      controls.element,
      texts.status, texts.announce, texts.where, texts.error, texts.opened, texts.what,
      // The curves beside the heads, so that both are in view while training; the probe's
      // predictions below them, as wide as the section (a 24-token probe fits at 1280 px).
      el('div', { class: 'panel-row curves-heads' }, curves.element,
        el('div', { class: 'card heads-card' },
          el('h3', {}, t('tr.heads.title')),
          el('label', { class: 'check', 'data-control': '' }, compare, t('tr.compare')),
          texts.compareNote, texts.redraw,
          el('p', { class: 'note' }, t('tr.heads.scoreNote')),
          el('p', { class: 'note scale-note' }, t('tr.heads.scaleNote')),
          heads.element,
          texts.dropout)),
      probe.element,
      el('p', { class: 'note lesson' }, t('tr.tokensMatter'))));
    if (this.#info) probe.show(this.#info.task, this.#probe ?? [], null);
    this.#view && this.#schedule('view');
  }

  #action(action) {
    if (action === 'train') this.train();
    else if (action === 'pause') this.pause();
    else if (action === 'step') this.trainStep();
    else if (action === 'reset') this.reset();
  }

  // Drawing waits for the next frame and then does what changed since the last one, however many
  // messages arrived: a frame's work stays small while the worker trains.
  #schedule(...parts) {
    for (const part of parts) this.#dirty.add(part);
    if (this.#frame || !this.isConnected) return;
    this.#frame = requestAnimationFrame(() => {
      this.#frame = 0;
      const dirty = new Set(this.#dirty);
      this.#dirty.clear();
      this.#draw(dirty);
    });
  }

  #draw(dirty) {
    if (!this.#panels) return;
    const all = dirty.has('all');
    const { t, controls, curves, probe, heads, compare, texts } = this.#panels;
    const info = this.#info;
    if (all || dirty.has('controls')) {
      // An error leaves the model on screen usable: Reset and new options are the way out of it.
      controls.show(this.#options, { running: this.#running, ready: Boolean(info) });
      compare.checked = this.#compare;
      texts.compareNote.hidden = !this.#compare;
    }
    if (all || dirty.has('status') || dirty.has('announce')) {
      const status = this.#statusText(t);
      texts.status.textContent = status;
      if (dirty.has('announce')) texts.announce.textContent = status;
    }
    if (all || dirty.has('where')) {
      const mode = this.#session?.mode;
      texts.where.textContent = !mode ? t('tr.loading') : mode === 'worker' ? t('tr.where.worker') : t(`tr.where.${this.#session.fallback ?? 'refused'}`);
      texts.where.className = mode === 'page' ? 'where fallback' : 'where';
      texts.where.setAttribute('data-mode', mode ?? 'loading');
    }
    if (all) {
      texts.error.textContent = this.#error ? t('tr.error', { detail: this.#error.messageIn ? this.#error.messageIn(this.#panels.lang) : String(this.#error.message ?? this.#error) }) : '';
      const entry = this.#entry;
      texts.opened.textContent = !info ? '' : entry
        ? t('tr.opened.checkpoint', { steps: entry.steps, seed: entry.options.seed, kb: (entry.bytes / 1000).toFixed(1) })
        : `${t('tr.opened.scratch')} ${t('tr.params', { n: formatCount(info.parameterCount) })}.`;
      texts.what.textContent = t(`tr.what.${this.#options.task}`);
      texts.redraw.textContent = t('tr.heads.redraw', { n: PRESETS[this.#options.task].redraw });
    }
    if (all || dirty.has('curves') || dirty.has('status')) curves.draw(this.#history, { step: this.#step, target: this.#target });
    if ((all || dirty.has('view')) && this.#view && info) {
      const view = this.#view;
      heads.draw(view, { tokens: this.#probe ?? [], job: info.task.job, messages: this.#session?.messages });
      probe.predictions(this.#probe ?? [], view.predicted);
      const p = view.dropout;
      texts.dropout.textContent = p > 0 ? t('tr.dropout.note', { p: optionText(p), scale: (1 / (1 - p)).toFixed(2) }) : t('tr.dropout.off');
    }
  }

  #statusText(t) {
    if (!this.#info) return '';
    if (this.#done) return t('tr.done', { steps: this.#step, n: this.#done.sequences, accuracy: `${(this.#done.accuracy * 100).toFixed(1)}%` });
    if (this.#step === 0) return t('tr.statusStart', { target: this.#target });
    const { loss, accuracy } = this.#last;
    return t('tr.status', { step: this.#step, target: this.#target, loss: loss === null ? '–' : loss.toFixed(4), accuracy: accuracy === null ? '–' : `${(accuracy * 100).toFixed(1)}%` });
  }
}

installProperties(MhaTrainerElement, 'mha-trainer');
