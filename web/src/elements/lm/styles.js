// <mha-lm>'s own styles (the base sheet and the --mha-* colours come from base/styles.js).
import { sheet } from '../base/styles.js';

let styles = null;

/** The section's stylesheet (made once). */
export function lmStyles() {
  styles ??= sheet(`
.lm { display: flex; flex-direction: column; gap: 0.8em; }
.lm p { margin: 0; }
.lm h3 { margin: 0 0 0.4em; font-size: 1.05em; }
.lm h4 { margin: 0.6em 0 0.3em; font-size: 0.95em; }
.intro { max-width: 48em; }
.card { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.8em; min-width: 0; display: flex; flex-direction: column; gap: 0.4em; }
.row, .controls { display: flex; flex-wrap: wrap; gap: 0.5em 0.9em; align-items: end; }
.field { display: flex; flex-direction: column; gap: 0.15em; min-width: 0; font-size: 0.92em; }
.field > span { font-weight: 600; }
.field select, .field input[type="text"], .field input[type="number"], textarea { padding: 0.35em 0.5em; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); color: var(--fg); min-height: 2.4em; font: inherit; max-width: 100%; }
.field input[type="number"] { width: 6em; }
.read .field.text { width: 100%; }
textarea { width: 100%; resize: vertical; }
button { min-height: 2.4em; min-width: 2.4em; padding: 0.3em 0.8em; border: 1px solid var(--line); border-radius: 6px; background: var(--panel); color: var(--fg); font: inherit; cursor: pointer; }
button.primary { background: var(--accent); color: #fff; border-color: var(--accent); }
button:disabled { opacity: 0.5; cursor: default; }
.buttons { display: flex; flex-wrap: wrap; gap: 0.4em; }
.status { font-variant-numeric: tabular-nums; font-weight: 600; }
.note { font-size: 0.88em; color: var(--muted); max-width: 52em; }
.note:empty, .error:empty { display: none; }
.error { color: var(--error); font-weight: 600; }
.chars { display: flex; flex-wrap: wrap; gap: 2px; }
.chars button.char { min-width: 1.6em; min-height: 1.9em; padding: 0 0.2em; font-family: ui-monospace, monospace; border-radius: 3px; background: var(--bg); }
.chars button.chosen { border-color: var(--focus); background: color-mix(in srgb, var(--focus) 25%, var(--bg)); font-weight: 700; }
.chars button.unknown { color: var(--error); }
.heads { display: flex; flex-direction: column; gap: 0.4em; }
.heads .layer h4 { margin: 0.2em 0; }
.layer-heads { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 8.5em), 13em)); gap: 0.6em; }
@container (max-width: 30em) { .layer-heads { grid-template-columns: repeat(2, minmax(0, 1fr)); } }
figure.head { margin: 0; min-width: 0; }
canvas.map { width: 100%; height: auto; image-rendering: pixelated; border: 1px solid var(--line); display: block; }
canvas.map.small { max-width: 12em; }
figcaption { font-size: 0.85em; display: flex; flex-wrap: wrap; gap: 0 0.4em; }
figcaption .which { color: var(--muted); }
figcaption .job { font-weight: 600; }
figcaption .jobs { flex-basis: 100%; color: var(--muted); font-size: 0.92em; }
.next { display: flex; flex-direction: column; gap: 2px; max-width: 28em; }
.bar { display: grid; grid-template-columns: minmax(2.2em, auto) minmax(3em, 1fr) auto; gap: 0.5em; align-items: center; font-variant-numeric: tabular-nums; font-size: 0.9em; }
.bar .c { font-family: ui-monospace, monospace; }
.track { display: block; height: 0.8em; background: var(--panel); border-radius: 3px; overflow: hidden; }
.fill { display: block; height: 100%; background: var(--accent); }
.forming { display: flex; flex-direction: column; gap: 3px; max-width: 36em; }
.forming .bar { grid-template-columns: 7em minmax(3em, 1fr) auto; }
pre.output, pre.sample { white-space: pre-wrap; word-break: break-word; background: var(--panel); border-radius: 6px; padding: 0.5em; margin: 0; min-height: 3em; font-family: ui-monospace, monospace; font-size: 0.92em; }
pre.output .prompt { color: var(--muted); }
.cache { display: grid; grid-template-columns: minmax(0, auto) minmax(4em, 1fr); gap: 0.6em; align-items: center; font-size: 0.9em; }
figure.curve { margin: 0; max-width: 36em; }
figure.curve svg { width: 100%; height: auto; display: block; font-size: 9px; }
figure.curve .axis { stroke: var(--line); }
figure.curve text { fill: var(--muted); }
figure.curve polyline { fill: none; stroke-width: 2; }
circle.bits { fill: var(--accent); }
circle.prev { fill: var(--ok); }
polyline.bits { stroke: var(--accent); }
polyline.prev { stroke: var(--ok); }
.legend { font-size: 0.85em; display: flex; flex-wrap: wrap; gap: 0.3em 1em; }
.swatch { display: inline-block; width: 1.4em; height: 0.25em; vertical-align: middle; margin-right: 0.3em; border-radius: 2px; }
.swatch.bits { background: var(--accent); }
.swatch.prev { background: var(--ok); }
.positions { display: grid; grid-template-columns: repeat(auto-fit, minmax(13em, 1fr)); gap: 0.8em; }
.mode h4 { margin-top: 0; }
.honest p { max-width: 52em; }
`);
  return styles;
}
