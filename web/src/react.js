// 'mha-lens/react': React components for the elements (MhaWalkthrough, MhaHeatmap, MhaShapes,
// MhaPlayground, MhaTrainer), and the elements themselves, defined as 'mha-lens/widgets' defines
// them (the playground and the trainer once a page has one). A component takes each attribute as a prop (camelCase: keyLengths, cellSize; numbers,
// booleans and arrays as JS values) and each event as onMhaStep-style props. It renders the
// element with the attributes' text, so server rendering (react-dom/server) writes them into the
// HTML and hydrateRoot finds the same; it adds the event listeners and sets the data properties
// (run, config, attention, state, options, labels) itself, once mounted, because React 19's
// hydration applies neither to a custom element (react#35446). `ref` reaches the element.
// react.d.ts types the components and the plain elements in JSX.
import { createElement, useCallback, useLayoutEffect, useRef } from 'react';
import { elementProps, eventsOf } from './logic/react-props.js';
import { defineOnUse } from './elements/lazy.js';
import './elements/define.js';

export { MhaWalkthroughElement } from './elements/walkthrough/mha-walkthrough.js';
export { MhaHeatmapElement } from './elements/heatmap/mha-heatmap.js';
export { MhaShapesElement } from './elements/shapes/mha-shapes.js';
export { RunElement as MhaRunElement } from './elements/base/run-element.js';
export { env, getEngine } from './engine/engine.js';

// The playground and the trainer are most of the widgets' code: loaded when a page has one
// (their classes: 'mha-lens/playground', 'mha-lens/trainer').
defineOnUse({ 'mha-playground': () => import('./entries/playground.js'), 'mha-trainer': () => import('./entries/trainer.js') });

function setRef(ref, value) {
  if (typeof ref === 'function') ref(value);
  else if (ref) ref.current = value;
}

function component(tag, displayName) {
  const events = eventsOf(tag);
  function Component({ ref, ...props }) {
    const { attributes, events: handlers, data } = elementProps(tag, props);
    const element = useRef(null);
    const latest = useRef(handlers);
    latest.current = handlers;
    // One listener per event for the element's life; it calls the handler of the last render.
    useLayoutEffect(() => {
      const node = element.current;
      const listeners = events.map((event) => [event, (e) => latest.current[event]?.(e)]);
      for (const [event, listener] of listeners) node.addEventListener(event, listener);
      return () => { for (const [event, listener] of listeners) node.removeEventListener(event, listener); };
    }, []);
    const values = Object.entries(data);
    useLayoutEffect(() => {
      for (const [name, value] of values) if (element.current[name] !== value) element.current[name] = value;
    }, values.flat());
    const refs = useCallback((node) => { element.current = node; setRef(ref, node); }, [ref]);
    return createElement(tag, { ...attributes, ref: refs });
  }
  Component.displayName = displayName;
  return Component;
}

export const MhaWalkthrough = component('mha-walkthrough', 'MhaWalkthrough');
export const MhaHeatmap = component('mha-heatmap', 'MhaHeatmap');
export const MhaShapes = component('mha-shapes', 'MhaShapes');
export const MhaPlayground = component('mha-playground', 'MhaPlayground');
export const MhaTrainer = component('mha-trainer', 'MhaTrainer');
