// What <mha-walkthrough>, <mha-heatmap> and <mha-shapes> share: where their run comes from (a run
// handed in, their own config run on the page's engine, or another element they follow) and when
// they draw. Every new run, whatever its source, is announced once with `mha-run`.
import { MhaError } from '../../engine/engine.js';
import { attributeProblems } from '../../logic/page/attribute-check.js';
import { reservedHeight } from '../../logic/page/reserve.js';
import { CONFIG_ATTRIBUTES, configFromAttributes, configFromProperty } from '../../logic/config-input.js';
import { PageError } from '../../text/page-error.js';
import { translator } from '../../text/translate.js';
import { ElementBase, el, langOf } from './dom.js';
import { engineLoadError, getEngine } from './page-engine.js';
import { baseStyles } from './styles.js';
import { followHostScheme, stopFollowingHostScheme } from './theme.js';

/** Attributes that make a standalone element recompute. */
export const SOURCE_ATTRIBUTES = [...CONFIG_ATTRIBUTES, 'for'];

/**
 * What <mha-walkthrough>, <mha-heatmap> and <mha-shapes> share: a shadow root with their styles,
 * where their run comes from (a run handed in through `takeRun`, which wins, or a RunSource: their
 * own config or the element named by `for`), and drawing. Source attributes recompute the run;
 * any other attribute redraws once per task. A subclass implements `acceptRun(run, tokens)` (a new
 * run arrived) and `draw()` (paint the shadow root; called only while connected), and may
 * implement `followStep(id)` (the followed element moved to step `id`) and `providesOwnData()`
 * (true while it shows data that needs no run, such as a heatmap's precomputed attention).
 */
export class RunElement extends ElementBase {
  #external = false;
  #seeded = false;
  #source = new RunSource(this, (run, tokens) => this.#accept(run, tokens), { onStep: (id) => this.followStep(id) });
  #renderQueued = false;
  #warned = new Set();

  constructor(styles) {
    super();
    this.attachShadow({ mode: 'open' }).adoptedStyleSheets = [baseStyles(), styles];
  }

  connectedCallback() {
    followHostScheme(this);
    this.checkAttributes();
    this.render();
    if (!this.#external && !this.providesOwnData()) this.#source.refresh();
  }

  disconnectedCallback() {
    this.#source.disconnect();
    stopFollowingHostScheme(this);
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (SOURCE_ATTRIBUTES.includes(name)) {
      if (!this.#external && this.isConnected && !this.providesOwnData()) this.#source.refresh();
      else if (this.providesOwnData()) this.scheduleRender();
    } else {
      this.scheduleRender();
      if (this.run) queueMicrotask(() => this.checkAttributes());
    }
  }

  /**
   * True when the run's weights are seeded (random): set by the element's own config (no
   * `weights`), taken from an element it follows, or set by whoever hands it a run.
   */
  get seeded() { return this.#seeded; }
  set seeded(value) {
    if (this.#seeded === Boolean(value)) return;
    this.#seeded = Boolean(value);
    this.scheduleRender();
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
    this.#accept(run, tokens);
  }

  // Every new run, whatever its source (handed in, its own config, a followed element), is taken
  // and then announced once: elements that follow this one hear `mha-run` once per run.
  #accept(run, tokens) {
    this.acceptRun(run, tokens);
    this.checkAttributes();
    if (run) this.dispatchEvent(new CustomEvent('mha-run', { detail: { run, tokens } }));
  }

  followStep() {}

  /**
   * Warns in the console, once per element and attribute value, about an attribute the element
   * does not take or a value it cannot use (the element then shows its default: logic/
   * attribute-check.js). Not for an element a playground drives: it sets those itself.
   */
  checkAttributes() {
    if (this.#external) return;
    const t = translator(langOf(this));
    const attributes = this.getAttributeNames().map((name) => [name, this.getAttribute(name)]);
    for (const { name, value, accepted, unknown } of attributeProblems(this.localName, attributes, this.run)) {
      const key = `${name}=${value}`;
      if (this.#warned.has(key)) continue;
      this.#warned.add(key);
      console.warn(t(unknown ? 'warn.unknown' : 'warn.attribute', { tag: this.localName, name, value, accepted }));
    }
  }

  /**
   * What an element shows while its run is on its way: "Loading…" in a box as tall as the element
   * will be (logic/page/reserve.js, from the config it will run), so that the page below does not jump
   * when the run arrives.
   */
  placeholder(t) {
    const note = el('p', { class: 'note loading' }, t('page.loading'));
    const height = this.#external ? 0 : this.#reservedHeight();
    if (height > 0) note.style.minHeight = `${height}px`;
    return note;
  }

  #reservedHeight() {
    const forId = this.getAttribute('for');
    const source = forId ? (this.getRootNode().getElementById?.(forId) ?? document.getElementById(forId)) : this;
    if (!source || !this.isConnected) return 0;
    const read = source === this && this.#source.config ? configFromProperty(this.#source.config) : configFromAttributes((name) => source.getAttribute(name));
    const attributes = Object.fromEntries(['step', 'from', 'to', 'only', 'controls'].map((name) => [name, this.getAttribute(name) ?? undefined]));
    const style = getComputedStyle(this);
    const width = this.clientWidth - parseFloat(style.paddingLeft) - parseFloat(style.paddingRight);
    if (!(width > 0)) return 0;
    return reservedHeight(this.localName, { ...read, attributes, width, em: parseFloat(style.fontSize) || 15, lang: langOf(this) });
  }

  /** True while the element shows data that needs no run (it then runs no config of its own). */
  providesOwnData() { return false; }

  /** Runs its own config (or follows `for`) again, after detachSource(). */
  attachSource() {
    this.#external = false;
    if (this.isConnected) this.#source.refresh();
  }

  /** Stops running its own config or following another element (its data comes from elsewhere now). */
  detachSource() {
    this.#external = true;
    this.#source.disconnect();
  }

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
  // A run this element already shows (two elements that follow each other) is not taken again.
  // Also a run it shows with new labels (the same run, other tokens).
  #onRun = (event) => {
    this.#host.seeded = Boolean(this.#followed?.seeded);
    if (event.detail.run !== this.#host.run || event.detail.tokens !== this.#host.labels) this.#apply(event.detail.run, event.detail.tokens);
  };
  #onStep = (event) => this.#step?.(event.detail.step);
  // The followed element failed (its engine did not load, its config was refused): this one shows
  // the same message instead of "Loading…" forever, without an mha-error of its own (the failure
  // is the followed element's, which fired one).
  #onError = (event) => {
    if (event.target !== this.#followed) return;
    const error = shownErrors.get(this.#followed);
    if (error) showElementError(this.#host, error, { keep: Boolean(this.#host.run), announce: false });
  };
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
      target.addEventListener('mha-error', this.#onError);
      host.seeded = Boolean(target.seeded);
      if (target.run) this.#apply(target.run, target.labels);
      else if (shownErrors.has(target)) showElementError(host, shownErrors.get(target), { announce: false });
      return undefined;
    }
    const { config, tokens } = this.config ? configFromProperty(this.config) : configFromAttributes((name) => host.getAttribute(name));
    // T is the number of tokens: a t that says otherwise cannot both hold.
    const t = this.config ? null : host.getAttribute('t');
    if (t !== null && host.hasAttribute('tokens') && tokens.length > 0 && Number(t) !== tokens.length) {
      this.#ticket++;
      return this.#error(new PageError({ code: 'bad_value', field: 't', key: 'error.t_tokens', params: { t, n: tokens.length } }));
    }
    const ticket = ++this.#ticket;
    let engine;
    try {
      engine = await getEngine({ wasmUrl: host.getAttribute('wasm-url') });
    } catch (error) {
      // Several attributes set at once (an upgrade, a framework's props) each asked for a run:
      // only the newest says that the engine did not load, so the element fires one mha-error.
      if (ticket !== this.#ticket) return undefined;
      return this.#error(engineLoadError(error));
    }
    if (ticket !== this.#ticket) return undefined; // a newer config arrived while the engine loaded
    let run;
    try {
      run = engine.run(config);
    } catch (error) {
      if (!(error instanceof MhaError)) throw error;
      return this.#error(error);
    }
    this.#host.shadowRoot.querySelector(':scope > .element-error')?.remove();
    shownErrors.delete(this.#host);
    this.#host.seeded = config.weights === undefined || config.weights === null;
    this.#apply(run, tokens);
    return undefined;
  }

  disconnect() {
    this.#unfollow();
    this.#ticket++;
  }

  #unfollow() {
    this.#followed?.removeEventListener('mha-run', this.#onRun);
    this.#followed?.removeEventListener('mha-step', this.#onStep);
    this.#followed?.removeEventListener('mha-error', this.#onError);
    this.#followed = null;
  }

  #error(error) {
    showElementError(this.#host, error, { keep: Boolean(this.#host.run) });
  }
}

// The error each element shows now (its followers show it too).
const shownErrors = new WeakMap();

/**
 * Shows `error` (an MhaError or PageError) at the top of `host`'s shadow root, in the element's
 * language, and fires `mha-error` (unless `announce` is false: a follower showing the failure of
 * the element it follows). `keep`: what the element shows stays below the message.
 */
export function showElementError(host, error, { keep = false, announce = true } = {}) {
  const { code, field, message } = error;
  shownErrors.set(host, error);
  const root = host.shadowRoot;
  root.querySelector(':scope > .element-error')?.remove();
  if (!keep) root.replaceChildren(); // nothing to keep: the message replaces "loading"
  root.prepend(el('p', { class: 'error element-error', role: 'alert', 'data-field': field }, error.messageIn(langOf(host))));
  if (!announce) return;
  host.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code, field, message } }));
}
