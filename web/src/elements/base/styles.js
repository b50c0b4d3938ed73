// The stylesheet every element adopts, themeable through --mha-* custom properties, the dark
// colours an element adopts on a dark host page, and a helper for an element's own. Constructable
// stylesheets: they work under a strict style-src CSP. theme="light" or "dark" forces the colours
// and paints the element's own background; without a theme the element follows the host page.

let baseSheet = null;
let hostDarkSheet = null;

// The dark colours: for theme="dark", and with no theme (or theme="auto") on a dark host page.
const DARK_COLOURS = `
  --fg: var(--mha-fg, #e8eaee); --muted: var(--mha-muted, #a3a9b6); --bg: var(--mha-bg, #16181d);
  --panel: var(--mha-panel, #1f2229); --line: var(--mha-line, #3a3f4a); --accent: var(--mha-accent, #4c9be8); --on-accent: var(--mha-on-accent, #0b0d10);
  --error: var(--mha-error, #ff7a8a); --ok: var(--mha-ok, #5fd08a);`;

/** The stylesheet every element adopts; themeable through --mha-* custom properties. */
export function baseStyles() {
  if (baseSheet) return baseSheet;
  baseSheet = new CSSStyleSheet();
  baseSheet.replaceSync(`
:host {
  --fg: var(--mha-fg, #1d1f24);
  --muted: var(--mha-muted, #5b6170);
  --bg: var(--mha-bg, #ffffff);
  --panel: var(--mha-panel, #f5f6f8);
  --line: var(--mha-line, #d5d8de);
  --accent: var(--mha-accent, #0b5cad);
  --on-accent: var(--mha-on-accent, #ffffff);
  --error: var(--mha-error, #b00020);
  --ok: var(--mha-ok, #1b7a3d);
  --focus: var(--mha-focus, #e0a100);
  display: block;
  color: var(--fg);
  font: var(--mha-font-size, 15px)/1.5 var(--mha-font, system-ui, -apple-system, "Segoe UI", "Noto Sans CJK SC", "PingFang SC", "Microsoft YaHei", sans-serif);
  container-type: inline-size;
}
:host([hidden]) { display: none; }
[hidden] { display: none !important; }
:host([controls="none"]) [data-control] { display: none !important; }
:host([theme="dark"]) { ${DARK_COLOURS} }
:host([theme="dark"]), :host([theme="light"]) { background: var(--bg); padding: 0.5em; border-radius: 6px; }
* { box-sizing: border-box; }
button, select, input, summary { font: inherit; color: inherit; }
select { background: var(--bg); border: 1px solid var(--line); border-radius: 4px; padding: 0.15em 0.3em; }
button {
  background: var(--bg); border: 1px solid var(--line); border-radius: 6px; padding: 0.3em 0.7em;
  cursor: pointer; min-height: 2.2em;
}
button:hover { border-color: var(--accent); }
button[aria-pressed="true"], button[aria-current="step"] { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
:focus-visible { outline: 3px solid var(--focus); outline-offset: 2px; }
code, .mono { font-family: var(--mha-mono, ui-monospace, "SFMono-Regular", Menlo, Consolas, monospace); font-size: 0.92em; }
.chip {
  display: inline-flex; align-items: baseline; gap: 0.1em; padding: 0 0.45em; margin: 0.1em 0.15em 0.1em 0;
  border-radius: 999px; border: 2px solid var(--axis); border-right-color: var(--axis2); border-bottom-color: var(--axis2);
  background: color-mix(in srgb, var(--axis) 14%, var(--bg)); font-weight: 600; white-space: nowrap;
}
.chip-size { font-weight: 400; }
.muted { color: var(--muted); }
.error { color: var(--error); margin: 0.2em 0 0; font-size: 0.9em; }
.error:empty { display: none; }
.note { color: var(--muted); font-size: 0.9em; }
.note.loading { margin: 0; }
.visually-hidden { position: absolute; width: 1px; height: 1px; overflow: hidden; clip: rect(0 0 0 0); white-space: nowrap; }
table { border-collapse: collapse; }
th, td { border: 1px solid var(--line); padding: 0.15em 0.4em; text-align: right; }
th { background: var(--panel); font-weight: 600; }
`);
  return baseSheet;
}

/**
 * Adopted by an element whose host page is dark (theme.js decides) while no theme is forced: the
 * dark colours without a background of their own, so that the element sits on the host's.
 */
export function hostDarkStyles() {
  if (hostDarkSheet) return hostDarkSheet;
  hostDarkSheet = new CSSStyleSheet();
  hostDarkSheet.replaceSync(`:host(:not([theme="light"]):not([theme="dark"])) { ${DARK_COLOURS} }`);
  return hostDarkSheet;
}

/**
 * A stylesheet from text, built once per element class. Null where there are no stylesheets (Node,
 * importing the elements for server-side rendering), where no element is ever constructed.
 */
export function sheet(text) {
  if (typeof CSSStyleSheet === 'undefined') return null;
  const s = new CSSStyleSheet();
  s.replaceSync(text);
  return s;
}
