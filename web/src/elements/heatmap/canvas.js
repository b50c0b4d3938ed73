// A heatmap's pixels: one panel's cells painted into its canvas, and an exported heatmap (a
// standalone SVG of rects and text) drawn into a PNG.
import { paintPanel } from '../../logic/heatmap/colors.js';

const MASKED_GROUND = [232, 232, 232]; // the hatch's light ground (#e8e8e8), under the hatch path

/**
 * Paints one panel's cells into its canvas: a pixel block with a one-unit gap per cell for small
 * panels, one pixel per cell (one ImageData) for big ones. `scale` is the panel's colour scale
 * (logic/heatmap/colors.js heatmapScales): it takes each cell's row, for a scale relative to each row.
 * `maskedAt(i)` is true for a masked cell (null: nothing is masked).
 */
export function paintCells(canvas, data, panel, geometry, scale, maskedAt) {
  const ctx = canvas.getContext('2d');
  const pixels = canvas.width / panel.cols;
  if (pixels === 1) {
    const image = ctx.createImageData(panel.cols, panel.rows);
    paintPanel(scale, data, panel, maskedAt, image.data, MASKED_GROUND);
    ctx.putImageData(image, 0, 0);
    return;
  }
  const gap = pixels / geometry.cell;
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  for (let r = 0; r < panel.rows; r++) {
    for (let c = 0; c < panel.cols; c++) {
      const i = panel.offset + r * panel.cols + c;
      ctx.fillStyle = maskedAt?.(i) ? '#e8e8e8' : scale.color(data[i], r);
      ctx.fillRect(c * pixels, r * pixels, pixels - gap, pixels - gap);
    }
  }
}

/**
 * A heatmap's standalone SVG (rects and text only, as MhaHeatmapElement.exportSvg writes it) as a
 * PNG at twice its size, drawn on a canvas shape by shape: no blob: image, so it works on host
 * pages whose CSP allows images from 'self' only. Masked cells (a pattern fill) get the hatch.
 */
export function svgToPng(svgText) {
  const doc = new DOMParser().parseFromString(svgText, 'image/svg+xml').documentElement;
  // Not an SVG (a file that is not well-formed parses to an error document): nothing to draw.
  if (doc.localName !== 'svg' || !doc.hasAttribute('viewBox')) return Promise.reject(new Error('not a well-formed SVG'));
  const [x0, y0, width, height] = doc.getAttribute('viewBox').split(' ').map(Number);
  const scale = 2;
  const canvas = document.createElement('canvas');
  canvas.width = Math.ceil(width * scale);
  canvas.height = Math.ceil(height * scale);
  const ctx = canvas.getContext('2d');
  ctx.scale(scale, scale);
  ctx.translate(-x0, -y0);
  const number = (node, name) => Number(node.getAttribute(name) ?? 0);
  for (const node of doc.querySelectorAll('rect, text')) {
    if (node.closest('defs')) continue;
    const fill = node.getAttribute('fill') ?? '#000000';
    if (node.localName === 'rect') {
      const [x, y, w, h] = ['x', 'y', 'width', 'height'].map((name) => number(node, name));
      if (fill === 'none') continue;
      if (fill.startsWith('url(')) {
        // The hatch of a masked cell: light ground, dark diagonals.
        ctx.save();
        ctx.fillStyle = '#e8e8e8';
        ctx.fillRect(x, y, w, h);
        ctx.beginPath();
        ctx.rect(x, y, w, h);
        ctx.clip();
        ctx.strokeStyle = '#444444';
        ctx.lineWidth = 1.4;
        for (let d = -h; d < w; d += 5) {
          ctx.moveTo(x + d, y + h);
          ctx.lineTo(x + d + h, y);
        }
        ctx.stroke();
        ctx.restore();
      } else {
        ctx.fillStyle = fill;
        ctx.fillRect(x, y, w, h);
      }
    } else {
      ctx.save();
      ctx.fillStyle = fill;
      ctx.font = `${number(node, 'font-size') || 11}px system-ui, "Noto Sans CJK SC", sans-serif`;
      ctx.textAlign = { end: 'right', middle: 'center' }[node.getAttribute('text-anchor')] ?? 'left';
      const rotate = /rotate\((-?[\d.]+) ([\d.]+) ([\d.]+)\)/.exec(node.getAttribute('transform') ?? '');
      if (rotate) {
        ctx.translate(Number(rotate[2]), Number(rotate[3]));
        ctx.rotate((Number(rotate[1]) * Math.PI) / 180);
        ctx.translate(-Number(rotate[2]), -Number(rotate[3]));
      }
      ctx.fillText(node.textContent, number(node, 'x'), number(node, 'y'));
      ctx.restore();
    }
  }
  return new Promise((resolve) => canvas.toBlob(resolve, 'image/png'));
}
