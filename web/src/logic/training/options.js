// The trainer section's options: the model each task gets on the page, the ranges its controls
// offer, reading them from attributes or the URL, and which options a committed checkpoint was
// trained with (so that the section can open trained). No DOM, no engine.
// The committed checkpoints (web/checkpoints/, copied into dist/ by the build) and what each holds.
import MANIFEST from '../../../dist/checkpoints/manifest.json' with { type: 'json' };

const CHECKPOINTS = MANIFEST.checkpoints;

export const TASKS = ['reverse', 'sort', 'previous', 'induction'];

/**
 * Each task's model on the page: the engine's defaults (README "Training"), except sort, whose
 * default model (width 64) has a 1.8 MB checkpoint and takes tens of seconds to find its heads;
 * width 16 with lr 5e-3 reaches 99% in about 1,000 steps with an answer head above the task's
 * target (0.45). `steps` is how far Train goes (and where each checkpoint was saved); heads are
 * redrawn every `redraw` steps.
 */
export const PRESETS = {
  reverse: { layers: 1, heads: 1, width: 32, lr: 0.003, steps: 400, redraw: 10 },
  sort: { layers: 3, heads: 1, width: 16, lr: 0.005, steps: 1000, redraw: 20 },
  previous: { layers: 1, heads: 1, width: 32, lr: 0.003, steps: 400, redraw: 10 },
  induction: { layers: 2, heads: 1, width: 32, lr: 0.003, steps: 1000, redraw: 20 },
};

export const DEFAULT_TASK = 'induction';

/** What the controls offer: small enough that a phone trains at a few steps per frame. */
export const RANGES = {
  layers: [1, 2, 3],
  heads: [1, 2, 4], // each divides every preset width
  lr: [0.0003, 0.001, 0.003, 0.005, 0.01, 0.03],
  dropout: [0, 0.1, 0.2, 0.3, 0.5],
};

export const SEED_MAX = 2 ** 32 - 1;

/** The options of a section: { task, layers, heads, lr, dropout, seed }, each defaulted. */
export function defaultOptions(task = DEFAULT_TASK) {
  const preset = PRESETS[task] ?? PRESETS[DEFAULT_TASK];
  return { task: PRESETS[task] ? task : DEFAULT_TASK, layers: preset.layers, heads: preset.heads, lr: preset.lr, dropout: 0, seed: 0 };
}

const wholeIn = (list) => (text) => {
  const value = Number(String(text ?? '').trim());
  return list.includes(value) ? value : null;
};

// How each option's text is read: a value outside the offered ranges is not taken (the caller
// reports it and keeps the default), so a link can never start an unsafe model.
const READERS = {
  task: (text) => (TASKS.includes(String(text ?? '').trim()) ? String(text).trim() : null),
  layers: wholeIn(RANGES.layers),
  heads: wholeIn(RANGES.heads),
  lr: wholeIn(RANGES.lr),
  dropout: wholeIn(RANGES.dropout),
  seed: (text) => {
    const trimmed = String(text ?? '').trim();
    const value = Number(trimmed);
    return /^\d+$/.test(trimmed) && value <= SEED_MAX ? value : null;
  },
};

export const OPTION_NAMES = Object.keys(READERS);

/**
 * Options from text (attributes or URL parameters): `read(name)` gives an option's text or null.
 * The task comes first (the others default to its preset). Returns { options, rejected: [{ name,
 * value, accepted }] } for the values that were given but not taken.
 */
export function readOptions(read) {
  const rejected = [];
  const take = (name) => {
    const text = read(name);
    if (text === null || text === undefined) return null;
    const value = READERS[name](text);
    if (value === null) rejected.push({ name, value: String(text), accepted: acceptedText(name) });
    return value;
  };
  const options = defaultOptions(take('task') ?? DEFAULT_TASK);
  for (const name of OPTION_NAMES.slice(1)) {
    const value = take(name);
    if (value !== null) options[name] = value;
  }
  return { options, rejected };
}

function acceptedText(name) {
  if (name === 'task') return TASKS.join(', ');
  if (name === 'seed') return `0 … ${SEED_MAX}`;
  return RANGES[name].join(', ');
}

/** The options the engine's trainer takes for these section options. */
export function engineOptions({ task, layers, heads, lr, dropout, seed }) {
  return { task, layers, heads, width: PRESETS[task].width, lr, dropout, seed };
}

/**
 * The committed checkpoint these options open from, or null: the task's, when layers, heads and
 * seed are those it was trained with. Learning rate and dropout do not change what a model is (the
 * trainer takes them on from its next step), so they do not matter here.
 */
export function checkpointFor(options) {
  const entry = CHECKPOINTS[options.task];
  if (!entry) return null;
  const { layers, heads, seed } = entry.options;
  return options.layers === layers && options.heads === heads && options.seed === seed ? entry : null;
}

/** True when `a` and `b` are the same model from step 0 (all but lr and dropout agree). */
export const sameModel = (a, b) => a.task === b.task && a.layers === b.layers && a.heads === b.heads && a.seed === b.seed;
