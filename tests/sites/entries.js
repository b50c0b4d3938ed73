// What a tutorial author imports from the package, and how the React components name their props:
// the one place to change when the spelling of an entry, the stylesheet or a component is decided.
// Every site template reads these names from here, never spells them itself.

/** The package's entry points, as an author writes them in an import. */
export const ENTRIES = {
  /** The API: createEngine, getEngine. */
  api: 'mha-lens',
  /** Defines every element (and exports their classes). */
  widgets: 'mha-lens/widgets',
  /** React: the components below (and the JSX typings of the plain elements). */
  react: 'mha-lens/react',
  /** The stylesheet that sizes the elements before they are defined (SSR pages, late scripts). */
  stylesheet: 'mha-lens/widgets.css',
  /** One element each: an author who embeds only a heatmap imports only it. */
  perElement: {
    'mha-walkthrough': 'mha-lens/walkthrough',
    'mha-heatmap': 'mha-lens/heatmap',
    'mha-shapes': 'mha-lens/shapes',
    'mha-playground': 'mha-lens/playground',
    'mha-trainer': 'mha-lens/trainer',
  },
};

/** The React component for each element, as 'mha-lens/react' exports it. */
export const REACT_COMPONENTS = {
  'mha-walkthrough': 'MhaWalkthrough',
  'mha-heatmap': 'MhaHeatmap',
  'mha-shapes': 'MhaShapes',
  'mha-playground': 'MhaPlayground',
  'mha-trainer': 'MhaTrainer',
};

/** A component's prop for an attribute: React's camelCase (`key-lengths` → keyLengths; `for` stays). */
export const reactProp = (attribute) => attribute.replace(/-([a-z])/g, (_, letter) => letter.toUpperCase());

/** A component's prop for an event: `mha-step` → onMhaStep, `mha-train-step` → onMhaTrainStep. */
export const reactEventProp = (event) => `on${event.split('-').map((word) => word[0].toUpperCase() + word.slice(1)).join('')}`;

/**
 * The files esbuild leaves alone, which the README has an author copy from
 * node_modules/mha-lens/web/dist/ to beside the bundle.
 */
export const ESBUILD_COPIES = ['mha_engine.wasm', 'mha_trainer.mjs', 'mha_trainer.wasm', 'mha-trainer-worker.js', 'checkpoints'];

/**
 * The Vite config an author adds for the package to work under a dev server (`vite`, `vitepress
 * dev`, `astro dev`), if the README asks for one: null while it asks for none. JS source of the
 * object a plain Vite site passes to defineConfig (VitePress and Astro take it under `vite:`),
 * such as "{ optimizeDeps: { exclude: ['mha-lens'] } }".
 */
export const VITE_DEV_CONFIG = "{ optimizeDeps: { exclude: ['mha-lens'] } }";
