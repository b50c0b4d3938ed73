// What the JS side counts as a plain object: a config, a weights object, an imported JSON object.
// Not null, an array or a typed array. No DOM.

/** True for an object that is neither null, an array nor a typed array (or DataView). */
export const isPlainObject = (value) => value !== null && typeof value === 'object' && !Array.isArray(value) && !ArrayBuffer.isView(value);
