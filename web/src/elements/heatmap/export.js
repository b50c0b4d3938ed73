// The selected heatmap of <mha-heatmap> as a standalone SVG document: its title, token labels,
// one rectangle per cell (with its value), the hatch of masked cells, and the legend with the
// colour range and its numbers. Built from the data, not copied from the page, so that a big
// heatmap drawn at 2 px a cell exports at a readable size. Every text is XML-safe: a token with a
// character XML cannot hold (U+0001, U+FFFE, a lone surrogate) once made the file not well-formed.
import { xmlSafe } from '../../logic/format.js';
import { heatmapGeometry, labelEm } from '../../logic/heatmap/layout.js';
import { rampColors } from '../../logic/heatmap/colors.js';
import { hatchDefs } from './panel.js';
import { svg } from '../base/dom.js';

const INK = '#1d1f24';
const RAMP_STOPS = 24; // the legend's ramp as solid steps: a PNG drawn from the SVG needs no gradient

/**
 * SVG text for one panel: `step` and `panel` (its cells), `scale` (its colour scale), `maskedAt`,
 * `labels` ({ rows, cols }), `title`, and `legend` (colors.js legendNumbers and the ramp: { ramp,
 * numbers: [low, middle or null, high] as text, note, from, to, midAt }).
 */
export function exportSvgText({ step, panel, scale, maskedAt, labels, title, legend }) {
  const big = Math.max(panel.rows, panel.cols) > 32;
  const geometry = heatmapGeometry({ rows: panel.rows, cols: panel.cols, rowLabels: labels.rows.map(xmlSafe), colLabels: labels.cols.map(xmlSafe),
    cell: big ? Math.max(3, Math.floor(640 / Math.max(panel.rows, panel.cols))) : 24, font: 11, labelLength: 16 });
  const { width, height, cell, font } = geometry;
  const picture = svg('svg', { x: 0, y: 0, width, height, viewBox: `0 0 ${width} ${height}` }, hatchDefs('export-hatch'));
  geometry.rowText.forEach((text, r) => {
    if (text) picture.append(svg('text', { x: geometry.left - 5, y: geometry.cellY(r) + cell / 2 + font * 0.35, 'text-anchor': 'end', 'font-size': font, fill: INK }, text));
  });
  geometry.colText.forEach((text, c) => {
    if (!text) return;
    const x = geometry.cellX(c) + cell / 2;
    const y = geometry.top - 5;
    picture.append(svg('text', geometry.rotate
      ? { x, y, 'font-size': geometry.colFont, fill: INK, transform: `rotate(-60 ${x} ${y})` }
      : { x, y, 'font-size': font, fill: INK, 'text-anchor': 'middle' }, text));
  });
  const cells = svg('g', { class: 'cells' });
  const gap = big ? 0 : 1;
  for (let r = 0; r < panel.rows; r++) {
    for (let c = 0; c < panel.cols; c++) {
      const i = panel.offset + r * panel.cols + c;
      const masked = maskedAt(i);
      cells.append(svg('rect', { x: geometry.cellX(c), y: geometry.cellY(r), width: cell - gap, height: cell - gap,
        fill: masked ? 'url(#export-hatch)' : scale.color(step.data[i], r), 'data-r': r, 'data-c': c, 'data-value': step.data[i], 'data-masked': masked ? '1' : null }));
    }
  }
  picture.append(cells);

  // The legend under the cells: the part of the ramp the values reach, in solid steps, a tick
  // where uniform (or 0) is, the numbers at its ends and under the tick, what the middle means.
  const legendTop = height + 8;
  const rampWidth = Math.min(240, Math.max(120, width - 16));
  const colors = rampColors(legend.ramp, RAMP_STOPS, legend.from ?? 0, legend.to ?? 1);
  const ramp = svg('g', { class: 'legend' }, colors.map((color, k) => svg('rect', { x: 8 + (k * rampWidth) / RAMP_STOPS, y: legendTop, width: rampWidth / RAMP_STOPS + 0.5, height: 12, fill: color })));
  const [low, middle, high] = legend.numbers.map((text) => (text === null ? null : xmlSafe(text)));
  ramp.append(svg('text', { x: 8, y: legendTop + 26, 'font-size': 11, fill: INK }, low));
  ramp.append(svg('text', { x: 8 + rampWidth, y: legendTop + 26, 'font-size': 11, fill: INK, 'text-anchor': 'end' }, high));
  let bottom = legendTop + 30;
  if (middle !== null) {
    const x = 8 + rampWidth * (legend.midAt ?? 0.5);
    ramp.append(svg('rect', { x: x - 0.6, y: legendTop - 2, width: 1.2, height: 16, fill: INK }),
      svg('text', { x: Math.min(Math.max(x, 40), 8 + rampWidth - 40), y: legendTop + 40, 'font-size': 11, fill: INK, 'text-anchor': 'middle' }, middle));
    bottom += 14;
  }
  if (legend.note) {
    ramp.append(svg('text', { x: 8, y: bottom + 12, 'font-size': 10, fill: INK }, xmlSafe(legend.note)));
    bottom += 16;
  }

  const safeTitle = xmlSafe(title);
  const textWidth = (text, size) => labelEm(text) * size + 16;
  const outer = Math.ceil(Math.max(width, rampWidth + 16, textWidth(safeTitle, 12), legend.note ? textWidth(xmlSafe(legend.note), 10) : 0));
  const total = bottom + 24;
  const doc = svg('svg', { width: outer * 2, height: total * 2, viewBox: `0 -24 ${outer} ${total}` },
    svg('rect', { x: 0, y: -24, width: outer, height: total, fill: '#ffffff' }),
    svg('text', { x: 4, y: -8, 'font-size': 12, fill: INK, 'font-family': 'sans-serif' }, safeTitle),
    picture, ramp);
  return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
}
