// Colour scales for the page, chosen to be readable with the common colour-vision deficiencies:
// viridis (perceptually uniform, monotone in lightness) for weights in [0, 1], and a purple–white–
// orange diverging map for signed values (purple/orange stay distinct for red–green deficiencies).
// No DOM: tests/js/colors.test.js checks them.

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

// The same colour as sample() + hex(), written as bytes into `out` at `at` (r, g, b, 255) without
// allocating: a canvas heatmap colours up to a few hundred thousand cells per redraw.
function sampleInto(stops, t, out, at) {
  const position = clamp01(t) * (stops.length - 1);
  const i = Math.min(Math.floor(position), stops.length - 2);
  const f = position - i;
  const a = stops[i];
  const b = stops[i + 1];
  out[at] = Math.round(a[0] + (b[0] - a[0]) * f);
  out[at + 1] = Math.round(a[1] + (b[1] - a[1]) * f);
  out[at + 2] = Math.round(a[2] + (b[2] - a[2]) * f);
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
    return { kind: 'sequential', min: 0, max: 1, color: (v) => viridis(v),
      rgbInto: (v, out, at) => sampleInto(VIRIDIS, Number.isNaN(v) ? 0 : v, out, at) };
  }
  let extent = 0;
  for (const value of step.data) if (Number.isFinite(value) && Math.abs(value) > extent) extent = Math.abs(value);
  if (extent === 0) extent = 1;
  return { kind: 'diverging', min: -extent, max: extent, color: (v) => diverging(v / extent),
    rgbInto: (v, out, at) => sampleInto(BLUE_ORANGE, (Number.isNaN(v) ? 0 : v / extent) * 0.5 + 0.5, out, at) };
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
