// <mha-lm>: a character language model that reads what the learner types — each head drawn over
// the text with its job scored, the next character, a stream of generated characters with the KV
// cache, a small model trained from scratch, and what positions do. This file is the element's
// small part, in the widget bundle: it waits until the section comes near the screen (or is
// touched), then starts the model's service (a Web Worker, worker/mha-lm-worker.js) and loads the
// section's drawing code (mha-lm-view.js, a file of its own beside this one and beside the bundle),
// so that a page pays for neither until a reader gets there.
//
// Attributes: corpus ('moby-dick' or 'tang-poems'; by default the reader's language's), text (what
// the section opens reading), lang, theme, wasm-url (the trainer's .wasm), worker ("none": on the
// page's thread), eager (start at once). Properties: corpus, text, ready (resolves once the model
// has read the text), mode; methods blockRun({ layer }) (one layer over the text as a walkthrough
// Run), start(). Events (bubbling, composed): mha-lm-read { text } when the model has read a new
// text, mha-lm-walk { layer } when the reader asks the walkthrough to run this text,
// mha-error { code, field, message }.
import { Run } from '../../engine/run.js';
import { isBackward } from '../../logic/walkthrough/backward-text.js';
import { errorFrom } from '../../worker/protocol.js';
import { startLmSession } from '../../worker/lm-session.js';
import { translator } from '../../text/translate.js';
import { ElementBase, el, langOf } from '../base/dom.js';
import { baseStyles } from '../base/styles.js';
import { followHostScheme, stopFollowingHostScheme } from '../base/theme.js';

const VIEW_URL = new URL('./mha-lm-view.js', import.meta.url);
const CORPORA = ['moby-dick', 'tang-poems'];
const ATTRIBUTES = ['corpus', 'text', 'lang', 'theme', 'wasm-url', 'worker', 'eager'];

/** The corpus a reader of `lang` meets first. */
export const corpusFor = (lang) => (lang === 'zh' ? 'tang-poems' : 'moby-dick');

export class MhaLmElement extends ElementBase {
  static get observedAttributes() { return ATTRIBUTES; }

  #root;
  #session = null;
  #starting = null;
  #view = null;
  #observer = null;
  #corpus = null; // set as a property; else the attribute, else the language's
  #text = null;
  #resolveReady;
  #ready = new Promise((resolve) => { this.#resolveReady = resolve; });

  constructor() {
    super();
    this.#root = this.attachShadow({ mode: 'open' });
    this.#root.adoptedStyleSheets = [baseStyles()];
  }

  connectedCallback() {
    followHostScheme(this);
    if (this.#view) return;
    this.#placeholder();
    if (this.hasAttribute('eager') || typeof IntersectionObserver === 'undefined') {
      this.start();
      return;
    }
    // Inside a playground, its first run lays out what comes above the section: until then the
    // section sits near the top of an empty page and would look near the screen when it is not.
    const playground = this.closest('mha-playground');
    if (playground && !playground.run) playground.addEventListener('mha-run', () => this.#observe(), { once: true });
    else this.#observe();
  }

  // Near the screen (a screen's height ahead) is soon enough: the checkpoint is a megabyte.
  #observe() {
    if (this.#starting || !this.isConnected) return;
    this.#observer?.disconnect();
    this.#observer = new IntersectionObserver((entries) => {
      if (entries.some((entry) => entry.isIntersecting)) this.start();
    }, { rootMargin: '100% 0px' });
    this.#observer.observe(this);
  }

  disconnectedCallback() {
    stopFollowingHostScheme(this);
    queueMicrotask(() => {
      if (this.isConnected) return;
      this.#observer?.disconnect();
      this.#session?.close();
      this.#session = null;
      this.#starting = null;
      this.#view = null;
    });
  }

  attributeChangedCallback(name, oldValue, newValue) {
    if (oldValue === newValue) return;
    if (name === 'lang' || name === 'theme') {
      if (this.#view) this.#view.relabel(this.#t(), this.getAttribute('theme'));
      else if (!this.#starting) this.#placeholder();
      if (name === 'lang' && this.#corpus === null && !this.hasAttribute('corpus')) this.#reopen();
    } else if (name === 'corpus') {
      this.#reopen();
    } else if (name === 'text' && newValue !== null) {
      this.text = newValue;
    } else if (name === 'eager' && newValue !== null) {
      this.start();
    }
  }

  /** 'moby-dick' or 'tang-poems'. */
  get corpus() {
    const chosen = this.#corpus ?? this.getAttribute('corpus');
    return CORPORA.includes(chosen) ? chosen : corpusFor(langOf(this));
  }
  set corpus(value) {
    this.#corpus = CORPORA.includes(value) ? value : null;
    this.#reopen();
  }

  /** The text the model reads (the reader's, typed in the section). */
  get text() { return this.#view?.text ?? this.#text ?? this.getAttribute('text'); }
  set text(value) {
    this.#text = value === null || value === undefined ? null : String(value);
    if (this.#view && this.#text) this.#view.setText(this.#text);
  }

  /** Resolves once the model has opened and read the text (start() first, or wait for the scroll). */
  get ready() { return this.#ready; }
  /** 'worker' or 'page' once started. */
  get mode() { return this.#session?.mode ?? null; }
  /** The model on screen: { corpus, step, context, options, parameterCount } once open. */
  get model() { return this.#view?.model ?? null; }

  /** Starts the model and the drawing now (it starts by itself once the section comes near). */
  start() {
    this.#observer?.disconnect();
    this.#starting ??= this.#begin();
    return this.#starting;
  }

  /** One layer of the model over the text, as a walkthrough Run: { run, tokens, step, layers }. */
  async blockRun({ layer = 0 } = {}) {
    await this.start();
    await this.#ready;
    const text = this.text;
    const answer = await this.#session.request({ type: 'block', layer, text });
    // The forward steps only: the 19 of the walkthrough (the trace also holds a training step's backward).
    const forward = { ...answer.run, steps: answer.run.steps.filter((step) => !isBackward(step)), gradients: null };
    return { run: Run.fromTransfer(forward, this.#session.messages), tokens: answer.window.map((char) => (char === ' ' ? '␣' : char === '\n' ? '⏎' : char)), step: answer.step, layers: answer.layers };
  }

  #t() { return translator(langOf(this)); }

  #placeholder() {
    const t = this.#t();
    const button = el('button', { type: 'button', class: 'lm-start' }, t('lm.start'));
    button.addEventListener('click', () => this.start());
    this.#root.replaceChildren(el('section', { class: 'lm', 'aria-label': t('lm.title') },
      el('p', {}, t('lm.intro')), el('p', { class: 'lm-wait' }, this.#starting ? t('lm.loading') : '', ' ', this.#starting ? '' : button)));
  }

  async #begin() {
    const t = this.#t();
    this.#placeholder();
    this.#root.querySelector('.lm-wait').textContent = t('lm.loading');
    try {
      const [session, view] = await Promise.all([
        startLmSession({ wasmUrl: this.getAttribute('wasm-url'), worker: this.getAttribute('worker') !== 'none' }),
        import(/* @vite-ignore */ VIEW_URL.href)]);
      if (!this.isConnected && this.#session === null && this.#starting === null) {
        session.close();
        return;
      }
      this.#session = session;
      this.#view = view.createLmView({
        root: this.#root, host: this, t: this.#t(), theme: this.getAttribute('theme'), session, text: this.#text ?? this.getAttribute('text'),
        onRead: (text) => {
          this.#resolveReady();
          this.dispatchEvent(new CustomEvent('mha-lm-read', { bubbles: true, composed: true, detail: { text } }));
        },
        onWalk: (layer) => this.dispatchEvent(new CustomEvent('mha-lm-walk', { bubbles: true, composed: true, detail: { layer } })),
        onError: (error) => this.#fail(error),
      });
      session.addEventListener('message', (event) => this.#view?.receive(event.detail));
      this.#view.open(this.corpus);
    } catch (error) {
      this.#fail(error);
    }
  }

  #reopen() {
    if (this.#view && this.#view.corpus !== this.corpus) this.#view.open(this.corpus);
  }

  #fail(error) {
    const shown = errorFrom(error, this.#session?.messages ?? null);
    const lang = langOf(this);
    const message = shown?.messageIn ? shown.messageIn(lang) : String(shown?.message ?? shown);
    if (this.#view) this.#view.showError(message);
    else this.#root.querySelector('.lm-wait').textContent = this.#t()('lm.error', { detail: message });
    this.dispatchEvent(new CustomEvent('mha-error', { bubbles: true, composed: true, detail: { code: shown?.code ?? 'internal', field: shown?.field ?? 'lm', message } }));
  }
}
