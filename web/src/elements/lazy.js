// Elements whose code is loaded only when a page uses them: each tag's module is imported (a
// chunk of its own in a bundler's output) as soon as an element of that tag is in the document,
// now or later. Where there is no document (Node, server rendering) nothing happens.

/** `loaders`: { tag: () => import(…) }, each module defining its element. */
export function defineOnUse(loaders) {
  if (typeof document === 'undefined' || typeof MutationObserver === 'undefined') return;
  const pending = new Map(Object.entries(loaders));
  const load = (tag) => {
    const loader = pending.get(tag);
    pending.delete(tag);
    loader().catch((error) => console.error(`<${tag}> could not be loaded: ${error.message}`));
    if (pending.size === 0) observer.disconnect();
  };
  const look = (root) => {
    for (const tag of [...pending.keys()]) if (root.localName === tag || root.querySelector?.(tag)) load(tag);
  };
  const observer = new MutationObserver((records) => {
    for (const record of records) for (const node of record.addedNodes) if (node.nodeType === 1 && pending.size) look(node);
  });
  observer.observe(document, { childList: true, subtree: true });
  look(document);
}
