// Type declarations for the embeddable widgets ('mha-lens/widgets': web/src/mha-lens.js, bundled
// into web/dist/mha-lens.js). Importing the module defines the four custom elements (where custom
// elements exist; in Node it defines nothing). JSX typings for React: 'mha-lens/react' (react.d.ts).
// tests/js/package.test.js type-checks a consumer .ts and .tsx file against these with tsc --strict.
import type { Config, HeadScore, Run, StepId, TaskInfo, TaskName } from './engine/engine.js';

export { env, getEngine } from './engine/engine.js';
export type { Config, Engine, EngineOptions, Run, StepId } from './engine/engine.js';

/** Config as an element takes it: the walkthrough's names, plus token labels (they set T). */
export interface ElementConfig extends Partial<Config> {
  tokens?: string | string[];
}

import type {
  HeatmapStepId, MhaHeatmapProperties, MhaPlaygroundProperties, MhaShapesProperties, MhaTrainerProperties, MhaWalkthroughProperties,
} from './types/elements.js';

// Each element's attributes, its same-named properties and its React component's props, generated
// from the one attribute table (scripts/generate_element_types.js).
export type * from './types/elements.js';

/**
 * What <mha-walkthrough>, <mha-heatmap> and <mha-shapes> extend: a run handed in, or their own
 * config, or another element via `for`. Each fires `mha-run` on itself once per new run, whatever
 * its source (an element that follows it hears that); an invalid config fires `mha-error`
 * (bubbling) and shows the engine's message in the element's language.
 */
export abstract class MhaRunElement extends HTMLElement {
  /** The run shown; setting it makes the element stop running a config of its own. */
  run: Run | null;
  /** Runs this config on the page's one engine (instead of the attributes). */
  config: ElementConfig | null;
  /** Warns in the console about attributes the element does not take (done on every new run). */
  checkAttributes(): void;
}

/** <mha-walkthrough from="q" to="q_heads"> or <mha-walkthrough step="scores"> (pinned). */
export interface MhaWalkthroughElement extends MhaWalkthroughProperties {}
export class MhaWalkthroughElement extends MhaRunElement {
  /** Token labels for the captions, without a new run (the tokens attribute and property run again). */
  labels: string[] | null;
  /** The step on screen. */
  stepId: StepId | null;
  next(): void;
  prev(): void;
  play(): void;
  pause(): void;
}

/** <mha-heatmap step="weights" batch="0" head="1" only> */
export interface MhaHeatmapElement extends MhaHeatmapProperties {}
export class MhaHeatmapElement extends MhaRunElement {
  /** Token labels, without a new run (the tokens attribute and property run again). */
  labels: string[] | null;
  readonly stepId: HeatmapStepId;
  /** The panel drawn as selected: the batch and head attributes when this run has them, else 0. */
  readonly selected: { batch: number; head: number };
  /** The colour scale drawn: the scale attribute if the step offers it, else the step's default. */
  readonly scaleShown: 'uniform' | 'head' | 'fixed' | 'shared' | null;
  /** Precomputed attention to draw instead of a run. */
  attention: unknown;
  /**
   * The least range of the colour scale relative to uniform, as the largest |w·n − 1| it spans
   * (never below 1: weight 0 to twice uniform). Heatmaps given the same one share a scale.
   */
  minExtent: number;
  /**
   * What the note over the weights says the run's X and weights are; null: seeded X, and seeded
   * weights while `seeded` is true.
   */
  origin: { x: 'seeded' | 'model'; weights: 'seeded' | 'pasted' | 'trained'; layer?: number; step?: number } | null;
  /** The selected heatmap as a standalone SVG document. */
  exportSvg(): string;
  /** The selected heatmap as a PNG. */
  exportPng(): Promise<Blob>;
}

/** <mha-shapes>: the shape chain X[B,T,C] → … → output[B,T,C]. */
export interface MhaShapesElement extends MhaShapesProperties {}
export class MhaShapesElement extends MhaRunElement {
  /** The token labels of its run. */
  readonly labels: string[] | null;
}

/** The page state a playground holds (what the docs page keeps in its URL). */
export interface PlaygroundState {
  tokens: string | null;
  B: number | string | null; Tk: number | string | null; C: number | string | null; H: number | string | null; Hkv: number | string | null;
  mask: 'none' | 'causal'; keyLengths: string;
  /** true/false; text the config reader could not read as either (the engine names it). */
  bias: boolean | string;
  seed: number | string;
  step: StepId; view: HeatmapStepId; batch: number; head: number;
}

/** <mha-playground>: controls, walkthrough, heatmaps, lessons, mistakes and self-test. */
export interface MhaPlaygroundElement extends MhaPlaygroundProperties {}
export class MhaPlaygroundElement extends HTMLElement {
  state: PlaygroundState;
  /** The last valid run. */
  readonly run: Run | null;
  /** The token labels of that run. */
  readonly labels: string[];
  /** Its titled sections in page order ('controls', 'shapes', 'walkthrough', 'heatmaps', …). */
  readonly chapters: { id: string; title: string; section: HTMLElement }[];
  /** Scrolls to a chapter and focuses its heading; false when there is no such chapter. */
  goTo(id: string): boolean;
  /** Shows a step in the walkthrough and goes there; false when the run has no such step. */
  goToStep(id: StepId): boolean;
  /** Moves to the walkthrough and focuses its current step. */
  focusWalkthrough(): void;
}

/** <mha-trainer>'s options: each within the ranges its controls offer. */
export interface TrainerSectionOptions {
  task: TaskName;
  layers: 1 | 2 | 3;
  heads: 1 | 2 | 4;
  lr: 0.0003 | 0.001 | 0.003 | 0.005 | 0.01 | 0.03;
  dropout: 0 | 0.1 | 0.2 | 0.3 | 0.5;
  /** 0 … 2³²−1 */
  seed: number;
}

/** What the docs page keeps in its URL: the options, the probe (null: the task's example), step 0 beside now. */
export interface TrainerSectionState {
  options: TrainerSectionOptions;
  probe: string | null;
  compare: boolean;
}

/**
 * <mha-trainer task="induction" trained>: a tiny transformer trained on the page (in a Web
 * Worker), its curves, and its heads over a probe labelled with their measured job scores.
 */
export interface MhaTrainerElement extends MhaTrainerProperties {}
export class MhaTrainerElement extends HTMLElement {
  /** Setting lr or dropout trains on with them; any other option makes a new model. */
  options: Partial<TrainerSectionOptions>;
  state: Partial<TrainerSectionState>;
  /** The probe's tokens; set an array or text ("3 1 4 …"). */
  probe: number[] | string | null;
  /** Random vs trained: each head at step 0 beside now. */
  compare: boolean;
  readonly step: number;
  readonly running: boolean;
  /** Where training runs: a Web Worker, or (when none could start) the page's own thread. */
  readonly mode: 'worker' | 'page' | null;
  /** The task as the engine describes it, once the model is open (the task attribute and property name it). */
  readonly taskInfo: TaskInfo | null;
  readonly headScores: HeadScore[] | null;
  readonly losses: number[];
  /** Resolves once the first model is open and drawn. */
  readonly ready: Promise<void>;
  /** Trains to the task's length (or as many steps again); fires mha-train-done. */
  train(): void;
  pause(): void;
  /** One training step, then every map redrawn. */
  trainStep(): void;
  /** Back to step 0 with the same options. */
  reset(): void;
  /** One layer's block over the probe as a walkthrough run; with `backward`, the d_ steps too. */
  blockRun(options?: { layer?: number; backward?: boolean }): Promise<{ run: Run; tokens: number[]; step: number; layers: number }>;
}

export interface MhaTrainStepEventDetail { step: number; loss: number; accuracy: number }
export interface MhaTrainDoneEventDetail { step: number; loss: number; accuracy: number; evaluation: { loss: number; accuracy: number; sequences: number } }
export interface MhaTrainViewEventDetail { step: number }
export interface MhaTrainStateEventDetail { state: TrainerSectionState }
/** A chunk of training steps was taken: bubbles, composed. */
export type MhaTrainStepEvent = CustomEvent<MhaTrainStepEventDetail>;
/** Train reached its step count (accuracy on 512 fresh sequences): bubbles, composed. */
export type MhaTrainDoneEvent = CustomEvent<MhaTrainDoneEventDetail>;
/** The heads were redrawn: bubbles, composed. */
export type MhaTrainViewEvent = CustomEvent<MhaTrainViewEventDetail>;
/** The learner changed an option, the probe or the view: bubbles, composed. */
export type MhaTrainStateEvent = CustomEvent<MhaTrainStateEventDetail>;

export interface MhaStepEventDetail { step: StepId; index?: number }
export interface MhaSelectEventDetail { step: HeatmapStepId; batch: number; head: number }
/** `message` is the English; the element itself shows the message in its own language. */
export interface MhaErrorEventDetail { code: string; field: string; message: string }
export interface MhaRunEventDetail { run: Run; tokens: string[] }
/** <mha-playground>'s state after every change (the docs page keeps its URL with it). */
export interface MhaStateEventDetail { state: PlaygroundState }

/** A step was chosen (walkthrough, shape chain): bubbles, composed. */
export type MhaStepEvent = CustomEvent<MhaStepEventDetail>;
/** A heatmap step, batch row or head was chosen: bubbles, composed. */
export type MhaSelectEvent = CustomEvent<MhaSelectEventDetail>;
/** A config could not be used, or the engine did not load: bubbles, composed. */
export type MhaErrorEvent = CustomEvent<MhaErrorEventDetail>;
/** A new run, once per run, on the element itself (does not bubble). */
export type MhaRunEvent = CustomEvent<MhaRunEventDetail>;
/** The playground's state changed: bubbles, composed. */
export type MhaStateEvent = CustomEvent<MhaStateEventDetail>;

declare global {
  interface HTMLElementTagNameMap {
    'mha-walkthrough': MhaWalkthroughElement;
    'mha-heatmap': MhaHeatmapElement;
    'mha-shapes': MhaShapesElement;
    'mha-playground': MhaPlaygroundElement;
    'mha-trainer': MhaTrainerElement;
  }
  interface HTMLElementEventMap {
    'mha-step': MhaStepEvent;
    'mha-select': MhaSelectEvent;
    'mha-error': MhaErrorEvent;
    'mha-run': MhaRunEvent;
    'mha-state': MhaStateEvent;
    'mha-train-step': MhaTrainStepEvent;
    'mha-train-done': MhaTrainDoneEvent;
    'mha-train-view': MhaTrainViewEvent;
    'mha-train-state': MhaTrainStateEvent;
  }
  /** The events that bubble (composed) reach the document. */
  interface DocumentEventMap {
    'mha-step': MhaStepEvent;
    'mha-select': MhaSelectEvent;
    'mha-error': MhaErrorEvent;
    'mha-state': MhaStateEvent;
    'mha-train-step': MhaTrainStepEvent;
    'mha-train-done': MhaTrainDoneEvent;
    'mha-train-view': MhaTrainViewEvent;
    'mha-train-state': MhaTrainStateEvent;
  }
}
