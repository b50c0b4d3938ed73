// "PyTorch's layout": how nn.MultiheadAttention's in_proj_weight [3C, C] holds W_q, W_k and W_v
// (each transposed against the walkthrough's X·W, as nn.Linear stores [out, in]), shown with this
// run's own weights; and a box to paste a state dict (JSON) whose weights the page then runs
// (engine.fromTorch, or engine.fromLinear for separate q/k/v/out projections).
import { formatValue } from '../../logic/format.js';
import { inProjAt, parseStateDict } from '../../logic/page/state-dict.js';
import { el, svg } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

export const TORCH_STYLES = sheet(`
.torch-layout { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.torch-layout svg { width: 100%; max-width: 22em; height: auto; }
.torch pre { overflow-x: auto; background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.5em; font-size: 0.85em; }
.torch textarea { width: 100%; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); font-size: 0.85em; border: 1px solid var(--line); border-radius: 6px; padding: 0.4em; background: var(--bg); color: var(--fg); }
.torch .buttons { display: flex; flex-wrap: wrap; gap: 0.5em; margin: 0.4em 0; }
.torch td.pair { background: color-mix(in srgb, #e69f00 25%, var(--bg)); }
.torch .pair-tables { display: flex; flex-wrap: wrap; gap: 0.8em 1.6em; }
.torch .pair-tables caption { white-space: nowrap; text-align: left; font-size: 0.85em; }
`);

const EXPORT_CODE = `import json, torch
mha = torch.nn.MultiheadAttention(embed_dim=8, num_heads=2)
state = {k: v.tolist() for k, v in mha.state_dict().items()}
print(json.dumps(state))  # paste this below`;

const CORNER = 3; // rows and columns of the matrices shown side by side

export class TorchPanel {
  #t;
  #lang;
  #apply;
  #reset;
  #layout = el('div', { class: 'torch-layout' });
  #status = el('p', { class: 'note torch-status', 'aria-live': 'polite' });
  #error = el('p', { class: 'error', id: 'error-stateDict', role: 'alert' });
  #shown = null;

  /**
   * `apply(stateDict)` runs a read state dict (logic/page/state-dict.js); it throws the engine's
   * MhaError when the weights do not fit. `reset()` goes back to seeded weights.
   */
  constructor({ t, lang, apply, reset }) {
    this.#t = t;
    this.#lang = lang;
    this.#apply = apply;
    this.#reset = reset;
    const paste = el('textarea', { id: 'state-dict', rows: 4, spellcheck: 'false', autocomplete: 'off', 'aria-describedby': 'error-stateDict state-dict-hint' });
    const run = el('button', { type: 'button', 'data-action': 'state-dict' }, t('torch.run'));
    const back = el('button', { type: 'button', 'data-action': 'seeded' }, t('torch.seeded'));
    run.addEventListener('click', () => this.#run(paste.value));
    back.addEventListener('click', () => {
      this.#error.textContent = '';
      this.#reset();
    });
    this.section = block('torch', t('torch.title'), this.#layout,
      el('h3', {}, t('torch.pasteTitle')),
      el('p', { class: 'note', id: 'state-dict-hint' }, t('torch.pasteHint')),
      el('pre', {}, el('code', {}, EXPORT_CODE)),
      el('label', { for: 'state-dict' }, t('torch.paste')), paste,
      el('div', { class: 'buttons' }, run, back), this.#error, this.#status);
  }

  #run(text) {
    this.#error.textContent = '';
    try {
      this.#apply(parseStateDict(text));
    } catch (error) {
      if (typeof error?.messageIn !== 'function') throw error;
      this.#status.textContent = '';
      this.#error.textContent = `${this.#t('torch.refused')} ${error.messageIn(this.#lang)}`;
    }
  }

  /** The layout with this run's numbers; `explicit`: the weights came from a pasted state dict. */
  show(run, explicit) {
    const t = this.#t;
    const s = run.summary;
    this.#status.textContent = explicit ? t('torch.running', { C: s.C }) : '';
    const key = JSON.stringify([s.C, s.H, s.Hkv, run.weights.Wq?.[0], explicit]);
    if (key === this.#shown) return;
    this.#shown = key;
    const { C } = s;
    const grouped = s.Hkv !== s.H;
    const children = [el('p', {}, t('torch.layout', { C, C3: 3 * C, a: C - 1, b: C, c: 2 * C - 1, d: 2 * C, e: 3 * C - 1 })), picture(C, t)];
    if (!grouped) children.push(this.#corner(run.weights, C));
    else children.push(el('p', { class: 'note' }, t('torch.grouped')));
    children.push(el('p', { class: 'note' }, t('torch.out')));
    this.#layout.replaceChildren(...children);
  }

  // The top-left corner of in_proj_weight and of W_q side by side: the same numbers, transposed.
  #corner(weights, C) {
    const t = this.#t;
    const n = Math.min(CORNER, C);
    const matrix = (title, value) => el('table', { class: 'matrix' },
      el('caption', {}, title),
      Array.from({ length: n }, (_, r) => el('tr', {}, Array.from({ length: n }, (_, c) => el('td', { class: r === 0 && c === 1 ? 'pair mono' : 'mono', 'data-value': value(r, c) }, formatValue(value(r, c), 3))))));
    return el('div', { class: 'corner' },
      el('div', { class: 'pair-tables' },
        matrix(t('torch.inProjCorner', { n }), (r, c) => inProjAt(weights, C, r, c)),
        matrix(t('torch.wqCorner', { n }), (r, c) => weights.Wq[r * C + c])),
      el('p', { class: 'note' }, t('torch.pair', { v: formatValue(inProjAt(weights, C, 0, 1), 3) })));
  }
}

// in_proj_weight [3C, C] as three bands, each transposed into the walkthrough's W [C, C].
function picture(C, t) {
  const bands = [['W_q', '#0072b2'], ['W_k', '#d55e00'], ['W_v', '#009e73']];
  const picture = svg('svg', { viewBox: '0 0 300 170', role: 'img', 'aria-label': t('torch.pictureLabel', { C, C3: 3 * C }) });
  picture.append(svg('text', { x: 0, y: 12, 'font-size': 11, fill: 'currentColor' }, `in_proj_weight [${3 * C}, ${C}]`));
  bands.forEach(([name, color], i) => {
    picture.append(svg('rect', { x: 0, y: 20 + i * 48, width: 48, height: 46, fill: color, opacity: 0.75 }),
      svg('text', { x: 24, y: 47 + i * 48, 'font-size': 11, 'text-anchor': 'middle', fill: '#ffffff' }, `${name}ᵀ`),
      svg('text', { x: 60, y: 47 + i * 48, 'font-size': 11, fill: 'currentColor' }, `[${i * C}:${(i + 1) * C}]  .T  →`),
      svg('rect', { x: 180, y: 20 + i * 48, width: 46, height: 46, fill: color, opacity: 0.35 }),
      svg('text', { x: 203, y: 47 + i * 48, 'font-size': 11, 'text-anchor': 'middle', fill: 'currentColor' }, name),
      svg('text', { x: 232, y: 47 + i * 48, 'font-size': 10, fill: 'currentColor' }, `[${C}, ${C}]`));
  });
  return picture;
}
