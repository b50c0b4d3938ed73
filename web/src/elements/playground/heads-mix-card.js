// "W_O mixes the heads", computed: one token's output row as the sum over heads of context_h ·
// W_O's rows for that head, plus b_o, beside the engine's own output row; zero one head and see
// how much every output row moves; and, measured, why seeded weights give nearly the same output
// row for every token (logic/lessons/heads-mix.js).
import { formatValue } from '../../logic/format.js';
import { headContributions, spreads, withoutHead } from '../../logic/lessons/heads-mix.js';
import { el } from '../base/dom.js';

const FEATURES = 4; // output features shown; the sum and the check cover all of them
const HEADS = 16; // head rows shown at most

/** The card: `element`, `show(run, { tokens, seeded })` for each new run, `relabel(tokens)` for new words. */
export function headsMixCard({ t }) {
  const token = el('select', { id: 'mix-token', class: 'mix-token' });
  const head = el('select', { id: 'mix-head', class: 'mix-head' });
  const intro = el('p', { 'data-result': 'mix-intro' });
  const table = el('table', { class: 'matrix mix-table' });
  const check = el('p', { 'data-result': 'mix-check' });
  const ablation = el('p', { 'data-result': 'mix-ablation', 'aria-live': 'polite' });
  const why = el('p', { class: 'note', 'data-result': 'mix-why' });
  const element = el('div', { class: 'card', 'data-card': 'mix' }, el('h3', {}, t('mix.title')), intro,
    el('div', { class: 'slider-row' }, el('label', { for: 'mix-token' }, t('mix.token')), token, el('label', { for: 'mix-head' }, t('mix.zero')), head),
    el('div', { class: 'table-wrap' }, table), check, ablation, why);
  let run = null;
  let labels = [];

  const draw = () => {
    const { T, C, H, D } = run.summary;
    const at = Math.min(Number(token.value) || 0, T - 1);
    const zeroed = Math.min(Number(head.value) || 0, H - 1);
    const { parts, bias, sum, output, maxDiff } = headContributions(run, { b: 0, t: at });
    const without = withoutHead(run, zeroed);
    const shown = Math.min(C, FEATURES);
    const cells = (values) => Array.from({ length: shown }, (_, j) => el('td', { class: 'mono', 'data-value': values[j] }, formatValue(values[j], 3)));
    const row = (name, values, attributes = {}) => el('tr', attributes, el('th', { scope: 'row' }, name), cells(values), C > shown ? el('td', {}, '…') : null);
    intro.textContent = t('mix.intro', { token: labels[at] ?? `t${at}`, D, H });
    table.replaceChildren(...[
      el('tr', {}, el('th', {}, ''), Array.from({ length: shown }, (_, j) => el('th', { scope: 'col' }, `y[${j}]`)), C > shown ? el('th', {}, '…') : null),
      ...parts.slice(0, HEADS).map((part, h) => row(t('mix.headPart', { h }), part, { 'data-part': h, class: h === zeroed ? 'zeroed' : null })),
      H > HEADS ? el('tr', {}, el('td', { colspan: shown + 2 }, t('mix.moreHeads', { n: H - HEADS }))) : null,
      row('b_o', bias, { 'data-part': 'bias' }),
      row(t('mix.sum'), sum, { 'data-part': 'sum', class: 'sum' }),
      row(t('mix.output'), output, { 'data-part': 'output' }),
      row(t('mix.without', { h: zeroed }), without.output.subarray(at * C, at * C + C), { 'data-part': 'without' })].filter(Boolean));
    check.textContent = t('mix.check', { diff: maxDiff.toExponential(1), C });
    check.dataset.maxDiff = maxDiff;
    ablation.textContent = t('mix.ablation', { h: zeroed, mean: formatValue(without.meanChange, 3), max: formatValue(without.maxChange, 3), heads: formatValue(without.headsMean, 3) });
    ablation.dataset.meanChange = without.meanChange;
  };
  token.addEventListener('change', draw);
  head.addEventListener('change', draw);

  return {
    element,
    relabel(tokens) {
      labels = tokens;
      [...token.options].forEach((option, i) => { option.textContent = tokens[i] ?? `t${i}`; });
      const at = Number(token.value) || 0;
      intro.textContent = t('mix.intro', { token: labels[at] ?? `t${at}`, D: run.summary.D, H: run.summary.H });
    },
    show(next, { tokens = [], seeded = true } = {}) {
      run = next;
      labels = tokens;
      const { T, H } = run.summary;
      const options = (select, n, text) => {
        const keep = Math.min(Number(select.value) || 0, n - 1);
        select.replaceChildren(...Array.from({ length: n }, (_, i) => el('option', { value: i, selected: i === keep }, text(i))));
        select.value = String(keep);
      };
      options(token, T, (i) => tokens[i] ?? `t${i}`);
      options(head, H, (h) => t('hm.head', { h }));
      const s = spreads(run);
      why.textContent = `${t('mix.spread', { v: formatValue(s.v, 3), context: formatValue(s.context, 3), output: formatValue(s.output, 3) })} ${t(seeded ? 'mix.whySeeded' : 'mix.whyGiven')}`;
      why.dataset.v = s.v;
      why.dataset.context = s.context;
      why.dataset.output = s.output;
      draw();
    },
  };
}
