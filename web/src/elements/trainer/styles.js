// <mha-trainer>'s own styles (the base sheet and the --mha-* properties come from styles.js).
import { sheet } from '../base/styles.js';

export const TRAINER_STYLES = sheet(`
.trainer { display: flex; flex-direction: column; gap: 0.8em; }
.trainer p { margin: 0; }
.intro { max-width: 48em; }
form.tr-controls { display: grid; grid-template-columns: repeat(auto-fill, minmax(8.5em, 1fr)); gap: 0.6em 0.9em; align-items: end; }
.tr-field { display: flex; flex-direction: column; gap: 0.15em; min-width: 0; }
.tr-field label { font-weight: 600; font-size: 0.9em; }
/* The task's names are the longest ("归纳（induction）"): its field takes two columns. */
.tr-field:has(#tr-task) { grid-column: span 2; }
.tr-field select, .tr-field input { width: 100%; padding: 0.35em 0.5em; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); min-height: 2.4em; }
.buttons { grid-column: 1 / -1; display: flex; flex-wrap: wrap; gap: 0.4em; }
.buttons button { min-width: 5.5em; }
.buttons button.primary { background: var(--accent); color: var(--on-accent); border-color: var(--accent); }
.buttons button:disabled { opacity: 0.5; cursor: default; }
.status { font-variant-numeric: tabular-nums; font-weight: 600; }
.where { font-size: 0.9em; color: var(--muted); }
.where.fallback { color: var(--fg); background: color-mix(in srgb, var(--focus) 18%, var(--bg)); border-left: 4px solid var(--focus); padding: 0.3em 0.6em; border-radius: 4px; }
.panel-row { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 0.8em; }
.panel-row.curves-heads { grid-template-columns: minmax(16em, 2fr) minmax(0, 3fr); align-items: start; }
.panel-row.curves-heads > .card:first-child { position: sticky; top: var(--mha-scroll-margin, 0.5em); }
.card { background: var(--bg); border: 1px solid var(--line); border-radius: 8px; padding: 0.6em 0.8em; min-width: 0; }
.card h3, .layer h3 { margin: 0 0 0.4em; font-size: 1em; }
figure.curves { margin: 0; }
figure.curves svg { width: 100%; height: auto; display: block; font-size: 9px; }
.legend-line { display: flex; flex-wrap: wrap; gap: 0.3em 1em; font-size: 0.85em; }
.curves polyline.loss { stroke: var(--accent); }
.curves polyline.acc { stroke: var(--ok); }
.curves text.acc { fill: var(--ok); }
.swatch.loss { background: var(--accent); }
.swatch.acc { background: var(--ok); }
.swatch { display: inline-block; width: 1.4em; height: 0.25em; vertical-align: middle; margin-right: 0.3em; border-radius: 2px; }
.probe-row { display: flex; gap: 0.4em; flex-wrap: wrap; align-items: center; }
.probe-row input { flex: 1 1 14em; min-width: 0; padding: 0.35em 0.5em; border: 1px solid var(--line); border-radius: 6px; background: var(--bg); min-height: 2.4em; font-family: var(--mha-mono, ui-monospace, Menlo, Consolas, monospace); }
.probe-row input[aria-invalid="true"] { border: 2px solid var(--error); }
.hint { font-size: 0.8em; color: var(--muted); }
.predictions { overflow-x: auto; }
.predictions table { font-size: 0.85em; font-variant-numeric: tabular-nums; }
.predictions td, .predictions th { padding: 0.1em 0.35em; text-align: center; }
.predictions th { white-space: nowrap; }
.predictions td.wrong { color: var(--error); font-weight: 700; background: color-mix(in srgb, var(--error) 12%, var(--bg)); }
.predictions td.none { color: var(--muted); }
.layers { display: grid; grid-template-columns: repeat(auto-fill, minmax(min(100%, 21em), 1fr)); gap: 0.8em 1.2em; }
.layers.side-by-side { grid-template-columns: minmax(0, 1fr); }
.layers.side-by-side .map { max-width: 24em; }
.layer { border-top: 1px solid var(--line); padding-top: 0.5em; min-width: 0; }
.head-row { display: flex; flex-wrap: wrap; gap: 0.5em 1.2em; align-items: flex-start; }
.head { display: flex; flex-direction: column; gap: 0.3em; min-width: 0; max-width: 100%; flex: 1 1 20em; margin: 0; }
.head .job { font-weight: 600; }
.head .job.clear { color: var(--ok); }
.head .job.unclear { color: var(--muted); font-weight: 400; }
.maps { display: flex; flex-wrap: wrap; gap: 0.4em 0.8em; }
.map { display: flex; flex-direction: column; min-width: 0; max-width: 100%; flex: 1 1 14em; }
.map-title { font-size: 0.8em; color: var(--muted); }
.map mha-heatmap { width: 100%; }
.note { font-size: 0.88em; color: var(--muted); max-width: 52em; }
.card > .note, .card > label.check { margin: 0.3em 0; }
.note.lesson { color: var(--fg); border-left: 3px solid var(--accent); padding-left: 0.6em; }
label.check { display: inline-flex; gap: 0.4em; align-items: center; }
label.check input { width: 1.2em; height: 1.2em; }
@container (max-width: 640px) {
  .panel-row, .panel-row.curves-heads { grid-template-columns: minmax(0, 1fr); }
  .panel-row.curves-heads > .card:first-child { position: static; }
  form.tr-controls { grid-template-columns: repeat(2, minmax(0, 1fr)); }
}
`);
