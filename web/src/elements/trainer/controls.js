// The trainer's controls: the task, Train / Pause / Step / Reset, and the options within the
// ranges the section offers (logic/training/options.js), each a labelled native control.
import { RANGES, SEED_MAX, TASKS } from '../../logic/training/options.js';
import { el } from '../base/dom.js';

const field = (name, label, input) => el('div', { class: 'tr-field' }, el('label', { for: `tr-${name}` }, label), input);

export class ControlsPanel {
  #onChange;
  #onAction;

  /** `onChange(name, value)`: an option changed; `onAction(name)`: train, pause, step or reset. */
  constructor({ t, onChange, onAction }) {
    this.t = t;
    this.#onChange = onChange;
    this.#onAction = onAction;
    const select = (name, values, text = String) => {
      const input = el('select', { id: `tr-${name}`, name }, values.map((value) => el('option', { value: String(value) }, text(value))));
      input.addEventListener('change', () => this.#onChange(name, name === 'task' ? input.value : Number(input.value)));
      return input;
    };
    this.inputs = {
      task: select('task', TASKS, (task) => t(`tr.task.${task}`)),
      lr: select('lr', RANGES.lr),
      dropout: select('dropout', RANGES.dropout),
      layers: select('layers', RANGES.layers),
      heads: select('heads', RANGES.heads),
      seed: el('input', { id: 'tr-seed', name: 'seed', type: 'number', min: 0, max: SEED_MAX, step: 1, inputmode: 'numeric', autocomplete: 'off' }),
    };
    this.inputs.seed.addEventListener('change', () => {
      const value = Number(this.inputs.seed.value);
      if (Number.isInteger(value) && value >= 0 && value <= SEED_MAX) this.#onChange('seed', value);
    });
    const button = (action, text, extra = {}) => {
      const b = el('button', { type: 'button', 'data-action': action, ...extra }, text);
      b.addEventListener('click', () => this.#onAction(action));
      return b;
    };
    this.buttons = {
      train: button('train', `▶ ${t('tr.train')}`, { class: 'primary' }),
      pause: button('pause', t('tr.pause')),
      step: button('step', t('tr.step')),
      reset: button('reset', `↺ ${t('tr.reset')}`),
    };
    this.element = el('form', { class: 'tr-controls', 'aria-label': t('tr.label'), 'data-control': '' },
      field('task', t('tr.task'), this.inputs.task),
      el('div', { class: 'buttons', role: 'group', 'aria-label': t('tr.train') }, Object.values(this.buttons)),
      field('lr', t('tr.lr'), this.inputs.lr),
      field('dropout', t('tr.dropout'), this.inputs.dropout),
      field('layers', t('tr.layers'), this.inputs.layers),
      field('heads', t('tr.heads'), this.inputs.heads),
      field('seed', t('tr.seed'), this.inputs.seed),
      el('p', { class: 'hint', style: null }, t('tr.optionsNote')));
    this.element.lastChild.style.gridColumn = '1 / -1';
    this.element.addEventListener('submit', (event) => event.preventDefault());
  }

  /** Shows `options`; `running` and `ready` decide which buttons can be pressed. */
  show(options, { running, ready }) {
    for (const [name, input] of Object.entries(this.inputs)) {
      const value = String(options[name]);
      if (input.value !== value && input.getRootNode().activeElement !== input) input.value = value;
    }
    this.buttons.train.disabled = !ready || running;
    this.buttons.pause.disabled = !ready || !running;
    this.buttons.step.disabled = !ready;
    this.buttons.reset.disabled = !ready;
    this.buttons.train.setAttribute('aria-pressed', String(running));
    // A keyboard reader who pressed Train (now disabled) lands on Pause, and back.
    const focused = this.element.getRootNode().activeElement;
    if (focused?.disabled) (running ? this.buttons.pause : this.buttons.train).focus();
  }
}
