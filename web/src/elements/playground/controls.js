// The playground's controls: one field per config field (tokens, B, C, H, Hkv, Tk, mask, padding,
// bias, seed), each with its hint and an error slot where the engine's message for that field
// appears; a general error slot; a summary line and the run's warnings. The state holds the text
// as typed; the engine judges it (logic/page/page-state.js turns it into a config).
import { DEFAULT_TOKENS } from '../../logic/page/page-state.js';
import { hiddenAxisMistakes } from '../../logic/lessons/mistakes.js';
import { headSharing } from '../../catalogue/steps.js';
import { el } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

// Controls in the order they appear: the engine's field each one's errors are about, and the
// state key it sets.
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

export const CONTROLS_STYLES = sheet(`
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
.summary-line.stale { opacity: 0.55; text-decoration: line-through; }
.examples { margin-top: 0.6em; }
.error button { display: block; margin-top: 0.3em; font-size: 0.95em; color: var(--fg); }
.tokens-notice:empty { display: none; }
.tokens-notice { font-size: 0.85em; color: #8a5a00; margin: 0.2em 0 0; }
`);

function control({ field, key, type, min, options, placeholder, wide }, t) {
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

export class ControlsPanel {
  #form;
  #t;
  #lang;

  /**
   * `onChange()` hears every edit; `onDistinct()` loads the all-sizes-different example; `extra`
   * (the import panel) goes at the end of the section.
   */
  constructor({ t, lang, onChange, onDistinct, extra }) {
    this.#t = t;
    this.#lang = lang;
    this.#form = el('form', { class: 'controls', 'aria-label': t('ctl.label') }, CONTROLS.map((c) => control(c, t)));
    this.#form.addEventListener('submit', (event) => event.preventDefault());
    this.#form.addEventListener('input', onChange);
    this.#form.addEventListener('change', onChange);
    // A notice about the tokens (a link that held only some of them) under the tokens box.
    this.#form.querySelector('#hint-tokens').after(el('p', { class: 'tokens-notice', 'aria-live': 'polite' }));
    const distinct = el('button', { type: 'button', 'data-action': 'distinct' }, t('ctl.distinct'));
    distinct.addEventListener('click', onDistinct);
    this.section = block('controls', t('ctl.title'), this.#form,
      el('p', { class: 'error general-error', id: 'error-config', role: 'alert' }),
      el('p', { class: 'summary-line' }), el('ul', { class: 'warnings', 'aria-live': 'polite' }),
      el('div', { class: 'examples' }, distinct), extra);
  }

  /** A notice under the tokens box ('' to clear it). */
  noteTokens(text) {
    this.section.querySelector('.tokens-notice').textContent = text;
  }

  /** Marks the summary line as showing the last valid run, not the controls' config. */
  markStale(stale) {
    this.section.querySelector('.summary-line').classList.toggle('stale', stale);
  }

  /** Shows `state` in the controls (tokens: the language's sentence until the reader types). */
  show(state) {
    const values = { ...state, tokens: state.tokens ?? DEFAULT_TOKENS[this.#lang] };
    for (const { key, type } of CONTROLS) {
      const input = this.#form.elements.namedItem(key);
      if (type === 'checkbox') input.checked = Boolean(values.bias);
      else input.value = values[key] ?? '';
    }
  }

  /** What the controls hold, into `state`. */
  read(state) {
    for (const { key, type } of CONTROLS) {
      const input = this.#form.elements.namedItem(key);
      state[key] = type === 'checkbox' ? input.checked : input.value;
    }
    if (state.tokens === DEFAULT_TOKENS[this.#lang]) state.tokens = null; // keep following the language
    for (const key of ['Tk', 'Hkv']) if (state[key] === '') state[key] = null;
  }

  /**
   * `message` in the error slot of `field` (the general one if no control sets it); `action`
   * ({ text, run }) adds a button after it (the step where the error would happen).
   */
  showError(field, message, action) {
    const slot = this.section.querySelector(`#error-${CSS.escape(field)}`) ?? this.section.querySelector('#error-config');
    slot.textContent = message;
    if (action) {
      const button = el('button', { type: 'button', 'data-action': 'see-step' }, action.text);
      button.addEventListener('click', action.run);
      slot.append(button);
    }
    this.section.querySelector(`[aria-describedby^="${slot.id} "]`)?.setAttribute('aria-invalid', 'true');
  }

  clearErrors() {
    this.section.querySelectorAll('p.error').forEach((slot) => { slot.textContent = ''; });
    this.section.querySelectorAll('[aria-invalid]').forEach((input) => input.removeAttribute('aria-invalid'));
  }

  /** The run's summary line and warnings: the engine's own, then sizes equal enough to hide a mistake. */
  showRun(run) {
    const t = this.#t;
    const { summary } = run;
    this.section.querySelector('.summary-line').textContent = t('ctl.summary', { T: summary.T, D: summary.D, kind: t(summary.cross ? 'cli.cross' : 'cli.self'), heads: headSharing(summary) });
    this.section.querySelector('.warnings').replaceChildren(...run.warnings.map((warning) => el('li', {}, warning.messageIn(this.#lang))),
      ...hiddenAxisMistakes(summary).map(({ axes, size, key }) => el('li', { 'data-warning': key }, t(key, { a: axes[0], b: axes[1], n: size }))));
  }
}
