// One heatmap panel of <mha-heatmap>: an SVG at its own pixel size for the token labels, the
// hatch of masked cells and the keyboard cursor, around a canvas that holds the cells (placed on
// the grid with foreignObject, so hit testing, the cursor and the labels share the SVG's units).
// Exact values on hover and on keyboard focus (arrow keys), in the readout and a tip.
import { formatValue } from '../../logic/format.js';
import { canvasCellPixels, hitCell, moveCell } from '../../logic/heatmap/layout.js';
import { el, svg } from '../base/dom.js';

let patternCount = 0;

/** A hatch pattern (light ground, dark diagonals) under `id`, for masked cells. */
export function hatchDefs(id) {
  return svg('defs', {}, svg('pattern', { id, width: 5, height: 5, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
    svg('rect', { width: 5, height: 5, fill: '#e8e8e8' }), svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: '#444', 'stroke-width': 2 })));
}

/**
 * Builds one panel. `panel` ({ b, h, offset, rows, cols }) and `geometry` (heatmap-layout.js)
 * place it; `view()` returns what is on screen now ({ step, maskedAt, labels, t }), so a panel
 * built for one run serves every later run of the same shapes. `host` gives: `readout`, `tip`,
 * `box()` (the heatmap's box, for placing the tip), `active` (get/set the keyboard cursor
 * { panel, r, c }) and `select(b, h, { focus })`. Returns { panel, figure, canvas, mask, range,
 * show(r, c), hide() }.
 */
export function buildPanel({ panel, geometry, caption, label, selected, view, host }) {
  const { b, h } = panel;
  const key = `${b}.${h}`;
  const hatch = `hatch-${++patternCount}`;
  const picture = svg('svg', { width: geometry.width, height: geometry.height, viewBox: `0 0 ${geometry.width} ${geometry.height}`, 'aria-hidden': 'true' }, hatchDefs(hatch));
  const { font, cell } = geometry;
  geometry.rowText.forEach((text, r) => {
    if (text) picture.append(svg('text', { x: geometry.left - 5, y: geometry.cellY(r) + cell / 2 + font * 0.35, 'text-anchor': 'end', 'font-size': font, fill: 'currentColor' }, text));
  });
  geometry.colText.forEach((text, c) => {
    if (!text) return;
    const x = geometry.cellX(c) + cell / 2;
    const y = geometry.top - 5;
    picture.append(svg('text', geometry.rotate
      ? { x, y, 'font-size': geometry.colFont, fill: 'currentColor', transform: `rotate(-60 ${x} ${y})` }
      : { x, y, 'font-size': font, fill: 'currentColor', 'text-anchor': 'middle' }, text));
  });
  const pixels = canvasCellPixels(geometry);
  const canvas = el('canvas', { class: 'cells', width: panel.cols * pixels, height: panel.rows * pixels });
  picture.append(svg('foreignObject', { x: geometry.left, y: geometry.top, width: panel.cols * cell, height: panel.rows * cell }, canvas));
  const mask = svg('path', { class: 'masked-cells', fill: `url(#${hatch})`, d: '' });
  const cursorSize = Math.max(cell, 3);
  const cursor = svg('rect', { width: Math.max(cursorSize - 1, 2), height: Math.max(cursorSize - 1, 2), fill: 'none', stroke: '#e0a100', 'stroke-width': cell < 6 ? 2 : 3, visibility: 'hidden' });
  picture.append(mask, cursor);
  const range = el('span', { class: 'range mono' });
  const figure = el('figure', { class: 'panel', part: 'panel', tabindex: 0, role: 'img', 'data-b': b, 'data-h': h, 'aria-current': String(selected), 'aria-label': label },
    picture, el('figcaption', {}, caption, range));

  const show = (r, c, event) => {
    const { step, maskedAt, labels, t, averaged } = view();
    const i = panel.offset + r * panel.cols + c;
    const masked = maskedAt(i);
    const value = step.data[i];
    const v = masked && step.id === 'weights' ? `${formatValue(value)} (${t('hm.masked')})` : formatValue(value);
    host.readout.textContent = averaged
      ? t('hm.readoutMean', { b, q: labels.rows[r], k: labels.cols[c], v })
      : t('hm.readout', { b, h, q: labels.rows[r], k: labels.cols[c], v });
    cursor.setAttribute('x', geometry.cellX(c) - (cursorSize - cell) / 2);
    cursor.setAttribute('y', geometry.cellY(r) - (cursorSize - cell) / 2);
    cursor.setAttribute('visibility', 'visible');
    const { tip } = host;
    tip.textContent = formatValue(value);
    tip.hidden = false;
    const hostBox = host.box();
    const pictureBox = picture.getBoundingClientRect();
    const scaleX = pictureBox.width / geometry.width;
    const left = event ? event.clientX : pictureBox.left + (geometry.cellX(c) + cell) * scaleX;
    const top = event ? event.clientY : pictureBox.top + geometry.cellY(r) * scaleX;
    // Right of the pointer, or left of it near the right edge: the page's sections clip what
    // sticks out of them (content-visibility), so the tip stays inside the heatmaps' box.
    const right = left - hostBox.left + 12;
    const width = tip.offsetWidth;
    tip.style.left = `${right + width > hostBox.width ? Math.max(0, right - 24 - width) : right}px`;
    tip.style.top = `${top - hostBox.top - 28}px`;
  };
  const hide = () => { cursor.setAttribute('visibility', 'hidden'); host.tip.hidden = true; };
  picture.addEventListener('pointermove', (event) => {
    const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(picture.getScreenCTM().inverse());
    const hit = hitCell(geometry, point.x, point.y);
    if (hit) show(hit.r, hit.c, event); else hide();
  });
  picture.addEventListener('pointerleave', hide);
  figure.addEventListener('click', () => host.select(b, h));
  figure.addEventListener('focus', () => {
    const at = host.active?.panel === key ? host.active : { r: 0, c: 0 };
    host.active = { panel: key, r: at.r, c: at.c };
    show(at.r, at.c);
  });
  figure.addEventListener('blur', hide);
  figure.addEventListener('keydown', (event) => {
    if (event.key === 'Enter' || event.key === ' ') {
      event.preventDefault();
      host.select(b, h, { focus: true });
      return;
    }
    if (!['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return;
    event.preventDefault();
    event.stopPropagation(); // arrows here read cells; they must not also change the walkthrough step
    const next = moveCell(host.active ?? { r: 0, c: 0 }, event.key, panel.rows, panel.cols);
    host.active = { panel: key, ...next };
    show(next.r, next.c);
  });
  return { panel, figure, canvas, mask, range, show, hide };
}
