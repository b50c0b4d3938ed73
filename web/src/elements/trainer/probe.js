// The trainer's probe (the sequence its heads and predictions are shown on, typed by the learner)
// and the predictions under it, with the wrong ones marked in colour, by a cross and in words.
import { parseProbe, predictionMarks, probeText } from '../../logic/training/probe.js';
import { el } from '../base/dom.js';

export class ProbePanel {
  #task = null;
  #onProbe;
  #onExample;

  /** `onProbe(tokens)`: a valid probe was typed; `onExample()`: "another example" was pressed. */
  constructor({ t, onProbe, onExample }) {
    this.t = t;
    this.#onProbe = onProbe;
    this.#onExample = onExample;
    this.label = el('label', { for: 'tr-probe' });
    this.input = el('input', { id: 'tr-probe', name: 'probe', type: 'text', autocomplete: 'off', spellcheck: 'false', inputmode: 'numeric', 'aria-describedby': 'tr-probe-error tr-probe-hint' });
    this.error = el('p', { class: 'error', id: 'tr-probe-error', role: 'alert' });
    const example = el('button', { type: 'button', 'data-action': 'example' }, t('tr.probe.example'));
    example.addEventListener('click', () => this.#onExample());
    this.input.addEventListener('input', () => this.#read());
    this.table = el('div', { class: 'predictions' });
    this.summary = el('p', { class: 'hint', 'aria-live': 'polite' });
    this.element = el('div', { class: 'card probe' },
      el('h3', {}, t('tr.predictions')),
      this.label, el('div', { class: 'probe-row' }, this.input, example),
      el('p', { class: 'hint', id: 'tr-probe-hint' }, t('tr.probe.hint')), this.error,
      this.table, this.summary);
  }

  /** The task ({ name, T, vocab }) and the probe now in use (shown unless the learner is typing). */
  show(task, tokens, error = null) {
    this.#task = task;
    this.label.textContent = this.t('tr.probe', { T: task.T, max: task.vocab - 1 });
    if (this.input.getRootNode().activeElement !== this.input) this.input.value = probeText(tokens);
    this.#showError(error);
  }

  #read() {
    if (!this.#task) return;
    const read = parseProbe(this.input.value, this.#task);
    this.#showError(read.error);
    if (read.tokens) this.#onProbe(read.tokens);
  }

  #showError(error) {
    this.error.textContent = error ? this.t(error.key, error.params) : '';
    this.input.setAttribute('aria-invalid', String(Boolean(error)));
  }

  /** The predictions for `tokens`: each position's token, target and prediction. */
  predictions(tokens, predicted) {
    const { t } = this;
    const { marks, scored, wrong } = predictionMarks(this.#task.name, tokens, predicted);
    const cell = (mark) => {
      if (!mark.scored) return el('td', { class: 'none', title: t('tr.predictions.none') }, '·');
      if (mark.right) return el('td', {}, String(mark.predicted));
      return el('td', { class: 'wrong', title: t('tr.predictions.wrong') }, `✗${mark.predicted}`, el('span', { class: 'visually-hidden' }, ` (${t('tr.predictions.wrong')})`));
    };
    this.table.replaceChildren(el('table', {},
      el('tr', {}, el('th', { scope: 'row' }, t('tr.predictions.position')), tokens.map((_, i) => el('th', { scope: 'col' }, String(i)))),
      el('tr', {}, el('th', { scope: 'row' }, t('tr.predictions.token')), tokens.map((token) => el('td', {}, String(token)))),
      el('tr', {}, el('th', { scope: 'row' }, t('tr.predictions.target')), marks.map((mark) => el('td', { class: mark.scored ? null : 'none' }, mark.scored ? String(mark.target) : '·'))),
      el('tr', { 'data-row': 'predicted' }, el('th', { scope: 'row' }, t('tr.predictions.predicted')), marks.map(cell))));
    this.summary.textContent = t('tr.predictions.summary', { wrong, scored });
  }
}
