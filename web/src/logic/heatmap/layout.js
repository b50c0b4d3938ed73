// Geometry of the attention heatmaps: which (batch, head) panels a step has, where each cell and
// token label goes, and which cell a point is over. No DOM: tests/js/heatmap-layout.test.js.

/**
 * One panel per (batch, head) of a [B, H, Tq, Tk] step, in row-major order, with the K/V head it
 * reads (GQA/MQA: H/Hkv query heads share one) and where its values start in `step.data`.
 */
/** Cells drawn at once: beyond this only the selected batch row (then head) is drawn. */
export const MAX_CELLS = 2 ** 18;
/** Panels drawn at once, however small: beyond this only the selected batch row (then head). */
export const MAX_PANELS = 64;
/** The largest panel drawn (cells, and cells along one axis): bigger is refused with its sizes. */
export const MAX_PANEL_CELLS = 2 ** 20;
export const MAX_AXIS = 2048;

/** True when one [rows, cols] panel is small enough to draw (MAX_PANEL_CELLS, MAX_AXIS). */
export const panelFits = (rows, cols) => rows <= MAX_AXIS && cols <= MAX_AXIS && rows * cols <= MAX_PANEL_CELLS;

/**
 * The panels a heatmap draws of `all` ({ b, h }, each `cells` cells): every one, or (past MAX_CELLS
 * or MAX_PANELS, or `only`) the selected batch row's, then only its selected head (`averaged`: one
 * panel a row).
 */
export function panelsDrawn(all, { batch, head, only = false, averaged = false, cells }) {
  const tooMany = (panels) => panels.length * cells > MAX_CELLS || panels.length > MAX_PANELS;
  let panels = only ? all.filter((p) => p.b === batch && (averaged || p.h === head)) : all;
  if (tooMany(panels)) panels = all.filter((p) => p.b === batch);
  if (tooMany(panels)) panels = panels.filter((p) => p.h === head);
  return panels;
}

/**
 * panelsDrawn for a [B, H, Tq, Tk] step without listing its B·H panels first (a file of 65,536 tiny
 * heads makes no 65,536 objects): { panels, total }, each panel as heatmapPanels makes it.
 */
export function panelPlan(shape, Hkv, { batch = 0, head = 0, only = false, averaged = false } = {}) {
  const [B, H, Tq, Tk] = shape;
  const cells = Tq * Tk;
  const group = H / (Hkv || H);
  const make = (b, h) => ({ b, h, kvHead: Math.floor(h / group), offset: (b * H + h) * cells, rows: Tq, cols: Tk });
  const fits = (n) => n * cells <= MAX_CELLS && n <= MAX_PANELS;
  const b = Math.min(Math.max(0, batch), B - 1);
  const h = averaged ? 0 : Math.min(Math.max(0, head), H - 1);
  let panels;
  if (!only && fits(B * H)) panels = Array.from({ length: B * H }, (_, i) => make(Math.floor(i / H), i % H));
  else if ((!only || averaged) && fits(H)) panels = Array.from({ length: H }, (_, k) => make(b, k));
  else panels = [make(b, h)];
  return { panels, total: B * H };
}

export function heatmapPanels(step, Hkv) {
  const [B, H, Tq, Tk] = step.shape;
  const group = H / (Hkv || H);
  const panels = [];
  for (let b = 0; b < B; b++) {
    for (let h = 0; h < H; h++) {
      panels.push({ b, h, kvHead: Math.floor(h / group), offset: (b * H + h) * Tq * Tk, rows: Tq, cols: Tk });
    }
  }
  return panels;
}

/** A token label short enough for an axis: long words are cut with an ellipsis. */
export function shortLabel(token, max = 6) {
  const chars = [...token];
  return chars.length <= max ? token : `${chars.slice(0, max - 1).join('')}…`;
}

// Width of a label in em: CJK characters are about twice as wide as Latin ones.
export const labelEm = (text) => [...text].reduce((sum, ch) => sum + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 1 : 0.6), 0);

// The widest of `labels` in em, at least `least`: a loop, not Math.max(...labels), which overflows
// the call stack for an axis of a few hundred thousand labels.
function widestEm(labels, least) {
  let widest = least;
  for (const label of labels) widest = Math.max(widest, labelEm(label));
  return widest;
}

/**
 * Geometry of one heatmap in SVG user units (CSS pixels when drawn at its own size): a
 * `cell`-sized square per (query, key), query token labels left of the rows, key token labels
 * above the columns (rotated when long). Labels longer than `labelLength` characters are cut with
 * an ellipsis; when cells are smaller than the type, only every `labelStep`-th row and column is
 * labelled (the rest read '' and the hover readout names them).
 */
export function heatmapGeometry({ rows, cols, rowLabels, colLabels, cell = 24, font = 11, labelLength = 6, labelStep }) {
  // Sparse labels get more room than one line of type: rotated ones lean into each other.
  const step = labelStep ?? (cell >= font ? 1 : Math.ceil((1.5 * font) / cell));
  const shown = (labels) => labels.map((label, i) => (i % step === 0 ? shortLabel(label, labelLength) : ''));
  const rowText = shown(rowLabels);
  const colText = shown(colLabels);
  const left = Math.ceil(widestEm(rowText, 1) * font + 8);
  // Column labels that do not fit over their cell (or their stride of cells) are drawn at −60°,
  // in type small enough that neighbours do not touch (their lines are cell · sin 60° apart).
  const colEm = widestEm(colText, 1);
  const rotate = colEm * font > cell * step - 2;
  const colFont = rotate ? Math.max(7, Math.min(font, Math.floor(cell * step * 0.85))) : font;
  const widestCol = colEm * colFont;
  const top = Math.ceil(rotate ? widestCol * 0.87 + 10 : font + 8);
  return {
    rows, cols, cell, font, colFont, left, top, rotate, rowText, colText, labelStep: step,
    // A rotated label leans right, past the last column (from the middle of its cell).
    width: left + cols * cell + (rotate ? Math.max(2, Math.ceil(widestCol * 0.5 - cell / 2 + 2)) : 2),
    height: top + rows * cell + 2,
    cellX: (c) => left + c * cell,
    cellY: (r) => top + r * cell,
  };
}

/** The largest cell, in CSS pixels: bigger only makes the seed example's four tokens sprawl. */
export const MAX_CELL = 40;
/** Cells a small heatmap keeps before panels wrap (two heads side by side on a 360 px phone). */
export const COMFORT_CELL = 12;
/** Labels are shown at their full length up to this many characters unless an author says. */
export const LABEL_LENGTH = 16;

/**
 * The small multiples of one heatmap: how many panels sit side by side in `width` CSS pixels and
 * how big a cell is, so that the grid fills the width. Each panel aims for a cell that keeps a
 * panel's cells about 256 px wide (12 px for the seed example's 4 tokens, 2 px at 128 tokens),
 * as many panels as fit at that size go on a row, and the cell then grows to fill the row (up to
 * MAX_CELL). `cellSize` (an author's `cell-size`) fixes the cell; `labelLength` caps the label
 * length (else LABEL_LENGTH, and labels are cut further only when they would take more than 40%
 * of the width). `frame` is what a panel adds around its picture (border, padding), `gap` the space
 * between two panels; `group` how many panels a batch row has. Returns { columns, cell,
 * labelLength, geometry }.
 */
export function panelGrid({ width, count, group = count, rows, cols, rowLabels, colLabels, cellSize, labelLength, font: largest = 12, frame = 8, gap = 8 }) {
  const room = Math.max(120, width);
  const target = cellSize ?? Math.max(2, Math.min(COMFORT_CELL, Math.floor(256 / Math.max(rows, cols))));
  // Full labels unless they would crowd out the cells: cut to what fits in 40% of the room.
  let length = labelLength ?? LABEL_LENGTH;
  const widest = (n) => widestEm(rowLabels.map((label) => shortLabel(label, n)), 0) * largest;
  while (length > 2 && widest(length) > room * 0.4) length--;
  // Type shrinks with the cells down to 9 px, so that rows of 9–12 px cells keep every label.
  const fontAt = (cell) => Math.max(9, Math.min(largest, cell));
  const geometryAt = (cell) => heatmapGeometry({ rows, cols, rowLabels, colLabels, cell, font: fontAt(cell), labelLength: length });
  const fits = (cell, k) => k * (geometryAt(cell).width + frame) + (k - 1) * gap <= room;
  // Panels come in groups of `group` (one batch row's heads): a row holds part of a group, or
  // whole groups side by side, never one group and a piece of the next.
  const possible = (k) => k <= group || k % group === 0;
  let columns = 1;
  let cell = target;
  for (let k = 2; k <= count; k++) if (possible(k) && fits(target, k)) columns = k;
  // Many big heatmaps on a narrow screen: two side by side at half the cell (an overview of
  // 1 px cells at T = 128 on a phone) rather than a column of a dozen.
  if (columns === 1 && count > 2 && cellSize === undefined && fits(Math.max(1, Math.floor(target / 2)), 2)) {
    columns = 2;
    cell = Math.max(1, Math.floor(target / 2));
  }
  if (cellSize === undefined) {
    // Grow the cell while the row of panels still fits (each step re-measures the labels'
    // overhang, which depends on the cell through the rotation), or shrink it until one fits.
    while (cell < MAX_CELL && fits(cell + 1, columns)) cell++;
    while (cell > 1 && !fits(cell, columns)) cell--;
  }
  return { columns, cell, labelLength: length, geometry: geometryAt(cell) };
}

/** The cell at (x, y) in the geometry's units, or null outside the grid. */
export function hitCell(geometry, x, y) {
  const c = Math.floor((x - geometry.left) / geometry.cell);
  const r = Math.floor((y - geometry.top) / geometry.cell);
  if (x < geometry.left || y < geometry.top || r < 0 || c < 0 || r >= geometry.rows || c >= geometry.cols) return null;
  return { r, c };
}

/** Token labels for the key axis: the query tokens for self-attention, s0… for a separate source. */
export function keyLabels(tokens, Tk, cross) {
  if (!cross && tokens.length === Tk) return tokens;
  return Array.from({ length: Tk }, (_, i) => `s${i}`);
}

/** The (row, column) a keyboard arrow moves to, kept inside the grid. */
export function moveCell({ r, c }, key, rows, cols) {
  const moves = { ArrowUp: [-1, 0], ArrowDown: [1, 0], ArrowLeft: [0, -1], ArrowRight: [0, 1], Home: [0, -cols], End: [0, cols] };
  const [dr, dc] = moves[key] ?? [0, 0];
  return { r: Math.min(rows - 1, Math.max(0, r + dr)), c: Math.min(cols - 1, Math.max(0, c + dc)) };
}

/** Panels up to this many cells are drawn with a canvas pixel block and a gap per cell. */
export const GAPPED_CELLS = 1024;

/**
 * Canvas pixels per cell side: small heatmaps get one `cell`-sized block per cell (with the 1-unit
 * gap the cells have always had), big ones one pixel per cell, scaled up by the browser with
 * `image-rendering: pixelated`, so that a redraw costs one ImageData, not one element per cell.
 */
export const canvasCellPixels = (geometry) => (geometry.rows * geometry.cols <= GAPPED_CELLS ? geometry.cell : 1);

/**
 * An SVG path (in the geometry's units) covering exactly the cells for which `masked(r, c)` is
 * true: one rectangle per run of masked cells in a row, so a causal mask of any size is one
 * element, filled with the hatch. `gap`: the units left open after each cell (1, as the cells
 * have, when they are drawn with gaps; 0 when they are not).
 */
export function maskedPath(geometry, masked, gap = 1) {
  const { rows, cols, cell } = geometry;
  const parts = [];
  for (let r = 0; r < rows; r++) {
    let c = 0;
    while (c < cols) {
      if (!masked(r, c)) { c++; continue; }
      const start = c;
      while (c < cols && masked(r, c)) c++;
      // Same footprint as the cells: the last gap of a run stays open.
      const width = (c - start) * cell - gap;
      parts.push(`M${geometry.cellX(start)} ${geometry.cellY(r)}h${width}v${cell - gap}h${-width}z`);
    }
  }
  return parts.join('');
}

/**
 * The mean over heads of a [B, H, Tq, Tk] step, as a [B, 1, Tq, Tk] step: what PyTorch's
 * nn.MultiheadAttention returns as its weights by default (need_weights=True,
 * average_attn_weights=True), there shaped [B, Tq, Tk]. Masked scores (−∞) stay −∞.
 */
export function averageOverHeads(step) {
  const [B, H, Tq, Tk] = step.shape;
  const block = Tq * Tk;
  const data = new Float32Array(B * block);
  for (let b = 0; b < B; b++) {
    const sums = new Float64Array(block);
    for (let h = 0; h < H; h++) {
      const offset = (b * H + h) * block;
      for (let i = 0; i < block; i++) sums[i] += step.data[offset + i];
    }
    for (let i = 0; i < block; i++) data[b * block + i] = sums[i] / H;
  }
  return { ...step, shape: [B, 1, Tq, Tk], data, averaged: H };
}
