// The trainer's curves: loss on a log scale and batch accuracy (0 … 1, right axis) against the
// step, one SVG redrawn from a TrainingHistory (logic/training/curves.js).
import { chartScale, lossAxis, polyline, stepAxisEnd } from '../../logic/training/curves.js';
import { el, svg } from '../base/dom.js';

const WIDTH = 320;
const HEIGHT = 130;
const POINTS = 240;

export class CurvesPanel {
  constructor(t) {
    this.t = t;
    this.svg = svg('svg', { viewBox: `0 0 ${WIDTH} ${HEIGHT}`, role: 'img', 'aria-label': t('tr.curves.empty') });
    this.element = el('div', { class: 'card' },
      el('h3', {}, t('tr.curves')),
      el('figure', { class: 'curves' }, this.svg),
      el('p', { class: 'legend-line' },
        el('span', {}, el('span', { class: 'swatch loss' }), t('tr.curves.loss')),
        el('span', {}, el('span', { class: 'swatch acc' }), t('tr.curves.accuracy'))));
  }

  /** Redraws from `history` up to `step` (the x axis reaches at least `target`). */
  draw(history, { step, target }) {
    const { t } = this;
    const losses = history.lossPoints(POINTS);
    const accuracy = history.accuracyPoints(POINTS);
    const steps = stepAxisEnd(Math.max(step, target));
    const axis = lossAxis(losses.map((p) => p.mean));
    const lossScale = chartScale({ width: WIDTH, height: HEIGHT, steps, min: axis.min, max: axis.max, log: true });
    const accScale = chartScale({ width: WIDTH, height: HEIGHT, steps, min: 0, max: 1 });
    const { pad } = lossScale;
    const right = WIDTH - pad.right;
    const bottom = HEIGHT - pad.bottom;
    const children = [
      svg('rect', { x: pad.left, y: pad.top, width: right - pad.left, height: bottom - pad.top, fill: 'none', stroke: 'currentColor', 'stroke-opacity': 0.25 }),
    ];
    for (const tick of axis.ticks) {
      const y = lossScale.y(tick);
      children.push(svg('line', { x1: pad.left, x2: right, y1: y, y2: y, stroke: 'currentColor', 'stroke-opacity': 0.12 }),
        svg('text', { x: pad.left - 3, y: y + 3, 'text-anchor': 'end', fill: 'currentColor' }, String(tick)));
    }
    for (const fraction of [0, 0.5, 1]) {
      children.push(svg('text', { x: right + 2, y: accScale.y(fraction) + 3, class: 'acc', 'font-size': 8 }, `${fraction * 100}%`));
    }
    for (const at of [0, steps / 2, steps]) {
      children.push(svg('text', { x: lossScale.x(at), y: HEIGHT - 5, 'text-anchor': at === 0 ? 'start' : at === steps ? 'end' : 'middle', fill: 'currentColor' },
        at === steps ? `${at} ${t('tr.curves.step')}` : String(at)));
    }
    if (target > 0 && target <= steps) {
      const x = lossScale.x(target);
      children.push(svg('line', { x1: x, x2: x, y1: pad.top, y2: bottom, stroke: 'currentColor', 'stroke-dasharray': '3 3', 'stroke-opacity': 0.4 }));
    }
    if (accuracy.length > 0) {
      children.push(svg('polyline', { points: polyline(accuracy, accScale), class: 'acc', fill: 'none', 'stroke-width': 1.5, 'stroke-linejoin': 'round' }));
    }
    if (losses.length > 0) {
      children.push(svg('polyline', { points: polyline(losses, lossScale), class: 'loss', fill: 'none', 'stroke-width': 1.5, 'stroke-linejoin': 'round' }));
    }
    this.svg.replaceChildren(...children);
    const lastLoss = losses.at(-1)?.mean;
    const lastAccuracy = history.accuracy.at(-1)?.value;
    this.svg.setAttribute('aria-label', lastLoss === undefined ? t('tr.curves.empty')
      : t('tr.curves.label', { step, loss: lastLoss.toFixed(3), accuracy: lastAccuracy === undefined ? '–' : `${(lastAccuracy * 100).toFixed(1)}%` }));
  }
}
