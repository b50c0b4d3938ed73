// Types for 'mha-lens/react': the React components (MhaWalkthrough, …: camelCase props with JS
// values, onMhaStep-style event props, generated from the attribute table into types/elements.d.ts)
// and the plain elements in React's JSX (their attributes, the data properties React 19 sets as
// properties, and the mha-* events as `onmha-step` props, which React 19 listens to as 'mha-step').
// A separate entry, because it needs React's types (@types/react, an optional peer dependency).
import type * as React from 'react';
import type {
  ElementConfig, MhaHeatmapAttributes, MhaHeatmapElement, MhaHeatmapElementEvents, MhaHeatmapOwnProps, MhaPlaygroundAttributes,
  MhaPlaygroundElement, MhaPlaygroundElementEvents, MhaPlaygroundOwnProps, MhaShapesAttributes, MhaShapesElement, MhaShapesElementEvents,
  MhaShapesOwnProps, MhaTrainerAttributes, MhaTrainerElement, MhaTrainerElementEvents, MhaTrainerOwnProps, MhaWalkthroughAttributes,
  MhaWalkthroughElement, MhaWalkthroughElementEvents, MhaWalkthroughOwnProps, PlaygroundState, TrainerSectionOptions,
} from './mha-lens.js';
import type { Run } from './engine/engine.js';

export { MhaHeatmapElement, MhaRunElement, MhaShapesElement, MhaWalkthroughElement, env, getEngine } from './mha-lens.js';
export type * from './mha-lens.js';

/** The data properties of the elements that take a run or a config (set as properties). */
interface MhaRunProps { run?: Run | null; config?: ElementConfig | null; labels?: string[] | null }

type Host<E> = Omit<React.HTMLAttributes<E>, 'onChange' | 'onSelect'> & React.RefAttributes<E> & { key?: React.Key | null };
type Element<E, Own> = Host<E> & Own;

export type MhaWalkthroughProps = Element<MhaWalkthroughElement, MhaWalkthroughAttributes & MhaWalkthroughElementEvents & MhaRunProps>;
export type MhaHeatmapProps = Element<MhaHeatmapElement, MhaHeatmapAttributes & MhaHeatmapElementEvents & MhaRunProps & { attention?: unknown }>;
export type MhaShapesProps = Element<MhaShapesElement, MhaShapesAttributes & MhaShapesElementEvents & MhaRunProps>;
export type MhaPlaygroundProps = Element<MhaPlaygroundElement, MhaPlaygroundAttributes & MhaPlaygroundElementEvents & { state?: Partial<PlaygroundState> }>;
export type MhaTrainerProps = Element<MhaTrainerElement, MhaTrainerAttributes & MhaTrainerElementEvents & { options?: Partial<TrainerSectionOptions> }>;

/** A component's props: its attributes camelCased (JS values welcome), its events as onMhaStep-style props, and the host's. */
export type MhaWalkthroughComponentProps = Element<MhaWalkthroughElement, MhaWalkthroughOwnProps & MhaRunProps>;
export type MhaHeatmapComponentProps = Element<MhaHeatmapElement, MhaHeatmapOwnProps & MhaRunProps & { attention?: unknown }>;
export type MhaShapesComponentProps = Element<MhaShapesElement, MhaShapesOwnProps & MhaRunProps>;
export type MhaPlaygroundComponentProps = Element<MhaPlaygroundElement, MhaPlaygroundOwnProps & { state?: Partial<PlaygroundState> }>;
export type MhaTrainerComponentProps = Element<MhaTrainerElement, MhaTrainerOwnProps & { options?: Partial<TrainerSectionOptions> }>;

export declare function MhaWalkthrough(props: MhaWalkthroughComponentProps): React.ReactElement;
export declare function MhaHeatmap(props: MhaHeatmapComponentProps): React.ReactElement;
export declare function MhaShapes(props: MhaShapesComponentProps): React.ReactElement;
export declare function MhaPlayground(props: MhaPlaygroundComponentProps): React.ReactElement;
export declare function MhaTrainer(props: MhaTrainerComponentProps): React.ReactElement;

declare module 'react' {
  namespace JSX {
    interface IntrinsicElements {
      'mha-walkthrough': MhaWalkthroughProps;
      'mha-heatmap': MhaHeatmapProps;
      'mha-shapes': MhaShapesProps;
      'mha-playground': MhaPlaygroundProps;
      'mha-trainer': MhaTrainerProps;
    }
  }
}
