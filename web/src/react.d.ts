// JSX typings for React ('mha-lens/react'): `import 'mha-lens/react'` defines the elements (as
// 'mha-lens/widgets' does) and types them in JSX, attributes, properties (React 19 sets `run`
// and `config` as properties) and the mha-* events (React 19 listens to `onmha-step` as the
// event 'mha-step'). A separate entry, because it needs React's types (@types/react).
import type * as React from 'react';
import type {
  ElementConfig, MhaErrorEvent, MhaHeatmapAttributes, MhaHeatmapElement, MhaPlaygroundAttributes, MhaPlaygroundElement,
  MhaLmAttributes, MhaLmElement, MhaLmReadEvent, MhaLmWalkEvent, MhaRunEvent, MhaSelectEvent, MhaShapesAttributes, MhaShapesElement, MhaStateEvent, MhaStepEvent, MhaTrainDoneEvent,
  MhaTrainerAttributes, MhaTrainerElement, MhaTrainStateEvent, MhaTrainStepEvent, MhaTrainViewEvent, MhaWalkthroughAttributes,
  MhaWalkthroughElement,
} from './mha-lens.js';
import type { Run } from './engine/engine.js';

export * from './mha-lens.js';

/** The events an element fires, as React 19 props (`on` + the event's name). */
interface MhaEventProps {
  'onmha-step'?: (event: MhaStepEvent) => void;
  'onmha-select'?: (event: MhaSelectEvent) => void;
  'onmha-error'?: (event: MhaErrorEvent) => void;
  'onmha-run'?: (event: MhaRunEvent) => void;
}

/** The properties an element has besides its attributes. */
interface MhaRunProps { run?: Run | null; config?: ElementConfig | null }

type Element<E, Attributes> = React.DetailedHTMLProps<React.HTMLAttributes<E>, E> & Attributes & MhaEventProps;

export type MhaWalkthroughProps = Element<MhaWalkthroughElement, MhaWalkthroughAttributes & MhaRunProps & { tokens?: string }>;
export type MhaHeatmapProps = Element<MhaHeatmapElement, MhaHeatmapAttributes & MhaRunProps & { tokens?: string }>;
export type MhaShapesProps = Element<MhaShapesElement, MhaShapesAttributes & MhaRunProps>;
export type MhaPlaygroundProps = Element<MhaPlaygroundElement, MhaPlaygroundAttributes & { 'onmha-state'?: (event: MhaStateEvent) => void }>;
export type MhaTrainerProps = Element<MhaTrainerElement, MhaTrainerAttributes & {
  'onmha-train-step'?: (event: MhaTrainStepEvent) => void;
  'onmha-train-done'?: (event: MhaTrainDoneEvent) => void;
  'onmha-train-view'?: (event: MhaTrainViewEvent) => void;
  'onmha-train-state'?: (event: MhaTrainStateEvent) => void;
}>;

export type MhaLmProps = Element<MhaLmElement, MhaLmAttributes & {
  'onmha-lm-read'?: (event: MhaLmReadEvent) => void;
  'onmha-lm-walk'?: (event: MhaLmWalkEvent) => void;
}>;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'mha-walkthrough': MhaWalkthroughProps;
      'mha-heatmap': MhaHeatmapProps;
      'mha-shapes': MhaShapesProps;
      'mha-playground': MhaPlaygroundProps;
      'mha-trainer': MhaTrainerProps;
      'mha-lm': MhaLmProps;
    }
  }
}
