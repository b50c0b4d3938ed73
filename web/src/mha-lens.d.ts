// Type declarations for the embeddable widgets ('mha-lens/widgets': web/src/mha-lens.js, bundled
// into web/dist/mha-lens.js). Importing the module defines the four custom elements (where custom
// elements exist; in Node it defines nothing). JSX typings for React: 'mha-lens/react' (react.d.ts).
// tests/js/package.test.js type-checks a consumer .ts and .tsx file against these with tsc --strict.
import type { Config, Run, StepId } from './engine/engine.js';

export { getEngine } from './engine/engine.js';
export type { Config, Engine, EngineOptions, Run, StepId } from './engine/engine.js';

/** Config as an element takes it: the walkthrough's names, plus token labels (they set T). */
export interface ElementConfig extends Partial<Config> {
  tokens?: string | string[];
}

/** A step <mha-heatmap> draws: the [B, H, Tq, Tk] ones. */
export type HeatmapStepId = 'scores' | 'scaled' | 'masked' | 'weights';

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
export class MhaWalkthroughElement extends MhaRunElement {
  tokens: string[] | null;
  /** The step on screen. */
  stepId: StepId | null;
  next(): void;
  prev(): void;
  play(): void;
  pause(): void;
}

/** <mha-heatmap step="weights" batch="0" head="1" only> */
export class MhaHeatmapElement extends MhaRunElement {
  tokens: string[] | null;
  readonly stepId: HeatmapStepId;
  readonly batch: number;
  readonly head: number;
  /** The selected heatmap as a standalone SVG document. */
  exportSvg(): string;
  /** The selected heatmap as a PNG. */
  exportPng(): Promise<Blob>;
}

/** <mha-shapes>: the shape chain X[B,T,C] → … → output[B,T,C]. */
export class MhaShapesElement extends MhaRunElement {}

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
export class MhaPlaygroundElement extends HTMLElement {
  state: PlaygroundState;
  /** The last valid run. */
  readonly run: Run | null;
  readonly tokens: string[];
}

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

/** An attribute's text, as a framework writes it (numbers are written as text). */
type Text = string | number;

/** The config attributes every element takes (<mha-playground> ignores `t`: its tokens set T). */
export interface MhaConfigAttributes {
  b?: Text; t?: Text; tk?: Text; c?: Text; h?: Text; hkv?: Text;
  mask?: 'none' | 'causal';
  /** Valid key lengths per batch row, "4 2" or "4,2": a padding mask. */
  'key-lengths'?: string;
  bias?: boolean | 'true' | 'false' | 'on' | 'off' | '1' | '0' | '';
  seed?: Text;
  /** One token per whitespace-separated word; sets T. */
  tokens?: string;
  lang?: 'en' | 'zh' | (string & {});
  /** Default: follow the host page (dark colours on a dark page). */
  theme?: 'auto' | 'light' | 'dark';
  /** "none" hides the step select, export buttons, hint and the walkthrough's toolbar. */
  controls?: 'all' | 'none';
  /** Where mha_engine.wasm is (else <meta name="mha-lens:wasm-url">, else beside the engine's JS). */
  'wasm-url'?: string;
  /** Follow the run of the element with this id instead of running a config. */
  for?: string;
}
export interface MhaWalkthroughAttributes extends MhaConfigAttributes { step?: StepId; from?: StepId; to?: StepId }
export interface MhaHeatmapAttributes extends MhaConfigAttributes { step?: HeatmapStepId; batch?: Text; head?: Text; only?: boolean | ''; pinned?: boolean | '' }
export interface MhaShapesAttributes extends MhaConfigAttributes {}
export interface MhaPlaygroundAttributes extends Omit<MhaConfigAttributes, 't' | 'for' | 'controls'> { 'embed-base'?: string }

declare global {
  interface HTMLElementTagNameMap {
    'mha-walkthrough': MhaWalkthroughElement;
    'mha-heatmap': MhaHeatmapElement;
    'mha-shapes': MhaShapesElement;
    'mha-playground': MhaPlaygroundElement;
  }
  interface HTMLElementEventMap {
    'mha-step': MhaStepEvent;
    'mha-select': MhaSelectEvent;
    'mha-error': MhaErrorEvent;
    'mha-run': MhaRunEvent;
    'mha-state': MhaStateEvent;
  }
  /** The events that bubble (composed) reach the document. */
  interface DocumentEventMap {
    'mha-step': MhaStepEvent;
    'mha-select': MhaSelectEvent;
    'mha-error': MhaErrorEvent;
    'mha-state': MhaStateEvent;
  }
}
