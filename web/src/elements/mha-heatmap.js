// <mha-heatmap>: the attention heatmaps of one step (weights by default; scores, scaled and masked
// scores on a diverging scale), one per (batch, head), query tokens on the rows and key tokens on
// the columns. Masked cells are hatched (and read "−∞" or "masked"), so colour is never the only
// signal; heads that share a K/V head (GQA/MQA) sit in one labelled box. Exact values on hover
// and on keyboard focus (arrow keys inside a focused heatmap), and as a table. Data comes in as
// the `run` property, the element's own config (attributes b, t, c, h, … or `config`), or another
// element named by `for` (then a heatmap step chosen there is shown here too); `step`, `batch`,
// `head` (one head only, when set), `pinned` and `lang` are attributes. Fires `mha-select`.
import { formatCount, formatValue } from '../logic/format.js';
import { scaleFor, viridis, diverging } from '../logic/colors.js';
import { canvasCellPixels, heatmapGeometry, heatmapPanels, hitCell, keyLabels, maskedPath, moveCell } from '../logic/heatmap-layout.js';
import { isScoresSized, stepTitle } from '../model/steps.js';
import { translator } from '../text/translate.js';
import { download, el, langOf, svg } from './dom.js';
import { RunElement, SOURCE_ATTRIBUTES } from './run-element.js';
import { sheet } from './styles.js';
import { paintCells, svgToPng } from './heatmap-canvas.js';

const MAX_CELLS = 16384; // beyond this only the selected batch (then head) is drawn

const STYLES = sheet(`
.bar { display: flex; flex-wrap: wrap; gap: 0.6em 1.2em; align-items: center; margin-bottom: 0.5em; }
.legend { display: flex; align-items: center; gap: 0.4em; font-size: 0.85em; }
.legend svg.ramp { width: 9em; height: 1.4em; }
.legend .swatch { display: inline-flex; align-items: center; gap: 0.3em; }
.batch { margin: 0.4em 0 0.8em; }
.batch h4 { margin: 0 0 0.3em; font-size: 0.95em; }
.groups { display: flex; flex-wrap: wrap; gap: 0.6em; }
.group { display: flex; flex-direction: column; max-width: 100%; }
.group .members { display: flex; flex-wrap: wrap; gap: 0.5em; }
.group.shared { border: 2px dashed var(--muted); border-radius: 8px; padding: 0.3em; }
.group-label { font-size: 0.8em; color: var(--muted); margin: 0; }
figure.panel { margin: 0; padding: 0.25em; border: 2px solid transparent; border-radius: 6px; position: relative; cursor: pointer; max-width: 100%; }
figure.panel[aria-current="true"] { border-color: var(--accent); }
figure.panel figcaption { font-size: 0.85em; text-align: center; }
figure.panel svg { width: 100%; height: auto; display: block; }
canvas.cells { display: block; width: 100%; height: 100%; image-rendering: pixelated; }
.readout { min-height: 1.5em; font-size: 0.95em; }
.hm { position: relative; } /* the tip is placed in .hm's coordinates */
.tip { position: absolute; pointer-events: none; background: var(--fg); color: var(--bg); padding: 0.1em 0.4em; border-radius: 4px; font-size: 0.8em; white-space: nowrap; z-index: 2; }
.tip[hidden] { display: none; }
.table-view { overflow-x: auto; }
.table-view td.masked { background: repeating-linear-gradient(45deg, #e8e8e8 0 3px, #bbb 3px 5px); }
.exports { display: flex; gap: 0.4em; flex-wrap: wrap; }
`);

let hatchCount = 0;

export class MhaHeatmapElement extends RunElement {
  static get observedAttributes() { return ['step', 'batch', 'head', 'lang', 'pinned', 'only', ...SOURCE_ATTRIBUTES]; }

  #run = null;
  #tokens = null;
  #active = null; // { panel, r, c } for the keyboard cursor
  #view = null; // { step, scale, maskedAt, labels, t } of the run on screen
  #built = null; // the elements drawn for one set of shapes (reused by the next run of them)

  constructor() { super(STYLES); }

  get run() { return this.#run; }
  set run(run) { this.takeRun(run, this.#tokens); }

  acceptRun(run, tokens) {
    this.#run = run;
    this.#tokens = tokens;
    this.render();
  }

  // The steps it can draw: those of its run shaped [B, H, Tq, Tk] (scores, scaled, masked, weights).
  #heatmapSteps() { return this.#run?.steps.filter(isScoresSized) ?? []; }

  followStep(id) { if (this.#heatmapSteps().some((s) => s.id === id)) this.setAttribute('step', id); }

  /** Query token labels; keys use the same ones for self-attention, s0… for a separate source. */
  get tokens() { return this.#tokens; }
  set tokens(tokens) { this.#tokens = tokens; this.scheduleRender(); }

  get stepId() {
    const id = this.getAttribute('step');
    return this.#heatmapSteps().some((s) => s.id === id) ? id : 'weights';
  }

  get batch() { return this.#clamp(Number(this.getAttribute('batch') ?? 0), this.#run?.summary.B); }
  get head() { return this.#clamp(Number(this.getAttribute('head') ?? 0), this.#run?.summary.H); }

  #clamp(value, size) {
    return Number.isInteger(value) && value >= 0 && value < (size ?? 1) ? value : 0;
  }

  #labels() {
    const { T, Tk, cross } = this.#run.summary;
    const rows = this.#tokens?.length === T ? this.#tokens : Array.from({ length: T }, (_, i) => `t${i}`);
    return { rows, cols: keyLabels(rows, Tk, cross) };
  }

  #maskedAt() {
    const masked = this.#run.steps.find((s) => s.id === 'masked');
    const id = this.stepId;
    if (!masked || (id !== 'masked' && id !== 'weights')) return () => false;
    return (i) => masked.data[i] === -Infinity;
  }

  #select(b, h) {
    this.setAttribute('batch', b);
    this.setAttribute('head', h);
    this.render(); // now, so that keyboard focus can move to the redrawn panel
    this.dispatchEvent(new CustomEvent('mha-select', { bubbles: true, composed: true, detail: { step: this.stepId, batch: b, head: h } }));
  }

  draw() {
    const lang = langOf(this);
    const t = translator(lang);
    if (!this.#run) {
      this.#built = null;
      this.shadowRoot.replaceChildren(this.placeholder(t));
      return;
    }
    const step = this.#run.step(this.stepId);
    const { Hkv, H, B } = this.#run.summary;
    const labels = this.#labels();
    const all = heatmapPanels(step, Hkv);
    const perPanel = step.shape[2] * step.shape[3];
    let panels = this.hasAttribute('only') ? all.filter((p) => p.b === this.batch && p.h === this.head) : all;
    let note = null;
    if (panels.length * perPanel > MAX_CELLS) {
      panels = all.filter((p) => p.b === this.batch);
      if (panels.length * perPanel > MAX_CELLS) panels = panels.filter((p) => p.h === this.head);
      note = t('hm.partial', { n: panels.length, m: all.length });
    }
    const hasMask = this.#run.steps.some((s) => s.id === 'masked') && (step.id === 'masked' || step.id === 'weights');
    this.#view = { step, scale: scaleFor(step), maskedAt: this.#maskedAt(), labels, t };
    // A new run of the same shapes (another seed, other weights) keeps every element and only
    // repaints the numbers: no new elements, so no style or layout work for the whole heatmap.
    const key = JSON.stringify([lang, step.id, step.shape, Hkv, panels.map((p) => `${p.b}.${p.h}`), labels, hasMask,
      this.hasAttribute('pinned'), this.batch, this.head, this.#run.steps.map((s) => s.id)]);
    if (this.#built?.key === key && this.shadowRoot.contains(this.#built.section)) {
      this.#repaint();
      return;
    }

    const stepSelect = el('select', { 'aria-label': t('hm.step'), class: 'step-select' },
      this.#heatmapSteps().map(({ id }) => el('option', { value: id, selected: id === step.id }, stepTitle(t, id, this.#run.summary))));
    stepSelect.addEventListener('change', () => {
      this.setAttribute('step', stepSelect.value);
      this.dispatchEvent(new CustomEvent('mha-select', { bubbles: true, composed: true, detail: { step: stepSelect.value, batch: this.batch, head: this.head } }));
    });
    const exports = el('div', { class: 'exports', 'data-control': '' },
      el('button', { type: 'button', 'data-export': 'png', 'aria-label': t('hm.exportPng') }, 'PNG'),
      el('button', { type: 'button', 'data-export': 'svg', 'aria-label': t('hm.exportSvg') }, 'SVG'));
    exports.addEventListener('click', (event) => {
      const kind = event.target.closest('button')?.dataset.export;
      if (kind === 'svg') download(new Blob([this.exportSvg()], { type: 'image/svg+xml' }), this.#fileName('svg'));
      if (kind === 'png') this.exportPng().then((blob) => download(blob, this.#fileName('png')));
    });
    const legend = this.#legend(step, hasMask, t);
    const bar = el('div', { class: 'bar' },
      this.hasAttribute('pinned') ? null : el('label', { 'data-control': '' }, `${t('hm.step')} `, stepSelect),
      legend, exports);

    const readout = el('p', { class: 'readout', 'aria-live': 'polite', 'data-control': '' }, t('hm.hint'));
    const tip = el('div', { class: 'tip', hidden: true });
    const grid = el('div', { class: 'grid' });
    const geometry = heatmapGeometry({ rows: step.shape[2], cols: step.shape[3], rowLabels: labels.rows, colLabels: labels.cols });
    const group = H / Hkv;
    const pictures = [];
    for (let b = 0; b < B; b++) {
      const inBatch = panels.filter((p) => p.b === b);
      if (inBatch.length === 0) continue;
      const groups = el('div', { class: 'groups' });
      for (let kv = 0; kv < Hkv; kv++) {
        const members = inBatch.filter((p) => p.kvHead === kv);
        if (members.length === 0) continue;
        const shared = group > 1;
        const box = el('div', { class: shared ? 'group shared' : 'group', role: shared ? 'group' : null,
          'aria-label': shared ? t('hm.shared', { kv, heads: members.map((p) => p.h).join(', ') }) : null });
        if (shared) box.append(el('p', { class: 'group-label' }, t('hm.shared', { kv, heads: members.map((p) => p.h).join(', ') })));
        box.append(el('div', { class: 'members' }, members.map((panel) => {
          const picture = this.#panel(panel, geometry, readout, tip);
          pictures.push(picture);
          return picture.figure;
        })));
        groups.append(box);
      }
      grid.append(el('section', { class: 'batch', 'aria-label': `b=${b}` }, el('h4', {}, t('hm.batch', { b })), groups));
    }
    const table = this.#table(t);
    // An open table stays open for the new step or head (#repaint fills it).
    if (this.#built?.table.details.open) table.details.open = true;
    const section = el('section', { class: 'hm', 'aria-label': t('hm.label') }, bar, note ? el('p', { class: 'note' }, note) : null, grid, readout, tip, table.details);
    this.#built = { key, section, geometry, pictures, legend, table, readout, tip };
    this.#repaint();
    this.shadowRoot.replaceChildren(section);
  }

  // The numbers of the current run into the elements already built for its shapes: canvas pixels,
  // masked cells, the legend's range, the table (when open) and the readout.
  #repaint() {
    const { step, scale, maskedAt, t } = this.#view;
    const { geometry, pictures, legend, table, readout, tip } = this.#built;
    for (const picture of pictures) {
      paintCells(picture.canvas, step.data, picture.panel, geometry, scale, maskedAt);
      picture.mask.setAttribute('d', maskedPath(geometry, (r, c) => maskedAt(picture.panel.offset + r * picture.panel.cols + c), canvasCellPixels(geometry) === 1 ? 0 : 1));
    }
    legend.querySelector('[data-legend="min"]').textContent = formatValue(scale.min, 2);
    legend.querySelector('[data-legend="max"]').textContent = formatValue(scale.max, 2);
    legend.querySelector('svg.ramp').setAttribute('aria-label', `${t('hm.range')} ${formatValue(scale.min, 3)} … ${formatValue(scale.max, 3)}`);
    table.refresh();
    const focused = pictures.find((picture) => picture.figure.matches(':focus'));
    if (focused && this.#active) {
      focused.show(this.#active.r, this.#active.c);
    } else {
      for (const picture of pictures) picture.hide();
      readout.textContent = t('hm.hint');
      tip.hidden = true;
    }
  }

  #legend(step, hasMask, t) {
    const id = `legend-${++hatchCount}`;
    const stops = Array.from({ length: 11 }, (_, i) => i / 10);
    const color = step.op === 'softmax' ? viridis : (u) => diverging(u * 2 - 1);
    const bar = svg('svg', { class: 'ramp', viewBox: '0 0 100 14', role: 'img' },
      svg('defs', {}, svg('linearGradient', { id }, stops.map((u) => svg('stop', { offset: u, 'stop-color': color(u) })))),
      svg('rect', { width: 100, height: 14, fill: `url(#${id})` }));
    return el('div', { class: 'legend' },
      el('span', { class: 'mono', 'data-legend': 'min' }), bar, el('span', { class: 'mono', 'data-legend': 'max' }),
      hasMask ? el('span', { class: 'swatch' }, svg('svg', { viewBox: '0 0 14 14', width: 14, height: 14, 'aria-hidden': 'true' }, this.#hatchDefs('legend-hatch'), svg('rect', { width: 14, height: 14, fill: 'url(#legend-hatch)' })), ` ${t(step.id === 'weights' ? 'hm.maskedZero' : 'hm.maskedInf')}`) : null);
  }

  #hatchDefs(id) {
    return svg('defs', {}, svg('pattern', { id, width: 5, height: 5, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
      svg('rect', { width: 5, height: 5, fill: '#e8e8e8' }), svg('line', { x1: 0, y1: 0, x2: 0, y2: 5, stroke: '#444', 'stroke-width': 2 })));
  }

  // One heatmap: an SVG for the token labels, the hatch of masked cells and the cursor, around a
  // canvas that holds the cells (placed on the grid with foreignObject, so hit testing, the
  // cursor and the labels share the SVG's units). Handlers read the current run from #view, so
  // the same panel serves every run of these shapes.
  #panel(panel, geometry, readout, tip) {
    const { b, h } = panel;
    const { step, labels, t } = this.#view;
    const selected = b === this.batch && h === this.head;
    const hatch = `hatch-${++hatchCount}`;
    const picture = svg('svg', { viewBox: `0 0 ${geometry.width} ${geometry.height}`, 'aria-hidden': 'true' }, this.#hatchDefs(hatch));
    const { font, cell } = geometry;
    geometry.rowText.forEach((label, r) => picture.append(svg('text', { x: geometry.left - 5, y: geometry.cellY(r) + cell / 2 + font * 0.35, 'text-anchor': 'end', 'font-size': font, fill: 'currentColor' }, label)));
    geometry.colText.forEach((label, c) => {
      const x = geometry.cellX(c) + cell / 2;
      const y = geometry.top - 5;
      picture.append(svg('text', geometry.rotate
        ? { x, y, 'font-size': font, fill: 'currentColor', transform: `rotate(-60 ${x} ${y})` }
        : { x, y, 'font-size': font, fill: 'currentColor', 'text-anchor': 'middle' }, label));
    });
    const pixels = canvasCellPixels(geometry);
    const canvas = el('canvas', { class: 'cells', width: panel.cols * pixels, height: panel.rows * pixels });
    picture.append(svg('foreignObject', { x: geometry.left, y: geometry.top, width: panel.cols * cell, height: panel.rows * cell }, canvas));
    const mask = svg('path', { class: 'masked-cells', fill: `url(#${hatch})`, d: '' });
    const cursor = svg('rect', { width: cell - 1, height: cell - 1, fill: 'none', stroke: '#e0a100', 'stroke-width': 3, visibility: 'hidden' });
    picture.append(mask, cursor);
    const caption = t('hm.head', { h }) + (this.#run.summary.Hkv !== this.#run.summary.H ? ` · KV ${panel.kvHead}` : '');
    const figure = el('figure', { class: 'panel', tabindex: 0, role: 'img', 'data-b': b, 'data-h': h, 'aria-current': String(selected),
      'aria-label': t('hm.panelLabel', { step: stepTitle(t, step.id, this.#run.summary), b, h, rows: panel.rows, cols: panel.cols }) },
      picture, el('figcaption', {}, caption));
    figure.style.width = `${(geometry.width * 0.08).toFixed(2)}em`; // ~30 px cells at 15 px type; max-width keeps it inside the host's column

    const show = (r, c, event) => {
      const { step: now, maskedAt } = this.#view;
      const i = panel.offset + r * panel.cols + c;
      const masked = maskedAt(i);
      const value = now.data[i];
      readout.textContent = t('hm.readout', { b, h, q: labels.rows[r], k: labels.cols[c], v: masked && now.id === 'weights' ? `${formatValue(value)} (${t('hm.masked')})` : formatValue(value) });
      cursor.setAttribute('x', geometry.cellX(c));
      cursor.setAttribute('y', geometry.cellY(r));
      cursor.setAttribute('visibility', 'visible');
      tip.textContent = formatValue(value);
      tip.hidden = false;
      const hostBox = this.shadowRoot.querySelector('.hm').getBoundingClientRect();
      const box = event ? { left: event.clientX, top: event.clientY } : picture.getBoundingClientRect();
      const scaleX = picture.getBoundingClientRect().width / geometry.width;
      const left = event ? box.left : box.left + (geometry.cellX(c) + cell) * scaleX;
      const top = event ? box.top : box.top + geometry.cellY(r) * scaleX;
      // Right of the pointer, or left of it near the right edge: the page's sections clip what
      // sticks out of them (content-visibility), so the tip stays inside the heatmaps' box.
      const right = left - hostBox.left + 12;
      const width = tip.offsetWidth;
      tip.style.left = `${right + width > hostBox.width ? Math.max(0, right - 24 - width) : right}px`;
      tip.style.top = `${top - hostBox.top - 28}px`;
    };
    const hide = () => { cursor.setAttribute('visibility', 'hidden'); tip.hidden = true; };
    picture.addEventListener('pointermove', (event) => {
      const point = new DOMPoint(event.clientX, event.clientY).matrixTransform(picture.getScreenCTM().inverse());
      const hit = hitCell(geometry, point.x, point.y);
      if (hit) show(hit.r, hit.c, event); else hide();
    });
    picture.addEventListener('pointerleave', hide);
    figure.addEventListener('click', () => this.#select(b, h));
    figure.addEventListener('focus', () => {
      const at = this.#active?.panel === `${b}.${h}` ? this.#active : { r: 0, c: 0 };
      this.#active = { panel: `${b}.${h}`, r: at.r, c: at.c };
      show(at.r, at.c);
    });
    figure.addEventListener('blur', hide);
    figure.addEventListener('keydown', (event) => {
      if (event.key === 'Enter' || event.key === ' ') {
        event.preventDefault();
        this.#select(b, h);
        this.shadowRoot.querySelector(`figure.panel[data-b="${b}"][data-h="${h}"]`)?.focus();
        return;
      }
      const next = moveCell(this.#active ?? { r: 0, c: 0 }, event.key, panel.rows, panel.cols);
      if (!['ArrowUp', 'ArrowDown', 'ArrowLeft', 'ArrowRight', 'Home', 'End'].includes(event.key)) return;
      event.preventDefault();
      event.stopPropagation(); // arrows here read cells; they must not also change the walkthrough step
      this.#active = { panel: `${b}.${h}`, ...next };
      show(next.r, next.c);
    });
    return { panel, figure, canvas, mask, show, hide };
  }

  // The table view of the selected head. Its header (the tokens) is built now; its T×Tk cells are
  // built when the reader opens it (and again for each new run while it is open), which keeps a
  // closed table of 16 K cells at T=128 from costing every run.
  #table(t) {
    const { step, labels } = this.#view;
    const panel = heatmapPanels(step, this.#run.summary.Hkv).find((p) => p.b === this.batch && p.h === this.head);
    const tbody = el('tbody', {});
    const table = el('table', {},
      el('caption', { class: 'visually-hidden' }, t('hm.tableCaption', { step: stepTitle(t, step.id, this.#run.summary), b: panel.b, h: panel.h })),
      el('thead', {}, el('tr', {}, el('th', { scope: 'col' }, `${t('hm.query')} \\ ${t('hm.key')}`), labels.cols.map((label) => el('th', { scope: 'col' }, label)))),
      tbody);
    const details = el('details', { class: 'table-view' },
      el('summary', {}, t('hm.table', { b: panel.b, h: panel.h, n: formatCount(panel.rows * panel.cols) })), table);
    const fill = () => {
      const { step: now, maskedAt } = this.#view;
      tbody.replaceChildren(...Array.from({ length: panel.rows }, (_, r) => el('tr', {}, el('th', { scope: 'row' }, labels.rows[r]),
        Array.from({ length: panel.cols }, (_, c) => {
          const i = panel.offset + r * panel.cols + c;
          const masked = maskedAt(i);
          return el('td', { class: masked ? 'masked mono' : 'mono', 'data-value': now.data[i] }, formatValue(now.data[i]), masked && now.id === 'weights' ? ` (${t('hm.masked')})` : '');
        }))));
      details.dataset.filled = 'true';
    };
    details.addEventListener('toggle', () => { if (details.open && !details.dataset.filled) fill(); });
    const refresh = () => {
      if (details.open) fill();
      else if (details.dataset.filled) { tbody.replaceChildren(); delete details.dataset.filled; }
    };
    return { details, refresh };
  }

  #fileName(ext) {
    return `mha-lens-${this.stepId}-b${this.batch}-h${this.head}.${ext}`;
  }

  /** The selected heatmap as a standalone SVG document (with its title, labels and range). */
  exportSvg() {
    const figure = this.shadowRoot.querySelector(`figure.panel[data-b="${this.batch}"][data-h="${this.head}"]`) ?? this.shadowRoot.querySelector('figure.panel');
    const { panel } = this.#built.pictures.find((picture) => picture.figure === figure);
    const { step, scale, maskedAt } = this.#view;
    const { geometry } = this.#built;
    const source = figure.querySelector('svg');
    const [, , width, height] = source.getAttribute('viewBox').split(' ').map(Number);
    const copy = source.cloneNode(true);
    copy.removeAttribute('aria-hidden');
    copy.querySelectorAll('[visibility="hidden"], foreignObject, path.masked-cells').forEach((node) => node.remove());
    // The cells as vector rectangles with their values: the file does not depend on a canvas.
    const hatch = `url(#${copy.querySelector('pattern').id})`;
    const cells = [];
    for (let r = 0; r < panel.rows; r++) {
      for (let c = 0; c < panel.cols; c++) {
        const i = panel.offset + r * panel.cols + c;
        const masked = maskedAt(i);
        cells.push(svg('rect', { x: geometry.cellX(c), y: geometry.cellY(r), width: geometry.cell - 1, height: geometry.cell - 1,
          fill: masked ? hatch : scale.color(step.data[i]), 'data-r': r, 'data-c': c, 'data-value': step.data[i], 'data-masked': masked ? '1' : null }));
      }
    }
    copy.insertBefore(svg('g', { class: 'cells' }, cells), copy.querySelector('rect[stroke]'));
    copy.querySelectorAll('[fill="currentColor"]').forEach((node) => node.setAttribute('fill', '#1d1f24'));
    const t = translator(langOf(this));
    const title = `${stepTitle(t, this.stepId, this.#run.summary)} · b=${figure.dataset.b} · ${t('hm.head', { h: figure.dataset.h })}`;
    // Wide enough for the title too (CJK characters are about twice as wide as Latin ones).
    const titleWidth = [...title].reduce((sum, ch) => sum + (/[\u2e80-\u9fff\uff00-\uffef]/.test(ch) ? 12 : 7), 8);
    const outer = Math.max(width, titleWidth);
    const doc = svg('svg', { width: outer * 2, height: (height + 24) * 2, viewBox: `0 -24 ${outer} ${height + 24}` },
      svg('rect', { x: 0, y: -24, width: outer, height: height + 24, fill: '#ffffff' }),
      svg('text', { x: 4, y: -8, 'font-size': 12, fill: '#1d1f24', 'font-family': 'sans-serif' }, title),
      copy);
    copy.setAttribute('width', width);
    copy.setAttribute('height', height);
    return `<?xml version="1.0" encoding="UTF-8"?>\n${new XMLSerializer().serializeToString(doc)}`;
  }

  /** The selected heatmap as a PNG, drawn from the same cells and labels as the SVG (heatmap-canvas.js). */
  async exportPng() {
    return svgToPng(this.exportSvg());
  }
}
