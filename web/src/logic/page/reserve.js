// How tall an element will be once its run arrives, from its config alone: the elements reserve
// this much while the engine loads, so that the text after them does not jump when they fill in
// (cumulative layout shift). An estimate in the elements' own units (em, at the element's font
// size) from the same geometry they draw with; tests/js/reserve.test.js holds the step table
// below to the engine's catalogue, and tests/browser/host-pages.test.js measures the shift. No DOM.
import { STEPS } from '../../catalogue/catalogue.js';
import { axisName, axisSize } from '../../catalogue/step-text.js';
import { heatmapGeometry, keyLabels, panelsDrawn } from '../heatmap/layout.js';
import { MAX_PICTURE_CELLS, pictureLayout } from '../walkthrough/tensor-picture.js';

// The forward pass's steps in walkthrough order (the catalogue's), with when each appears.
const FORWARD = STEPS.filter((entry) => entry.pass === 'forward' && entry.algorithms.includes('naive'));

const whole = (value, fallback) => (Number.isInteger(value) && value > 0 ? value : fallback);

/** The sizes a config gives, with the engine's defaults (Tk = T, Hkv = H). */
export function sizesOf(config) {
  const B = whole(config.B, 2);
  const T = whole(config.T, 4);
  const H = whole(config.H, 2);
  const Tk = whole(config.Tk, T);
  const Hkv = whole(config.Hkv, H);
  const C = whole(config.C, 8);
  const D = Math.max(1, Math.floor(C / H));
  return { B, T, Tk, C, H, Hkv, D, cross: Tk !== T || config.kv != null, grouped: Hkv < H };
}

/** The steps a run of `config` has: [{ id, axes, shape }]. */
export function stepsOf(config) {
  const sizes = sizesOf(config);
  const summary = { ...sizes, tiles: null };
  return FORWARD.filter(({ when }) => when === 'always' || (when === 'cross' && sizes.cross) || (when === 'grouped' && sizes.grouped))
    .map(({ id, axes }) => ({ id, axes: axes.split(',').map((symbol) => axisName(symbol, summary)), shape: axes.split(',').map((symbol) => axisSize(symbol, summary)) }));
}

// The steps a walkthrough shows: pinned to one, a from…to range, or all (as mha-walkthrough reads them).
function visibleSteps(steps, { step, from, to }) {
  const ids = steps.map((s) => s.id);
  if (step && ids.includes(step)) return steps.filter((s) => s.id === step);
  const start = ids.indexOf(from);
  const end = ids.indexOf(to);
  const range = steps.slice(start >= 0 ? start : 0, end >= 0 ? end + 1 : steps.length);
  return range.length ? range : steps;
}


// The tensor picture of a step (mha-walkthrough's #picture), in em, at `widthEm` wide at most.
function pictureHeight(step, tokens, widthEm) {
  const numel = step.shape.reduce((a, b) => a * b, 1);
  if (numel > MAX_PICTURE_CELLS) return 2.2;
  const layout = pictureLayout(step.shape, step.axes);
  const stacked = step.shape.length === 4 && !['H', 'Hkv'].includes(step.axes[2]);
  const rowAxis = stacked ? step.axes[2] : step.axes[1];
  const labelled = tokens?.length > 0 && ['T', 'Tq', 'Tk'].includes(rowAxis);
  const viewWidth = layout.width * 10 + (labelled ? 36 : 14) + 14;
  const viewHeight = layout.height * 10 + 18;
  return (Math.min(widthEm, viewWidth * 0.17) * viewHeight) / viewWidth + 1.35 + 1.2;
}

// Lines that `chars` characters of body text take in `widthEm` (about 0.5 em a Latin letter, 1 em
// a Chinese character).
const lines = (chars, widthEm, lang) => Math.max(1, Math.ceil((chars * (lang === 'zh' ? 1 : 0.5)) / Math.max(widthEm, 1)));

const LINE = 1.5; // line height, em

/** <mha-walkthrough>: in px, for a content width of `width` px at `em` px per em. */
export function walkthroughHeight({ config, tokens, attributes = {}, width, em = 15, lang = 'en' }) {
  const steps = visibleSteps(stepsOf(config), attributes);
  const widthEm = width / em;
  const narrow = width <= 640; // mha-walkthrough's @container (max-width: 640px)
  const withList = steps.length > 1;
  const detailWidth = narrow || !withList ? widthEm : widthEm - 17;
  // Heading, formula, numbers, shape and memory layout; the toolbar wraps in a narrow column.
  const toolbar = withList && attributes.controls !== 'none' ? (detailWidth < 30 ? 4.1 : 2.3) : 0;
  const answers = lang === 'zh' ? (detailWidth >= 26 ? 6.9 : 11.7) : (detailWidth >= 40 ? 6.9 : 13.3);
  const detail = toolbar + 11.3 + answers + pictureHeight(steps[0], tokens, detailWidth);
  if (!withList) return Math.round(detail * em);
  if (narrow) return Math.round((4.9 + detail) * em);
  // Beside the text: one button per step, two lines for the longer English titles.
  const perStep = lang === 'zh' ? 2.16 : 2.84;
  return Math.round(Math.max(steps.length * perStep, detail) * em);
}

/** <mha-heatmap>: its heatmaps as it draws them (heatmapGeometry), wrapped into `width` px. */
export function heatmapHeight({ config, tokens, attributes = {}, width, em = 15, lang = 'en' }) {
  const { B, T, Tk, H, Hkv, cross } = sizesOf(config);
  const rows = tokens?.length === T ? tokens : Array.from({ length: T }, (_, i) => `t${i}`);
  const geometry = heatmapGeometry({ rows: T, cols: Tk, rowLabels: rows, colLabels: keyLabels(rows, Tk, cross) });
  const widthEm = width / em;
  // A panel: the picture at 0.08 em per unit (never wider than the column), its caption, padding.
  // (its width is set on the figure, padding and border included)
  const panelWidth = Math.min(geometry.width * 0.08, widthEm);
  const panelHeight = (panelWidth - 0.77) * (geometry.height / geometry.width) + 1.28 + 0.77;
  // The panels the element draws, by its own rule, for the first batch row and head.
  const all = Array.from({ length: B * H }, (_, i) => ({ b: Math.floor(i / H), h: i % H }));
  const drawn = panelsDrawn(all, { batch: 0, head: 0, only: attributes.only != null, cells: T * Tk });
  const batches = new Set(drawn.map((p) => p.b)).size;
  const heads = drawn.length / batches;
  const shared = Hkv < H && heads > 1;
  const groups = shared ? Hkv : 1;
  const perGroup = Math.ceil(heads / groups);
  const groupInner = shared ? widthEm - 1.1 : widthEm;
  const perRow = Math.max(1, Math.floor((groupInner + 0.5) / (panelWidth + 0.5)));
  const groupHeight = Math.ceil(perGroup / perRow) * (panelHeight + 0.5) - 0.5 + (shared ? 2.0 : 0);
  const groupWidth = Math.min(perGroup, perRow) * (panelWidth + 0.5) - 0.5 + (shared ? 1.1 : 0);
  const groupsPerRow = Math.max(1, Math.floor((widthEm + 0.6) / (groupWidth + 0.6)));
  const batchHeight = 1.4 + 0.7 + Math.ceil(groups / groupsPerRow) * (groupHeight + 0.6) - 0.6;
  const controls = attributes.controls !== 'none';
  const bar = controls ? (widthEm >= 56 ? 2.3 : widthEm >= 30 ? 4.6 : 6.5) * (lang === 'zh' && widthEm >= 40 ? 0.5 : 1) : 0;
  const readout = controls ? lines(lang === 'zh' ? 40 : 118, widthEm, lang) * LINE * 0.95 + 0.2 : 0;
  return Math.round((bar + 0.5 + batches * batchHeight + readout + 2.85) * em);
}

/** <mha-shapes>: ten shapes as chips, about 16 em each, wrapped into `width` px. */
export function shapesHeight({ config, width, em = 15 }) {
  const { grouped } = sizesOf(config);
  const items = grouped ? 10 : 10;
  const perRow = Math.max(1, Math.floor(width / em / 16.3));
  return Math.round(Math.ceil(items / perRow) * 3.7 * em);
}

/** The height to reserve for the element `tag` ('mha-walkthrough', 'mha-heatmap', 'mha-shapes'), in px. */
export function reservedHeight(tag, input) {
  if (tag === 'mha-walkthrough') return walkthroughHeight(input);
  if (tag === 'mha-heatmap') return heatmapHeight(input);
  if (tag === 'mha-shapes') return shapesHeight(input);
  return 0;
}
