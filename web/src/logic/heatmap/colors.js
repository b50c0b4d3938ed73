// Colour scales for the page, chosen to be readable with the common colour-vision deficiencies:
// viridis (perceptually uniform, monotone in lightness) for weights in [0, 1], and a purple–white–
// orange diverging map for signed values (purple/orange stay distinct for red–green deficiencies).
// No DOM: tests/js/colors.test.js checks them.
import { formatValue } from '../format.js';

const VIRIDIS = [
  [68, 1, 84], [72, 36, 117], [65, 68, 135], [53, 95, 141], [42, 120, 142], [33, 145, 140],
  [34, 168, 132], [68, 191, 112], [122, 209, 81], [189, 223, 38], [253, 231, 37],
];

// ColorBrewer PuOr, from −1 (purple) to +1 (orange) through a light neutral at 0.
const BLUE_ORANGE = [[84, 39, 136], [153, 142, 195], [216, 218, 235], [247, 247, 247], [254, 224, 182], [241, 163, 64], [179, 88, 6]];

const clamp01 = (t) => (t < 0 ? 0 : t > 1 ? 1 : t);
const hex = (rgb) => `#${rgb.map((c) => Math.round(c).toString(16).padStart(2, '0')).join('')}`;

function sample(stops, t) {
  const position = clamp01(t) * (stops.length - 1);
  const i = Math.min(Math.floor(position), stops.length - 2);
  const f = position - i;
  return stops[i].map((c, channel) => c + (stops[i + 1][channel] - c) * f);
}

/** viridis(t) for t in [0, 1] as "#rrggbb"; NaN is clamped to the dark end. */
export const viridis = (t) => hex(sample(VIRIDIS, Number.isNaN(t) ? 0 : t));

/** Diverging colour for t in [−1, 1]: 0 is neutral, sign is hue, magnitude is saturation. */
export const diverging = (t) => hex(sample(BLUE_ORANGE, (Number.isNaN(t) ? 0 : t) * 0.5 + 0.5));

/** Relative luminance (WCAG) of "#rrggbb", to pick readable text on a cell. */
export function luminance(color) {
  const [r, g, b] = [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16) / 255)
    .map((c) => (c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4));
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

// Cells are coloured from a table of the ramp (1,025 steps: 0, ½ and 1 fall on entries, and no
// two neighbours differ by more than one unit of a channel), as bytes for ImageData and as text:
// a canvas heatmap colours a few hundred thousand cells per redraw, and interpolating each one
// was most of a T = 128 repaint.
const STEPS = 1024;

function table(stops) {
  const bytes = new Uint8Array((STEPS + 1) * 3);
  const texts = new Array(STEPS + 1);
  for (let i = 0; i <= STEPS; i++) {
    const rgb = sample(stops, i / STEPS).map(Math.round);
    bytes.set(rgb, i * 3);
    texts[i] = hex(rgb);
  }
  return { bytes, texts };
}

const VIRIDIS_TABLE = table(VIRIDIS);
const DIVERGING_TABLE = table(BLUE_ORANGE);

// The table entry of t in [0, 1] (clamped; NaN is 0).
const entry = (t) => (t > 0 ? (t < 1 ? Math.round(t * STEPS) : STEPS) : 0);

// The colour at t of a ramp's table: "#rrggbb", or bytes written into `out` at `at` (r, g, b, 255).
const tableColor = (ramp, t) => ramp.texts[entry(t)];
function sampleInto(ramp, t, out, at) {
  const i = entry(t) * 3;
  out[at] = ramp.bytes[i];
  out[at + 1] = ramp.bytes[i + 1];
  out[at + 2] = ramp.bytes[i + 2];
  out[at + 3] = 255;
}

/**
 * The scale a step's values are drawn with. Weights are probabilities, so [0, 1] on viridis;
 * everything else is signed, so a symmetric range around 0 keeps 0 neutral. −∞ (masked) is not
 * a colour: callers draw it hatched. `color(v)` gives "#rrggbb"; `rgbInto(v, out, at)` writes the
 * same colour as RGBA bytes (for ImageData).
 */
export function scaleFor(step) {
  if (step.op === 'softmax' && !step.id?.startsWith('d_')) { // weights are probabilities; d_masked (softmax's backward) is a gradient
    return { kind: 'sequential', min: 0, max: 1, color: (v) => tableColor(VIRIDIS_TABLE, v),
      rgbInto: (v, out, at) => sampleInto(VIRIDIS_TABLE, v, out, at) };
  }
  let extent = 0;
  for (const value of step.data) if (Number.isFinite(value) && Math.abs(value) > extent) extent = Math.abs(value);
  if (extent === 0) extent = 1;
  const at = (v) => (Number.isNaN(v) ? 0.5 : (v / extent) * 0.5 + 0.5);
  return { kind: 'diverging', min: -extent, max: extent, color: (v) => tableColor(DIVERGING_TABLE, at(v)),
    rgbInto: (v, out, o) => sampleInto(DIVERGING_TABLE, at(v), out, o) };
}

/** The colour scales a heatmap of `step` offers, its default (which shows structure) first. */
export function heatmapScaleKinds(step) {
  // Weights: relative to uniform by default. Seeded weights give near-uniform attention (about
  // 1/Tk everywhere), which a fixed 0–1 scale draws as one flat colour; the deviation from uniform
  // shows which keys a query favours, at any spread.
  return step.op === 'softmax' ? ['uniform', 'head', 'fixed'] : ['shared', 'head'];
}

/**
 * One colour scale per panel of a heatmap: `panels` ({ offset, rows, cols }) of `step`'s data,
 * `kind` one of heatmapScaleKinds(step), `masked(i)` true where the mask hid a key (those cells
 * are hatched, not coloured, and left out of every range; null: nothing is masked).
 *   fixed    weights on viridis from 0 to 1;
 *   head     each panel from its own min to its max (weights, viridis) or ±its largest |value|;
 *   uniform  each weight against the uniform weight of its row (1/n, n the keys the query sees:
 *            Tk without a mask) as a ratio, w·n − 1, on the diverging map, ±the largest ratio
 *            of all the panels, at least ±MIN_UNIFORM_EXTENT (and ±`minExtent`);
 *   shared   signed values, ±the largest |value| of the whole step (0 stays neutral).
 * Each scale: { kind, ramp ('viridis' | 'diverging'), min, max, mid (the neutral value, or null),
 * for uniform also reachedMin, reachedMax (the weights' own range) and floored (the minimum set the range),
 * rowReference (uniform: true, the middle is 1/n of each row), color(v, r), rgbInto(v, out, at, r) }
 * where r is the cell's row in its panel.
 */
export function heatmapScales(step, panels, kind, masked = null, { minExtent = 0 } = {}) {
  const data = step.data;
  // Every scale maps a value v of row r linearly to the ramp: u = v · slope(r) + offset(r), each
  // a number or one per row.
  const linear = (ramp, slope, offset, neutral, extra) => {
    const table = ramp === 'viridis' ? VIRIDIS_TABLE : DIVERGING_TABLE;
    const offsetAt = typeof offset === 'number' ? () => offset : (r) => offset[r];
    const slopeAt = typeof slope === 'number' ? () => slope : (r) => slope[r];
    const at = (v, r) => {
      const u = v * slopeAt(r) + offsetAt(r);
      return u === u ? u : neutral; // NaN (or a row outside the panel): neutral
    };
    return { kind, ramp, slope, offset, neutral, table, ...extra,
      color: (v, r = 0) => tableColor(table, at(v, r)),
      rgbInto: (v, out, o, r = 0) => sampleInto(table, at(v, r), out, o) };
  };
  if (kind === 'uniform') {
    // A weight against its row's uniform weight 1/n, as a ratio: w·n − 1 is 0 at uniform, +1 at
    // twice uniform, −1 at 0, whatever n is, so that a row that sees 2 keys and one that sees 128
    // (a causal mask at T = 128) show their structure alike. One slope on both sides, ±the largest
    // |w·n − 1| of all the panels, but never less than MIN_UNIFORM_EXTENT (nor than `minExtent`,
    // which lets two heatmaps share one scale): the ramp always spans at least 0 to twice uniform,
    // so that near-uniform attention (seeded weights, a head at step 0) looks as pale as its
    // numbers are, and only a head that really favours a few keys reaches the strong colours. The
    // legend draws the part of the ramp from weight 0 to the scale's top (`from`…`to`) and marks
    // the part the weights reach (`reachedFrom`…`reachedTo`).
    const references = panels.map((panel) => uniformReferences(panel, masked));
    const { below, above } = uniformDeviation(data, panels, references, masked);
    const extent = Math.max(below, above, MIN_UNIFORM_EXTENT, Number(minExtent) || 0);
    const half = 0.5 / extent;
    return references.map((reference) => {
      const mid = sameEverywhere(reference);
      // u = 0.5 + (w·n − 1)·half: slope n·half per row, offset 0.5 − half.
      const slopes = reference.map((ref) => (ref > 0 ? half / ref : 0));
      // The legend's numbers: weights when every row has the same 1/n, else multiples of 1/n.
      const value = (ratio) => (mid === null ? ratio : mid * ratio);
      return linear('diverging', slopes, 0.5 - half, 0.5, {
        extent, below, above, from: 0.5 - half, to: 1, reachedFrom: 0.5 - below * half, reachedTo: 0.5 + above * half,
        min: value(0), max: value(1 + extent), reachedMin: value(1 - below), reachedMax: value(1 + above), mid, rowReference: true,
        floored: Math.max(below, above) < extent });
    });
  }
  if (kind === 'fixed' || (kind === 'head' && step.op === 'softmax')) {
    return panels.map((panel) => {
      let [min, max] = kind === 'fixed' ? [0, 1] : rangeOf(panel, data, masked);
      if (!(max > min)) [min, max] = [min - 0.5e-6, min + 0.5e-6];
      return linear('viridis', 1 / (max - min), -min / (max - min), 0, { min, max, mid: null, rowReference: false });
    });
  }
  const symmetric = (extent) => {
    const e = extent > 0 ? extent : 1;
    return linear('diverging', 0.5 / e, 0.5, 0.5, { min: -e, max: e, mid: 0, rowReference: false });
  };
  if (kind === 'head') {
    return panels.map((panel) => {
      const [min, max] = rangeOf(panel, data, masked);
      return symmetric(Math.max(Math.abs(min), Math.abs(max)));
    });
  }
  const shared = symmetric(scaleFor(step).max); // 'shared'
  return panels.map(() => shared);
}

/**
 * Writes the RGBA bytes of one panel's cells (row-major, `bytes` of rows · cols · 4) in its
 * scale's colours, and `masked` cells (masked(i) true) in `maskedRgb`: the same colours as
 * scale.rgbInto, in one tight loop (a T = 128 batch row is 196,608 cells per repaint).
 */
export function paintPanel(scale, data, panel, masked, bytes, maskedRgb) {
  const { slope, offset, neutral, table } = scale;
  const colors = table.bytes;
  const { rows, cols } = panel;
  for (let r = 0, j = panel.offset, o = 0; r < rows; r++) {
    const shift = typeof offset === 'number' ? offset : offset[r];
    const factor = typeof slope === 'number' ? slope : slope[r];
    for (let c = 0; c < cols; c++, j++, o += 4) {
      if (masked !== null && masked(j)) {
        bytes[o] = maskedRgb[0];
        bytes[o + 1] = maskedRgb[1];
        bytes[o + 2] = maskedRgb[2];
      } else {
        let u = data[j] * factor + shift;
        if (u !== u) u = neutral;
        const k = (u > 0 ? (u < 1 ? Math.round(u * STEPS) : STEPS) : 0) * 3;
        bytes[o] = colors[k];
        bytes[o + 1] = colors[k + 1];
        bytes[o + 2] = colors[k + 2];
      }
      bytes[o + 3] = 255;
    }
  }
}

// Calls fn(index in data, row) for every cell of a panel that is not masked (masked: null, none).
function forEachCell(panel, masked, fn) {
  for (let r = 0; r < panel.rows; r++) {
    for (let c = 0; c < panel.cols; c++) {
      const i = panel.offset + r * panel.cols + c;
      if (masked === null || !masked(i)) fn(i, r);
    }
  }
}

function rangeOf(panel, data, masked) {
  let min = Infinity;
  let max = -Infinity;
  forEachCell(panel, masked, (i) => {
    const v = data[i];
    if (!Number.isFinite(v)) return;
    if (v < min) min = v;
    if (v > max) max = v;
  });
  return min <= max ? [min, max] : [0, 0];
}

/**
 * The smallest range of the scale relative to uniform, as |w·n − 1|: 1, from weight 0 to twice
 * uniform. Seeded weights at T = 4 reach about ±0.17 of it, a trained previous-token head 3.
 */
export const MIN_UNIFORM_EXTENT = 1;

/**
 * How far the weights of `panels` stray from their rows' uniform weight, as ratios:
 * { below: the largest 1 − w·n, above: the largest w·n − 1 } (masked cells left out).
 */
export function uniformDeviation(data, panels, references = panels.map((panel) => uniformReferences(panel, null)), masked = null) {
  let below = 0;
  let above = 0;
  panels.forEach((panel, p) => {
    const reference = references[p];
    for (let r = 0, i = panel.offset; r < panel.rows; r++) {
      const n = reference[r] > 0 ? 1 / reference[r] : 0;
      for (let c = 0; c < panel.cols; c++, i++) {
        if (masked !== null && masked(i)) continue;
        const d = data[i] * n - 1;
        if (d < -below) below = -d;
        if (d > above) above = d;
      }
    }
  });
  return { below, above };
}

/** 1/n for each row of a panel: n the keys its query sees (all masked: 0). */
export function uniformReferences(panel, masked = null) {
  const references = new Float64Array(panel.rows);
  for (let r = 0; r < panel.rows; r++) {
    let seen = masked === null ? panel.cols : 0;
    if (masked !== null) for (let c = 0; c < panel.cols; c++) if (!masked(panel.offset + r * panel.cols + c)) seen++;
    references[r] = seen > 0 ? 1 / seen : 0;
  }
  return references;
}

// The one value of an array when all are equal (no mask: 1/Tk for every row), else null.
function sameEverywhere(values) {
  for (let i = 1; i < values.length; i++) if (values[i] !== values[0]) return null;
  return values.length ? values[0] : null;
}

/**
 * Colours of a legend's ramp (n stops) from `from` to `to` (the part of the ramp in use, 0…1):
 * a scale relative to uniform draws only what its weights reach.
 */
export function rampColors(ramp, n = 11, from = 0, to = 1) {
  return Array.from({ length: n }, (_, i) => {
    const u = from + ((to - from) * i) / (n - 1);
    return ramp === 'viridis' ? viridis(u) : diverging(u * 2 - 1);
  });
}

/**
 * A legend's numbers for a panel's scale: [low, middle (or null), high] as text, and a note when
 * the middle differs from row to row (uniform under a mask: 1/n of the keys each query sees).
 */
export function legendNumbers(scale, step, t) {
  const number = (v) => formatValue(v, 3);
  if (scale.kind === 'uniform') {
    // The middle (uniform) sits where it falls between weight 0 and the scale's top; `reached`
    // is the part of the ramp the weights of this view cover, as text and as a fraction of it.
    const span = scale.to - scale.from;
    const at = (u) => (span > 0 ? (u - scale.from) / span : 0.5);
    const reached = { from: at(scale.reachedFrom), to: at(scale.reachedTo) };
    if (scale.mid !== null) {
      return { numbers: [number(scale.min), t('hm.uniformMid', { n: Math.round(1 / scale.mid), v: number(scale.mid) }), number(scale.max)], note: null,
        from: scale.from, to: scale.to, midAt: at(0.5), reached, reachedText: `${number(scale.reachedMin)}–${number(scale.reachedMax)}` };
    }
    const times = (v) => `${formatValue(v, 2)}×`;
    return { numbers: [times(scale.min), '1/n', times(scale.max)], note: t('hm.uniformRows'), from: scale.from, to: scale.to, midAt: at(0.5),
      reached, reachedText: `${times(scale.reachedMin)}–${times(scale.reachedMax)}` };
  }
  if (scale.ramp === 'viridis') return { numbers: [number(scale.min), null, number(scale.max)], note: null, from: 0, to: 1, midAt: 0.5 };
  return { numbers: [number(scale.min), number(0), number(scale.max)], note: null, from: 0, to: 1, midAt: 0.5 };
}

// One colour per axis name (Okabe–Ito palette), the same everywhere on the page. T and Tq are
// the same axis (query positions), so they share a colour.
const AXIS_COLORS = {
  B: '#7a7a7a',
  T: '#0072b2',
  Tq: '#0072b2',
  Tk: '#d55e00',
  C: '#009e73',
  H: '#cc79a7',
  Hkv: '#e69f00',
  D: '#56b4e9',
};

/** The colours of an axis chip: one, or two for a merged axis such as "H·D". */
export function axisColors(name) {
  return name.split('·').map((part) => AXIS_COLORS[part] ?? '#555555');
}
