// 'mha-lens/react': the widgets (defining the elements, as 'mha-lens/widgets' does); what this
// entry adds is its types, react.d.ts, which type the elements in React's JSX.
export * from './mha-lens.js';
