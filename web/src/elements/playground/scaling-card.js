// "Why divide by √D": the variance of this run's scores before and after the scale, and a D
// slider over one head of width D (real side runs, logic/lessons/scaling.js): the unscaled variance grows
// with D and the softmax saturates; the scaled one stays put.
import { formatCount, formatValue } from '../../logic/format.js';
import { meanVariance, SCALING_DS, scalingPoint, scalingProbe } from '../../logic/lessons/scaling.js';
import { el, svg } from '../base/dom.js';

const CHART = { width: 320, height: 150, left: 40, right: 10, top: 10, bottom: 26 };

/**
 * The card, built for a run's sizes; `runOf(config)` runs the probes (memoised by the playground).
 * Returns { element, show(run) } (show: this run's own variance, in place).
 */
export function scalingCard({ t, runOf, summary }) {
  const points = SCALING_DS.map((D) => scalingPoint(runOf(scalingProbe(D))));
  let at = Math.max(0, SCALING_DS.findIndex((D) => D >= summary.D));
  const own = el('p', { 'data-result': 'own' });
  const slider = el('input', { type: 'range', min: 0, max: SCALING_DS.length - 1, step: 1, value: at, id: 'scaling-d', class: 'scaling-slider' });
  const sliderLabel = el('label', { for: 'scaling-d' });
  const numbers = el('p', { 'data-result': 'probe', 'aria-live': 'polite' });
  const rows = svg('svg', { viewBox: `0 0 320 ${BARS.height}`, role: 'img', class: 'scaling-rows' });
  const apart = el('p', { class: 'note', 'data-result': 'apart' });
  const chart = varianceChart(points, t);

  const showProbe = () => {
    const p = points[at];
    sliderLabel.textContent = t('scaling.slider', { D: p.D });
    slider.setAttribute('aria-valuetext', `D = ${p.D}`);
    numbers.textContent = t('scaling.probe', { D: p.D, T: p.T, unscaled: formatValue(p.unscaled, 3), scaled: formatValue(p.scaled, 3),
      peakUnscaled: formatValue(p.peakUnscaled, 3), peakScaled: formatValue(p.peakScaled, 3), uniform: formatValue(1 / p.T, 3) });
    rows.setAttribute('aria-label', t('scaling.rowsLabel', { D: p.D }));
    rows.replaceChildren(...barRow(p.rowUnscaled, BARS.tops[0], t('scaling.without')), ...barRow(p.rowScaled, BARS.tops[1], t('scaling.with')),
      svg('text', { x: 160, y: BARS.height - 3, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor', class: 'axis-title' },
        t('scaling.barsAxis', { last: p.T - 1 })));
    chart.mark(at);
  };
  slider.addEventListener('input', () => {
    at = Number(slider.value);
    showProbe();
  });
  showProbe();

  const element = el('div', { class: 'card chart', 'data-card': 'scaling' },
    el('h3', {}, t('scaling.title')),
    el('p', {}, t('scaling.why')),
    own,
    el('div', { class: 'slider-row' }, sliderLabel, slider),
    apart,
    numbers, rows, chart.element,
    el('p', { class: 'legend-line' }, el('span', { class: 'legend-scores' }, `● — ${t('scaling.varUnscaled')}`), ' · ', el('span', { class: 'legend-flops' }, `■ - - ${t('scaling.varScaled')}`)));

  return {
    element,
    show(run) {
      const { D } = run.summary;
      const unscaled = meanVariance(run.step('scores').data).variance;
      const scaled = meanVariance(run.step('scaled').data).variance;
      own.textContent = t('scaling.own', { D, unscaled: formatValue(unscaled, 3), scaled: formatValue(scaled, 3) });
      own.dataset.unscaled = unscaled;
      own.dataset.scaled = scaled;
      // The slider's run at this D is another run: say why its numbers differ, and put this run's
      // point on the chart beside the slider's line.
      const same = points.find((p) => p.D === D);
      const { C } = run.summary;
      apart.textContent = same ? t(C === D ? 'scaling.apartSameC' : 'scaling.apart', { D, C, unscaled: formatValue(unscaled, 3), probe: formatValue(same.unscaled, 3), n: formatCount(run.step('scores').numel), m: formatCount(same.T * same.T) }) : '';
      chart.own(SCALING_DS.indexOf(D), unscaled, t('scaling.thisRun'));
    },
  };
}

// Two rows of bars (without, then with the scale) over a weight axis from 0 to 1 with the
// uniform weight 1/T dashed, and the keys' axis under them.
const BARS = { left: 92, tops: [6, 56], band: 38, height: 112 };

// One query's weights as bars, one per key, in a band of BARS.band at `top`.
function barRow(weights, top, label) {
  const n = weights.length;
  const { left, band } = BARS;
  const width = (320 - left - 4) / n;
  const y = (w) => top + band - band * w;
  const tick = (w, text) => svg('text', { x: left - 3, y: y(w) + 3, 'text-anchor': 'end', 'font-size': 8, fill: 'currentColor', class: 'weight-tick' }, text);
  return [svg('text', { x: 0, y: top + band / 2 + 3, 'font-size': 10, fill: 'currentColor' }, label),
    svg('line', { x1: left, x2: left, y1: top, y2: top + band, stroke: 'currentColor', 'stroke-width': 0.6 }),
    svg('line', { x1: left, x2: 316, y1: top + band, y2: top + band, stroke: 'currentColor', 'stroke-width': 0.6 }),
    tick(1, '1'), tick(0, '0'),
    svg('line', { x1: left, x2: 316, y1: y(1 / n), y2: y(1 / n), stroke: '#d55e00', 'stroke-dasharray': '3 2', 'stroke-width': 0.8, class: 'uniform-line' }),
    svg('text', { x: 316, y: y(1 / n) - 2, 'text-anchor': 'end', 'font-size': 8, fill: '#d55e00' }, `1/${n}`),
    ...weights.map((w, k) => svg('rect', { x: left + 1 + k * width, y: y(w), width: Math.max(1, width - 1), height: Math.max(0.5, band * w), fill: '#0072b2', 'data-weight': w }))];
}

// Variance against D on log–log axes: the unscaled line climbs, the scaled one stays flat.
function varianceChart(points, t) {
  const { width, height, left, right, top, bottom } = CHART;
  const values = points.flatMap((p) => [p.unscaled, p.scaled]).filter((v) => v > 0);
  const yMin = Math.floor(Math.log10(Math.min(...values)));
  const yMax = Math.ceil(Math.log10(Math.max(...values)));
  const x = (i) => left + (i / (points.length - 1)) * (width - left - right);
  const y = (v) => top + (1 - (Math.log10(Math.max(v, 10 ** yMin)) - yMin) / (yMax - yMin || 1)) * (height - top - bottom);
  const line = (key) => points.map((p, i) => `${i ? 'L' : 'M'}${x(i).toFixed(1)} ${y(p[key]).toFixed(1)}`).join(' ');
  const element = svg('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('scaling.chartLabel', { low: formatValue(points[0].unscaled, 3), high: formatValue(points.at(-1).unscaled, 3), scaled: formatValue(points.at(-1).scaled, 3) }) });
  for (let e = yMin; e <= yMax; e++) {
    element.append(svg('line', { x1: left, x2: width - right, y1: y(10 ** e), y2: y(10 ** e), stroke: '#d5d8de' }),
      svg('text', { x: left - 4, y: y(10 ** e) + 3, 'text-anchor': 'end', 'font-size': 9, fill: 'currentColor' }, `1e${e}`));
  }
  points.forEach((p, i) => element.append(svg('text', { x: x(i), y: height - bottom + 12, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, p.D)));
  element.append(svg('text', { x: (left + width) / 2, y: height - 3, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, 'D'),
    svg('path', { d: line('unscaled'), fill: 'none', stroke: '#0072b2', 'stroke-width': 2 }),
    svg('path', { d: line('scaled'), fill: 'none', stroke: '#d55e00', 'stroke-width': 2, 'stroke-dasharray': '6 3' }));
  const marker = svg('line', { y1: top, y2: height - bottom, stroke: '#cc79a7', 'stroke-dasharray': '3 2', 'stroke-width': 1.5 });
  const ownDot = svg('circle', { r: 3.5, fill: '#cc79a7', visibility: 'hidden', class: 'own-point' });
  const ownText = svg('text', { 'font-size': 9, fill: 'currentColor', visibility: 'hidden' });
  element.append(marker, ownDot, ownText);
  return {
    element,
    // This run's unscaled variance at its D (i < 0: its D is not on the chart).
    own(i, variance, label) {
      const shown = i >= 0 && variance > 0 ? 'visible' : 'hidden';
      ownDot.setAttribute('visibility', shown);
      ownText.setAttribute('visibility', shown);
      if (shown === 'hidden') return;
      ownDot.setAttribute('cx', x(i));
      ownDot.setAttribute('cy', y(variance));
      ownText.setAttribute('x', x(i) + 5);
      ownText.setAttribute('y', y(variance) + 12);
      ownText.textContent = label;
    },
    mark(i) {
      marker.setAttribute('x1', x(i));
      marker.setAttribute('x2', x(i));
    },
  };
}
