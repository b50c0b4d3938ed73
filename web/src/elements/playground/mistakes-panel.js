// "Common mistakes": each wrong version is really computed from this run's tensors (batch 0,
// head 0; logic/lessons/mistakes.js) and set beside the right one, with what gives it away.
import { formatValue } from '../../logic/format.js';
import { noProjection, noScale, noTranspose, reshapeWithoutTranspose, softmaxOverQueries } from '../../logic/lessons/mistakes.js';
import { el, patchChildren } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

const MAX_MATRIX = 8; // rows and columns shown of each mistake's matrices

export const MISTAKES_STYLES = sheet(`
.pair { display: flex; flex-wrap: wrap; gap: 0.8em; }
.pair > div { min-width: 0; }
.label-wrong { color: var(--error); font-weight: 600; }
.label-right { color: var(--ok); font-weight: 600; }
table.matrix td.sum, table.matrix th.sum { background: color-mix(in srgb, #f0c419 22%, var(--bg)); }
table.matrix td.holds { text-align: left; }
`);

export class MistakesPanel {
  #t;
  #cards = el('div', { class: 'cards' });
  #offscreen = false;

  constructor({ t }) {
    this.#t = t;
    this.section = block('mistakes', t('mistakes.title'), el('p', { class: 'note' }, t('mistakes.intro')), this.#cards);
    // Whether the browser is skipping the section (off screen, content-visibility: auto).
    this.section.addEventListener('contentvisibilityautostatechange', (event) => { this.#offscreen = event.skipped; });
  }

  /** The mistakes of `run`, its rows labelled by `labels` (the tokens). */
  show(run, labels) {
    const t = this.#t;
    const s = run.summary;
    const matrix = (rows, options) => this.#matrix(rows, { ...options, labels });
    const pair = (wrong, right) => el('div', { class: 'pair' },
      el('div', { 'data-side': 'wrong' }, el('p', { class: 'label-wrong' }, `✗ ${t('mistakes.wrong')}`), wrong),
      el('div', { 'data-side': 'right' }, el('p', { class: 'label-right' }, `✓ ${t('mistakes.right')}`), right));
    const card = (id, title, ...body) => el('div', { class: 'card', 'data-mistake': id }, el('h3', {}, title), ...body);

    const p = noProjection(run);
    const projection = card('noProjection', t('mistakes.noProjection'),
      el('p', {}, t('mistakes.noProjectionWhat', { a: p.features[0], b: p.features[1] })),
      pair(matrix(p.wrong), matrix(p.right)),
      p.wrongAsymmetry === null ? null : el('p', { 'data-result': 'symmetry' }, t('mistakes.symmetry', { wrong: formatValue(p.wrongAsymmetry), right: formatValue(p.rightAsymmetry) })));

    const k = noTranspose(run);
    const transpose = card('noTranspose', t('mistakes.noTranspose'),
      k.ok
        ? [el('p', { class: 'label-wrong', 'data-result': 'silent' }, t('mistakes.silent', { D: s.D, Tk: s.Tk, diff: formatValue(k.maxDiff) })), pair(matrix(k.wrong), matrix(k.right))]
        : [el('p', { class: 'label-wrong', 'data-result': 'shape-error' }, t('mistakes.shapeError', { a: `[${k.left.join(',')}]`, b: `[${k.right.join(',')}]`, D: s.D, Tk: s.Tk })),
          el('p', {}, t('mistakes.shapeErrorHint'))]);

    const q = softmaxOverQueries(run);
    const softmax = card('softmaxOverQueries', t('mistakes.softmaxTq'),
      el('p', {}, t('mistakes.softmaxTqWhat')),
      pair(matrix(q.wrong, { rowSums: q.wrongRowSums, colSums: q.wrongColSums }), matrix(q.right, { rowSums: q.rightRowSums, colSums: q.rightColSums })));

    const r = reshapeWithoutTranspose(run);
    const reshape = card('reshapeWithoutTranspose', t('mistakes.reshape'),
      el('p', {}, t('mistakes.reshapeWhat', { n: r.scrambledRows, m: r.rows.length })),
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, t('mistakes.headRow')), el('th', {}, t('mistakes.holds'))),
        r.rows.slice(0, 2 * MAX_MATRIX).map((row) => el('tr', { 'data-scrambled': String(row.scrambled) }, el('th', {}, `h${row.h} · ${labels[row.t] ?? row.t}`),
          el('td', { class: row.scrambled ? 'holds label-wrong' : 'holds label-right' }, t('mistakes.holdsText', { token: labels[row.token] ?? row.token, h: row.tokenHead }))))));

    // How it grows with D is the lesson "Why divide by √D" (scaling-card.js), with its slider.
    const n = noScale(run);
    const scale = card('noScale', t('mistakes.noScale'),
      el('p', { 'data-result': 'peak' }, t('mistakes.peak', { wrong: formatValue(n.wrongPeak, 3), right: formatValue(n.rightPeak, 3), uniform: formatValue(1 / s.Tk, 3) })),
      pair(matrix(n.wrong), matrix(n.right)),
      el('p', {}, t('mistakes.trend')));

    // On screen, a new seed changes only numbers in place (little to lay out again); off screen
    // nothing is laid out until it is seen, so swapping in the new cards is cheaper than comparing.
    const fresh = [projection, transpose, softmax, reshape, scale];
    if (this.#offscreen) this.#cards.replaceChildren(...fresh);
    else patchChildren(this.#cards, fresh);
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
      cut ? el('caption', { class: 'note' }, this.#t('mistakes.corner', { n: MAX_MATRIX, rows: allRows.length, cols: allRows[0].length })) : null,
      rows.map((row, r) => el('tr', {}, el('th', {}, labels?.[r] ?? r), row.map((v) => el('td', { class: 'mono', 'data-value': v }, formatValue(v, digits))),
        rowSums ? el('td', { class: 'sum mono', 'data-rowsum': rowSums[r] }, formatValue(rowSums[r], digits)) : null)),
      sumRow);
  }
}
