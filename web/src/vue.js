// 'mha-lens/vue': what a Vue app (or VitePress) tells its template compiler so that the mha-lens
// tags stay custom elements, instead of components Vue looks for and renders as <!---->:
//   vue({ template: { compilerOptions: { isCustomElement } } })        Vite + Vue
//   vue: { template: { compilerOptions: { isCustomElement } } }         VitePress config
// Safe to import in Node (a config file): it defines nothing. vue.d.ts types the elements in templates.

/** True for the mha-lens elements. */
export const isCustomElement = (tag) => tag.startsWith('mha-');
