// "What the numbers teach": why attention divides by √D (scaling-card.js), the parameter count for
// every H that divides C (the same, because D shrinks as H grows), how the scores and the FLOPs
// grow with T, and the KV cache per token for MHA, GQA and MQA. Every number is the engine's, from
// this run and small side runs of other head layouts.
import { formatBytes, formatCount } from '../../logic/format.js';
import { divisors, growthChartGeometry, growthSeries, shortNumber } from '../../logic/lessons/growth.js';
import { renderMath } from '../../logic/math.js';
import { parameterFormula } from '../../logic/walkthrough/walkthrough-text.js';
import { el, svg } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';
import { scalingCard } from './scaling-card.js';
import { headsMixCard } from './heads-mix-card.js';

export const LESSONS_STYLES = sheet(`
.formula-line { overflow-x: auto; }
.chart svg { width: 100%; max-width: 30em; height: auto; display: block; }
.chart .legend-line { font-size: 0.85em; }
.legend-scores { color: #0072b2; }
.legend-flops { color: #d55e00; }
.legend-t { color: #a0457f; }
.slider-row { display: flex; flex-wrap: wrap; align-items: center; gap: 0.5em; }
.slider-row input[type="range"] { flex: 1 1 10em; min-height: 2em; }
.scaling-rows { width: 100%; max-width: 30em; height: auto; display: block; }
.mix-table tr.sum th, .mix-table tr.sum td { border-top: 2px solid var(--line); font-weight: 600; }
.mix-table tr.zeroed th { text-decoration: line-through; }
.mix-table th { white-space: nowrap; }
.table-wrap { overflow-x: auto; max-width: 100%; }
`);

export class LessonsPanel {
  #t;
  #summary;
  #runOf;
  #cards = el('div', { class: 'cards' });
  #shown = null;
  #scaling = null;
  #mix = null;
  #run = null; // the run on the cards

  /**
   * `summaryOf(config)`: the summary of an engine run of `config`; `runOf(config)`: the run
   * (both memoised by the playground).
   */
  constructor({ t, summaryOf, runOf }) {
    this.#t = t;
    this.#summary = summaryOf;
    this.#runOf = runOf;
    this.section = block('lessons', t('lessons.title'), this.#cards);
  }

  /** `tokens`: the run's token labels; `seeded`: its weights are the engine's seeded ones. */
  show(run, { tokens = [], seeded = true } = {}) {
    // The same run with new words for its tokens: only the labels change (its numbers are the same).
    if (run === this.#run && this.#mix) {
      this.#mix.relabel(tokens);
      return;
    }
    this.#run = run;
    const s = run.summary;
    // The cards read sizes and options (the summary): a new seed keeps them, and only the
    // scaling card's numbers of this run change.
    const key = JSON.stringify(s);
    if (this.#shown !== key) {
      this.#shown = key;
      this.#scaling = scalingCard({ t: this.#t, runOf: this.#runOf, summary: s });
      this.#mix = headsMixCard({ t: this.#t });
      this.#cards.replaceChildren(this.#scaling.element, this.#mix.element, this.#parameters(s), this.#growth(s), this.#kvCache(s));
    }
    this.#scaling.show(run);
    this.#mix.show(run, { tokens, seeded });
  }

  // Parameters: the same for every H that divides C, because D shrinks as H grows.
  #parameters(s) {
    const t = this.#t;
    const formula = el('div', { class: 'formula-line' });
    const mha = this.#summary({ B: 1, T: 1, C: s.C, H: s.H, bias: s.bias }).parameterCount;
    renderMath(formula, parameterFormula(s.bias), { C: s.C, N: mha });
    const rows = divisors(s.C).filter((h) => h <= 64)
      .map((h) => ({ h, D: s.C / h, count: this.#summary({ B: 1, T: 1, C: s.C, H: h, bias: s.bias }).parameterCount }));
    return el('div', { class: 'card', 'data-card': 'params' }, el('h3', {}, t('lessons.params')),
      el('p', {}, t('lessons.paramsNow', { n: formatCount(s.parameterCount) })), formula,
      s.Hkv !== s.H ? el('p', { class: 'note' }, t('lessons.paramsGqa')) : null,
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, 'H'), el('th', {}, 'D'), el('th', {}, t('cli.parameters'))),
        rows.map((row) => el('tr', { 'data-h': row.h, class: row.h === s.H ? 'current' : null }, el('td', {}, row.h === s.H ? `▶ ${row.h}` : row.h), el('td', {}, row.D), el('td', {}, formatCount(row.count))))),
      el('p', { class: 'note' }, t('lessons.paramsWhy')));
  }

  // KV cache per token for MHA, this config, and MQA.
  #kvCache(s) {
    const t = this.#t;
    const rows = [
      { label: 'MHA', Hkv: s.H },
      ...(s.Hkv !== s.H && s.Hkv !== 1 ? [{ label: 'GQA', Hkv: s.Hkv }] : []),
      { label: 'MQA', Hkv: 1 },
    ].map((row) => ({ ...row, bytes: this.#summary({ B: 1, T: 1, C: s.C, H: s.H, Hkv: row.Hkv }).kvCacheBytesPerToken }));
    return el('div', { class: 'card', 'data-card': 'kv' }, el('h3', {}, t('lessons.kv')),
      el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, ''), el('th', {}, 'Hkv'), el('th', {}, t('cli.bytesPerToken'))),
        rows.map((row) => el('tr', { 'data-kv': row.label }, el('th', {}, row.Hkv === s.Hkv ? `▶ ${row.label}` : row.label), el('td', {}, row.Hkv), el('td', { 'data-bytes': row.bytes }, row.bytes < 1024 ? `${row.bytes} ${t('unit.bytes')}` : formatBytes(row.bytes))))),
      el('p', { class: 'note' }, t('lessons.kvWhy', { D: s.D })));
  }

  // Scores size and FLOPs as T grows, on log–log axes, with the current T marked.
  #growth(s) {
    const t = this.#t;
    const series = growthSeries(s);
    const g = growthChartGeometry(series);
    const path = (points) => points.map(([x, y], i) => `${i ? 'L' : 'M'}${x.toFixed(1)} ${y.toFixed(1)}`).join(' ');
    const current = series.find((p) => p.current);
    const chart = svg('svg', { viewBox: `0 0 ${g.width} ${g.height}`, role: 'img', 'aria-label': t('lessons.growthLabel', { T: s.T, scores: formatCount(current.scores), flops: formatCount(current.flops) }) });
    for (let e = g.yMin; e <= g.yMax; e++) {
      const y = g.y(10 ** e);
      chart.append(svg('line', { x1: g.left, x2: g.width - g.right, y1: y, y2: y, stroke: '#d5d8de' }),
        svg('text', { x: g.left - 4, y: y + 3, 'text-anchor': 'end', 'font-size': 9, fill: 'currentColor' }, shortNumber(10 ** e)));
    }
    for (const p of series) {
      if (!Number.isInteger(Math.log2(p.T))) continue;
      chart.append(svg('text', { x: g.x(p.T), y: g.height - g.bottom + 12, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, p.T));
    }
    chart.append(svg('text', { x: (g.left + g.width) / 2, y: g.height - 3, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, 'T'),
      svg('line', { x1: g.x(s.T), x2: g.x(s.T), y1: g.top, y2: g.height - g.bottom, stroke: '#cc79a7', 'stroke-dasharray': '3 2', 'stroke-width': 1.5 }),
      svg('path', { d: path(g.scores), fill: 'none', stroke: '#0072b2', 'stroke-width': 2 }),
      svg('path', { d: path(g.flops), fill: 'none', stroke: '#d55e00', 'stroke-width': 2, 'stroke-dasharray': '6 3' }),
      svg('circle', { cx: g.x(s.T), cy: g.y(current.scores), r: 4, fill: '#0072b2' }),
      svg('rect', { x: g.x(s.T) - 4, y: g.y(current.flops) - 4, width: 8, height: 8, fill: '#d55e00' }));
    const table = el('table', { class: 'matrix' }, el('tr', {}, el('th', {}, 'T'), el('th', {}, t('lessons.scoresSize')), el('th', {}, t('cli.flops'))),
      series.map((p) => el('tr', { 'data-t': p.T }, el('td', {}, p.current ? `▶ ${p.T}` : p.T), el('td', {}, formatCount(p.scores)), el('td', {}, formatCount(p.flops)))));
    return el('div', { class: 'card chart', 'data-card': 'growth' }, el('h3', {}, t('lessons.growth')),
      el('p', {}, t('lessons.growthNow', { B: s.B, H: s.H, T: s.T, Tk: s.Tk, n: formatCount(current.scores), flops: formatCount(current.flops) })),
      chart,
      el('p', { class: 'legend-line' }, el('span', { class: 'legend-scores' }, `● — ${t('lessons.scoresSize')}`), ' · ', el('span', { class: 'legend-flops' }, `■ - - ${t('cli.flops')}`), ' · ', el('span', { class: 'legend-t' }, `┆ ${t('lessons.currentT')}`)),
      el('details', {}, el('summary', {}, t('lessons.table')), table));
  }
}
