// Type declarations for the embeddable widgets (web/dist/mha-lens.js, the bundle of
// web/src/mha-lens.js). Importing the module defines the four custom elements.
import type { Config, Engine, Run, StepId } from './engine/engine.js';

/** Config as an element takes it: the walkthrough's names, plus token labels (they set T). */
export interface ElementConfig extends Partial<Config> {
  tokens?: string | string[];
}

/**
 * Shared by the elements: a run handed in, or their own config, or another element via `for`.
 * Each fires `mha-run` on itself once per new run, whatever its source (an element that follows
 * it hears that); an invalid config fires `mha-error` (bubbling) and shows the engine's message
 * in the element's language.
 */
interface MhaRunElement extends HTMLElement {
  /** The run shown; setting it makes the element stop running a config of its own. */
  run: Run | null;
  /** Runs this config on the page's one engine (instead of the attributes). */
  config: ElementConfig | null;
}

/** <mha-walkthrough from="q" to="q_heads"> or <mha-walkthrough step="scores"> (pinned). */
export class MhaWalkthroughElement extends HTMLElement implements MhaRunElement {
  run: Run | null;
  config: ElementConfig | null;
  tokens: string[] | null;
  /** The step on screen. */
  stepId: StepId | null;
  next(): void;
  prev(): void;
  play(): void;
  pause(): void;
}

/** <mha-heatmap step="weights" batch="0" head="1" only> */
export class MhaHeatmapElement extends HTMLElement implements MhaRunElement {
  run: Run | null;
  config: ElementConfig | null;
  tokens: string[] | null;
  readonly stepId: 'scores' | 'scaled' | 'masked' | 'weights';
  readonly batch: number;
  readonly head: number;
  /** The selected heatmap as a standalone SVG document. */
  exportSvg(): string;
  /** The selected heatmap as a PNG. */
  exportPng(): Promise<Blob>;
}

/** <mha-shapes>: the shape chain X[B,T,C] → … → output[B,T,C]. */
export class MhaShapesElement extends HTMLElement implements MhaRunElement {
  run: Run | null;
  config: ElementConfig | null;
}

/** The page state a playground holds (what the docs page keeps in its URL). */
export interface PlaygroundState {
  tokens: string | null;
  B: number | string | null; Tk: number | string | null; C: number | string | null; H: number | string | null; Hkv: number | string | null;
  mask: 'none' | 'causal'; keyLengths: string;
  /** true/false; text the config reader could not read as either (the engine names it). */
  bias: boolean | string;
  seed: number | string;
  step: StepId; view: 'scores' | 'scaled' | 'masked' | 'weights'; batch: number; head: number;
}

/** <mha-playground>: controls, walkthrough, heatmaps, lessons, mistakes and self-test. */
export class MhaPlaygroundElement extends HTMLElement {
  state: PlaygroundState;
  /** The last valid run. */
  readonly run: Run | null;
  readonly tokens: string[];
}

/** The page's one engine (loaded on first use). */
export function getEngine(options?: { wasmUrl?: string }): Promise<Engine>;

export interface MhaStepEventDetail { step: StepId; index?: number }
export interface MhaSelectEventDetail { step: string; batch: number; head: number }
/** `message` is the English; the element itself shows the message in its own language. */
export interface MhaErrorEventDetail { code: string; field: string; message: string }
export interface MhaRunEventDetail { run: Run; tokens: string[] }

declare global {
  interface HTMLElementTagNameMap {
    'mha-walkthrough': MhaWalkthroughElement;
    'mha-heatmap': MhaHeatmapElement;
    'mha-shapes': MhaShapesElement;
    'mha-playground': MhaPlaygroundElement;
  }
  interface HTMLElementEventMap {
    'mha-step': CustomEvent<MhaStepEventDetail>;
    'mha-select': CustomEvent<MhaSelectEventDetail>;
    'mha-error': CustomEvent<MhaErrorEventDetail>;
    'mha-run': CustomEvent<MhaRunEventDetail>;
  }
}
