// 'mha-lens/react': React components for the elements (MhaWalkthrough, MhaHeatmap, MhaShapes,
// MhaPlayground, MhaTrainer), and the elements themselves, defined as 'mha-lens/widgets' defines
// them. A component takes each attribute as a prop (camelCase: keyLengths, cellSize; numbers,
// booleans and arrays as JS values) and each event as onMhaStep-style props; it renders the
// element with the attributes' text, so server rendering (react-dom/server) writes them into the
// HTML and hydrateRoot finds the same. `ref` reaches the element. react.d.ts types the components
// and the plain elements in JSX.
import { createElement } from 'react';
import { elementProps } from './logic/react-props.js';

export * from './mha-lens.js';

function component(tag, displayName) {
  const Component = (props) => createElement(tag, elementProps(tag, props));
  Component.displayName = displayName;
  return Component;
}

export const MhaWalkthrough = component('mha-walkthrough', 'MhaWalkthrough');
export const MhaHeatmap = component('mha-heatmap', 'MhaHeatmap');
export const MhaShapes = component('mha-shapes', 'MhaShapes');
export const MhaPlayground = component('mha-playground', 'MhaPlayground');
export const MhaTrainer = component('mha-trainer', 'MhaTrainer');
