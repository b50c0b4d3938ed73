// Pure formatting shared by the CLI and the page: no DOM, no engine.
import { chainSteps } from '../catalogue/steps.js';

/** "[2,4,8]" */
export const shapeText = (shape) => `[${shape.join(',')}]`;

// The steps the chain names as well as shows: attention's own tensors (a tiled run's in place of
// scores … context), then the merged heads and the output (tests/js/catalogue.test.js checks they
// are catalogue ids).
export const NAMED_IN_CHAIN = ['scores', 'tile_scores', 'weights', 'context', 'tile_context', 'concat', 'output'];

/** "[2,4,8] → [2,4,8] → [2,4,2,4] → [2,2,4,4] → scores [2,2,4,4] → ... → output [2,4,8]" */
export function shapeChain(steps) {
  return chainSteps(steps).map((step) => (NAMED_IN_CHAIN.includes(step.id) ? `${step.id} ` : '') + shapeText(step.shape)).join(' → ');
}

/** A value as the CLI and tooltips print it: fixed width, −∞ for masked scores. */
export function formatValue(value, digits = 4) {
  if (value === Number.NEGATIVE_INFINITY) return '-∞';
  if (value === Number.POSITIVE_INFINITY) return '∞';
  if (Number.isNaN(value)) return 'NaN';
  return value.toFixed(digits);
}

// One formatter: toLocaleString builds a new one per call, which was 2 ms of every redraw.
const COUNT_FORMAT = new Intl.NumberFormat('en-US');

/** 1234567 → "1,234,567" */
export const formatCount = (n) => COUNT_FORMAT.format(Math.round(n));

/** Bytes in binary units, as the engine's messages write them. */
export function formatBytes(bytes) {
  if (bytes >= 2 ** 30) return `${(bytes / 2 ** 30).toFixed(2)} GiB`;
  if (bytes >= 2 ** 20) return `${(bytes / 2 ** 20).toFixed(1)} MiB`;
  if (bytes >= 2 ** 10) return `${(bytes / 2 ** 10).toFixed(1)} KiB`;
  return `${bytes} bytes`;
}

/**
 * A tensor laid out by its axes: one block per index of the leading axes, each a matrix of the
 * last two. Returns lines of text.
 */
export function layoutTensor(step, digits = 4) {
  const { shape, axes, data } = step;
  const rank = shape.length;
  const rows = rank >= 2 ? shape[rank - 2] : 1;
  const cols = shape[rank - 1];
  const blockSize = rows * cols;
  const blocks = data.length / blockSize;
  const cells = Array.from(data, (value) => formatValue(value, digits));
  let width = 0; // a loop: spreading 131,072 cells into Math.max overflows the stack
  for (const cell of cells) if (cell.length > width) width = cell.length;
  const rowAxis = rank >= 2 ? axes[rank - 2] : '';
  const lines = [];
  for (let block = 0; block < blocks; block++) {
    if (rank > 2) {
      // The block's index along each leading axis, row-major.
      const index = [];
      let rest = block;
      for (let axis = rank - 3; axis >= 0; axis--) {
        index.unshift(rest % shape[axis]);
        rest = Math.floor(rest / shape[axis]);
      }
      // Indices in lower case (b=0 h=1), the axes they index in their names (Tq × Tk).
      lines.push(`${index.map((i, axis) => `${axes[axis].toLowerCase()}=${i}`).join(' ')}  (${rowAxis} × ${axes[rank - 1]})`);
    }
    for (let r = 0; r < rows; r++) {
      const row = cells.slice(block * blockSize + r * cols, block * blockSize + (r + 1) * cols);
      lines.push(`  ${rowAxis.toLowerCase()}=${String(r).padEnd(3)} ${row.map((cell) => cell.padStart(width)).join(' ')}`);
    }
  }
  return lines;
}

// Characters XML 1.0 cannot hold (C0 controls but tab, newline and return; U+FFFE, U+FFFF) and
// lone surrogates: a token carrying one made the SVG export not well-formed.
const NOT_XML = /[\u0000-\u0008\u000B\u000C\u000E-\u001F\uFFFE\uFFFF]|[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/gu;

/** `text` with every character XML cannot hold replaced by U+FFFD (the replacement character). */
export const xmlSafe = (text) => String(text).replace(NOT_XML, '\uFFFD');
