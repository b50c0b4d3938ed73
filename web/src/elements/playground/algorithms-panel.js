// "The attention real models run": the run on screen computed two more ways by the engine, each
// checked against it on the spot. Tiled (FlashAttention's algorithm): the tiles of one (batch,
// head)'s score matrix in the pass's order — the current tile, its rows' running max m and sum ℓ
// before and after, the correction that rescales them, the tiles a mask skips — and the memory
// of both passes for this config and as a curve over T. Incremental (KV-cache decoding, causal
// self-attention): token by token, the cache growing, one new row of attention per step, the
// cache's bytes measured from its snapshot beside the formula, and MHA/GQA/MQA side by side.
import { diverging, heatmapScales, legendNumbers, rampColors } from '../../logic/heatmap/colors.js';
import { formatBytes, formatCount, formatValue } from '../../logic/format.js';
import { el, svg } from '../base/dom.js';
import { sheet } from '../base/styles.js';
import { block } from './frame.js';

export const ALGORITHMS_STYLES = sheet(`
.algorithms .modes { display: flex; gap: 0.5em; flex-wrap: wrap; margin: 0.4em 0; }
.algorithms .modes button[aria-pressed="true"] { background: var(--accent); color: var(--bg); border-color: var(--accent); }
.algorithms .row { display: flex; flex-wrap: wrap; gap: 0.6em 1.2em; align-items: center; margin: 0.4em 0; }
.algorithms .row input[type="number"] { width: 4.5em; }
.algorithms .picture { display: flex; flex-wrap: wrap; gap: 1em; align-items: flex-start; }
.algorithms svg.grid { max-width: 100%; height: auto; }
.algorithms svg.curve { width: 100%; max-width: 26em; height: auto; }
.algorithms .tile-done { fill: color-mix(in srgb, var(--accent) 22%, transparent); }
.algorithms .tile-skipped { fill: url(#alg-hatch); }
.algorithms .tile-now { fill: color-mix(in srgb, var(--accent) 45%, transparent); stroke: var(--accent); stroke-width: 2; }
.algorithms .tile-next { fill: none; }
.algorithms .gridline { stroke: var(--line); stroke-width: 0.5; fill: none; }
.algorithms table { border-collapse: collapse; font-size: 0.85em; }
.algorithms td, .algorithms th { border: 1px solid var(--line); padding: 0.15em 0.45em; text-align: right; font-variant-numeric: tabular-nums; }
.algorithms .lesson { border-left: 3px solid var(--accent); padding-left: 0.6em; }
.algorithms .table-wrap { overflow-x: auto; max-width: 100%; margin: 0.5em 0; }
.algorithms figure { margin: 0; }
.algorithms figcaption { font-size: 0.85em; max-width: 22em; }
.algorithms caption { text-align: left; font-size: 0.9em; padding-bottom: 0.2em; }
.algorithms tr.current th { color: var(--accent); }
.algorithms .alg-legend { max-width: 26em; display: flex; flex-wrap: wrap; align-items: center; gap: 0.2em 0.5em; font-size: 0.8em; margin: 0.3em 0; }
.algorithms .alg-legend svg { width: 8em; height: 0.9em; }
.algorithms .alg-legend .ends { display: inline-flex; gap: 0.6em; font-family: var(--mono, monospace); }
`);

let legendCount = 0;

// A ramp with its numbers under a map of the panel: `colors` left to right, `numbers` its ends (and
// middle), `note` what they mean.
function rampLegend(colors, numbers, note) {
  const id = `alg-ramp-${++legendCount}`;
  return el('div', { class: 'alg-legend' },
    svg('svg', { viewBox: '0 0 100 10', preserveAspectRatio: 'none', 'aria-hidden': 'true' },
      svg('defs', {}, svg('linearGradient', { id }, colors.map((color, i) => svg('stop', { offset: i / (colors.length - 1), 'stop-color': color })))),
      svg('rect', { width: 100, height: 10, fill: `url(#${id})` })),
    el('span', { class: 'ends' }, numbers.filter((n) => n !== null).join(' … ')), note ? el('span', {}, note) : null);
}

const CELL_MAX = 36;
// At most this many tiles along a side (a block is at least T/48), and decoding drawn up to this T:
// a picture of tens of thousands of cells would take the page's frame for nothing.
const MAX_TILES_PER_SIDE = 48;
const MAX_DECODE_T = 48;

/** Blocks that make a grid of about 8 × 8 tiles (2 × 2 at the seed's T = 4). */
const defaultBlocks = ({ T, Tk }) => ({ blockQ: Math.max(2, Math.ceil(T / 8)), blockK: Math.max(2, Math.ceil(Tk / 8)) });
const minBlock = (length) => Math.max(1, Math.ceil(length / MAX_TILES_PER_SIDE));

// An SVG element with many children, appended one by one (a spread of ~10^5 arguments overflows).
function svgWith(tag, attributes, children) {
  const node = svg(tag, attributes);
  for (const child of children) if (child) node.appendChild(child);
  return node;
}
const GRID_MAX = 300; // px: the score matrix's width at most
const UNITS = ['B', 'KiB', 'MiB', 'GiB', 'TiB', 'PiB'];
const CURVE = { width: 360, height: 170, left: 56, right: 12, top: 10, bottom: 28 };

// Bytes as the engine's messages write them (logic/format.js), small counts as "32 B".
const bytesText = (bytes) => (bytes < 1024 ? `${formatCount(bytes)} B` : formatBytes(bytes));

const maxAbsDiff = (a, b) => {
  let most = 0;
  for (let i = 0; i < a.length; i++) most = Math.max(most, Math.abs(a[i] - b[i]));
  return most;
};

export class AlgorithmsPanel {
  #t;
  #lang;
  #engine;
  #config;
  #walk;
  #run = null;
  #slice = { batch: 0, head: 0 };
  #mode = 'tiled';
  #block = { blockQ: 2, blockK: 2 };
  #tile = 0;
  #step = 0;
  #body = el('div', { class: 'alg-body' });
  #timer = null;
  #modeButtons;

  /**
   * `engine()` is the page's engine; `config()` the config of the run on screen (weights included);
   * `walk(run)` shows a run of another algorithm in the walkthrough above.
   */
  constructor({ t, lang, engine, config, walk }) {
    this.#t = t;
    this.#lang = lang;
    this.#walk = walk;
    this.#engine = engine;
    this.#config = config;
    const mode = (name) => {
      const button = el('button', { type: 'button', 'data-mode': name, 'aria-pressed': String(name === this.#mode) }, t(`alg.mode.${name}`));
      button.addEventListener('click', () => {
        this.#stop();
        this.#mode = name;
        for (const b of this.#modeButtons) b.setAttribute('aria-pressed', String(b.dataset.mode === name));
        this.#draw();
      });
      return button;
    };
    this.#modeButtons = [mode('tiled'), mode('incremental')];
    this.section = block('algorithms', t('alg.title'),
      el('p', {}, t('alg.intro')),
      el('div', { class: 'modes', role: 'group', 'aria-label': t('alg.modes') }, ...this.#modeButtons),
      this.#body);
  }

  /** Shows the algorithms for `run` (the run on screen), for the batch row and head picked. */
  show(run, { batch = 0, head = 0 } = {}) {
    // The same run for the same (batch, head) — new labels for its tokens, which this panel does
    // not show — is already on screen (at T = 128 drawing it runs a tiled pass, ~0.4 s).
    if (run === this.#run && this.#body.childElementCount > 0 && batch === this.#slice.batch && head === this.#slice.head) return;
    const sizesChanged = !this.#run || JSON.stringify(this.#run.summary) !== JSON.stringify(run.summary);
    this.#run = run;
    this.#slice = { batch: Math.min(batch, run.summary.B - 1), head: Math.min(head, run.summary.H - 1) };
    if (sizesChanged) {
      this.#stop();
      this.#tile = 0;
      this.#step = 0;
      this.#block = defaultBlocks(run.summary);
    }
    this.#draw();
  }

  // The tiled run of this run's config and blocks, run once: stepping through tiles, switching
  // mode and back, or another batch row reuse it (the one before is released).
  #tiledCache = null; // { of (the naive run), block, run }
  #tiledRun(engine, config) {
    const cached = this.#tiledCache;
    if (cached && cached.of === this.#run && cached.block.blockQ === this.#block.blockQ && cached.block.blockK === this.#block.blockK) return cached.run;
    const run = engine.run(config);
    cached?.run.release?.();
    this.#tiledCache = { of: this.#run, block: { ...this.#block }, run };
    return run;
  }

  // One tile's rows of m and ℓ, read once per tile of the cached run (a lazy run recomputes them).
  #tileValues(run, tile, batch, head) {
    const cache = this.#tiledCache;
    const key = `${tile.i} ${tile.j} ${batch} ${head}`;
    if (cache?.run !== run) return run.tile(tile.i, tile.j, { batch, head });
    cache.tiles ??= new Map();
    if (!cache.tiles.has(key)) cache.tiles.set(key, run.tile(tile.i, tile.j, { batch, head }));
    return cache.tiles.get(key);
  }

  // Play: one tile (or one decoding step) every 0.7 s to the end; any other button stops it.
  #playButton(at, last, advance) {
    const t = this.#t;
    const button = el('button', { type: 'button', 'data-action': 'play', 'aria-pressed': String(Boolean(this.#timer)) }, this.#timer ? t('alg.pause') : t('alg.play'));
    button.addEventListener('click', () => {
      if (this.#timer) {
        this.#stop();
      } else {
        if (at >= last) advance(-last); // from the start again
        this.#timer = setInterval(() => {
          if (!this.section.isConnected || advance(1) >= last) this.#stop();
          this.#draw();
        }, 700);
      }
      this.#draw();
      this.#body.querySelector('[data-action="play"]')?.focus();
    });
    return button;
  }

  // "Walk through these steps": this algorithm's run, with every snapshot, in the walkthrough.
  #walkButton(algorithm, extra = {}) {
    const button = el('button', { type: 'button', 'data-action': 'walk' }, this.#t(`alg.walk.${algorithm}`));
    button.addEventListener('click', () => {
      this.#stop();
      button.parentElement.querySelector('.error')?.remove();
      try {
        this.#walk(this.#engine().run({ ...this.#config(), algorithm, ...extra }));
      } catch (error) { // with every snapshot it may not fit the page's memory cap: say so here
        button.after(el('p', { class: 'error', role: 'alert' }, error.messageIn?.(this.#lang) ?? error.message));
      }
    });
    return button;
  }

  #stop() {
    clearInterval(this.#timer);
    this.#timer = null;
  }

  #draw() {
    if (!this.#run) return;
    this.#body.replaceChildren(...(this.#mode === 'tiled' ? this.#tiled() : this.#incremental()));
  }

  // --- Tiled -------------------------------------------------------------------------------------

  #tiled() {
    const t = this.#t;
    const engine = this.#engine();
    const { summary } = this.#run;
    const { batch, head } = this.#slice;
    const config = { ...this.#config(), algorithm: 'tiled', ...this.#block, snapshots: 'lazy' };
    let run;
    try {
      run = this.#tiledRun(engine, config);
    } catch (error) {
      return [el('p', { class: 'error', role: 'alert' }, error.messageIn?.(this.#lang) ?? error.message)];
    }
    const tiles = run.tiles({ batch });
    this.#tile = Math.min(this.#tile, tiles.length - 1);
    const now = tiles[this.#tile];
    const values = this.#tileValues(run, now, batch, head);
    const counts = run.summary.tiles;

    const number = (name, max) => {
      const min = minBlock(max);
      const input = el('input', { type: 'number', id: `alg-${name}`, name, min, max, step: 1, value: this.#block[name], inputmode: 'numeric' });
      input.addEventListener('change', () => {
        const value = Number(input.value);
        if (Number.isInteger(value) && value >= min && value <= max) {
          this.#stop();
          this.#block = { ...this.#block, [name]: value };
          this.#tile = 0;
          this.#draw();
        } else {
          input.value = this.#block[name];
        }
      });
      return el('label', {}, `${t(`alg.${name}`)} `, input);
    };
    const move = (action, delta) => {
      const button = el('button', { type: 'button', 'data-action': action }, t(`alg.${action}`));
      button.disabled = (delta < 0 && this.#tile === 0) || (delta > 0 && this.#tile === tiles.length - 1);
      button.addEventListener('click', () => {
        this.#stop();
        this.#tile = Math.max(0, Math.min(tiles.length - 1, this.#tile + delta));
        this.#draw();
        this.#body.querySelector(`[data-action="${action}"]`)?.focus();
      });
      return button;
    };

    const rows = [];
    for (let r = now.rows[0]; r < now.rows[1]; r++) {
      const k = r - now.rows[0];
      rows.push(el('tr', { 'data-row': r },
        el('th', {}, `q${r}`),
        el('td', { 'data-value': 'maxBefore' }, formatValue(values.maxBefore[k])),
        el('td', { 'data-value': 'max' }, formatValue(values.max[k])),
        el('td', { 'data-value': 'correction' }, formatValue(values.correction[k])),
        el('td', { 'data-value': 'sumBefore' }, formatValue(values.sumBefore[k])),
        el('td', { 'data-value': 'sum' }, formatValue(values.sum[k]))));
    }
    const naive = this.#run.output;
    const equal = naive ? maxAbsDiff(run.output, naive) : null;

    return [
      el('p', { class: 'lesson' }, t('alg.tiledLesson', { Bq: this.#block.blockQ, Bk: this.#block.blockK, Tq: summary.T, Tk: summary.Tk })),
      el('div', { class: 'row' }, number('blockQ', summary.T), number('blockK', summary.Tk),
        el('span', {}, t('alg.slice', { b: batch, h: head }))),
      el('div', { class: 'row' }, move('previous', -1), move('next', 1),
        this.#playButton(this.#tile, tiles.length - 1, (delta) => (this.#tile = Math.max(0, Math.min(tiles.length - 1, this.#tile + delta)))),
        el('span', { class: 'alg-tile-at', 'aria-live': 'polite' }, t(now.skipped ? 'alg.tileSkipped' : 'alg.tileAt', {
          n: this.#tile + 1, count: tiles.length, i: now.i, j: now.j, r0: now.rows[0], r1: now.rows[1] - 1, c0: now.cols[0], c1: now.cols[1] - 1 }))),
      el('div', { class: 'picture' },
        this.#tileGrid(tiles, summary),
        el('div', { class: 'table-wrap' }, el('table', { class: 'alg-rows' },
          el('caption', {}, t('alg.rowsCaption')),
          el('tr', {}, el('th', {}, t('alg.query')), el('th', {}, t('alg.maxBefore')), el('th', {}, t('alg.max')), el('th', {}, t('alg.correction')),
            el('th', {}, t('alg.sumBefore')), el('th', {}, t('alg.sum'))),
          ...rows))),
      el('div', { class: 'row' }, this.#walkButton('tiled', this.#block)),
      el('p', { class: 'alg-counts' }, t('alg.counts', { total: formatCount(counts.total), computed: formatCount(counts.computed), skipped: formatCount(counts.skipped) })),
      equal === null ? null : el('p', { class: 'alg-equal' }, t('alg.tiledEqual', { diff: equal.toExponential(1) })),
      ...this.#memory(),
    ].filter(Boolean);
  }

  // The score matrix of one (batch, head) as the tiles cover it: done, current, skipped, to come.
  #tileGrid(tiles, summary) {
    const cell = Math.max(2, Math.min(CELL_MAX, Math.floor(GRID_MAX / Math.max(summary.T, summary.Tk))));
    const width = summary.Tk * cell;
    const height = summary.T * cell;
    const rects = tiles.map((tile, k) => svg('rect', {
      x: tile.cols[0] * cell, y: tile.rows[0] * cell, width: (tile.cols[1] - tile.cols[0]) * cell, height: (tile.rows[1] - tile.rows[0]) * cell,
      class: k === this.#tile ? 'tile-now' : tile.skipped ? 'tile-skipped' : k < this.#tile ? 'tile-done' : 'tile-next',
      'data-tile': `${tile.i},${tile.j}`,
    }));
    const lines = [];
    for (const tile of tiles) lines.push(svg('rect', { class: 'gridline', x: tile.cols[0] * cell, y: tile.rows[0] * cell, width: (tile.cols[1] - tile.cols[0]) * cell, height: (tile.rows[1] - tile.rows[0]) * cell }));
    return svgWith('svg', { class: 'grid', viewBox: `-1 -1 ${width + 2} ${height + 2}`, width: width + 2, height: height + 2, role: 'img', 'aria-label': this.#t('alg.gridLabel', { Tq: summary.T, Tk: summary.Tk }) }, [
      svg('defs', {}, svg('pattern', { id: 'alg-hatch', width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
        svg('line', { x1: 0, y1: 0, x2: 0, y2: 4, stroke: 'currentColor', 'stroke-width': 1, opacity: 0.5 }))),
      ...rects, ...lines]);
  }

  // The memory of both passes for this config, and over T with the config's other sizes.
  #memory() {
    const t = this.#t;
    const engine = this.#engine();
    const { weights, ...config } = this.#config();
    let model;
    let curve;
    try {
      model = engine.memory({ ...config, ...this.#block });
      curve = engine.memoryCurve({ ...config, ...this.#block });
    } catch {
      return [];
    }
    const row = (name, parts) => el('tr', { 'data-algorithm': name }, el('th', {}, t(`alg.mode.${name}`)),
      el('td', {}, bytesText(parts.scores)), el('td', {}, bytesText(parts.working)), el('td', {}, bytesText(parts.total)));
    // First a size where tiling matters (this config if it saves much here, else T = 4,096 with
    // the same B, C and H); then this config's own numbers, and why a small T can cost more.
    const { T } = this.#run.summary;
    const saves = (point) => point.naive.total / point.tiled.total;
    const lead = saves(model) >= 4 ? null : curve.find((point) => point.T === 4096) ?? curve.at(-1);
    const crossover = curve.find((point) => point.T > T && point.tiled.total < point.naive.total);
    return [
      el('h3', {}, t('alg.memoryTitle')),
      lead && lead.T > T ? el('p', { class: 'alg-memory-lead' }, t('alg.memoryLead', { T: formatCount(lead.T), naive: bytesText(lead.naive.total), tiled: bytesText(lead.tiled.total), ratio: saves(lead) >= 10 ? formatCount(Math.round(saves(lead))) : saves(lead).toFixed(1) })) : null,
      el('p', {}, t('alg.memoryIntro', { bytes: bytesText(model.scoreMatrixBytes) })),
      el('div', { class: 'table-wrap' }, el('table', { class: 'alg-memory' },
        el('caption', {}, t('alg.memoryCaption', { T })),
        el('tr', {}, el('th', {}, ''), el('th', {}, t('alg.scoresHeld')), el('th', {}, t('alg.working')), el('th', {}, t('alg.total'))),
        row('naive', model.naive), row('tiled', model.tiled))),
      model.tiled.total >= model.naive.total ? el('p', { class: 'note alg-memory-small' }, t('alg.memorySmall', {
        T, extra: bytesText(model.tiled.total - model.naive.total), scores: bytesText(model.naive.scores), from: crossover ? formatCount(crossover.T) : '–' })) : null,
      this.#curve(curve),
    ].filter(Boolean);
  }

  #curve(points) {
    const t = this.#t;
    const { width, height, left, right, top, bottom } = CURVE;
    const xs = points.map((p) => Math.log2(p.T));
    const ys = points.flatMap((p) => [p.naive.total, p.tiled.total]).map(Math.log2);
    const [x0, x1] = [Math.min(...xs), Math.max(...xs)];
    // Binary units on the y axis: ticks at 1 KiB, 1 MiB, 1 GiB, … (2^10k bytes).
    const [y0, y1] = [Math.floor(Math.min(...ys) / 10) * 10, Math.ceil(Math.max(...ys) / 10) * 10];
    const X = (T) => left + ((Math.log2(T) - x0) / (x1 - x0 || 1)) * (width - left - right);
    const Y = (bytes) => top + (1 - (Math.log2(bytes) - y0) / (y1 - y0 || 1)) * (height - top - bottom);
    const line = (name, color) => svg('polyline', { fill: 'none', stroke: color, 'stroke-width': 2, 'data-series': name,
      points: points.map((p) => `${X(p.T).toFixed(1)},${Y(p[name].total).toFixed(1)}`).join(' ') });
    const current = points.find((p) => p.current);
    const ticks = [];
    for (let y = y0; y <= y1; y += 10) ticks.push(svg('text', { x: left - 4, y: Y(2 ** y) + 3, 'text-anchor': 'end', 'font-size': 9, fill: 'currentColor' }, `1 ${UNITS[y / 10]}`));
    for (const p of points.filter((p) => Math.log2(p.T) % 4 === 0)) {
      ticks.push(svg('text', { x: X(p.T), y: height - bottom + 12, 'text-anchor': 'middle', 'font-size': 9, fill: 'currentColor' }, formatCount(p.T)));
    }
    return el('figure', {},
      svg('svg', { class: 'curve', viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('alg.curveLabel') },
        svg('line', { x1: left, y1: height - bottom, x2: width - right, y2: height - bottom, stroke: 'currentColor', 'stroke-width': 0.5 }),
        svg('line', { x1: left, y1: top, x2: left, y2: height - bottom, stroke: 'currentColor', 'stroke-width': 0.5 }),
        ...ticks,
        line('naive', '#d55e00'), line('tiled', '#0072b2'),
        current ? svg('circle', { cx: X(current.T), cy: Y(current.naive.total), r: 3, fill: '#d55e00' }) : null,
        current ? svg('circle', { cx: X(current.T), cy: Y(current.tiled.total), r: 3, fill: '#0072b2' }) : null,
        svg('text', { x: (left + width) / 2, y: height - 2, 'text-anchor': 'middle', 'font-size': 10, fill: 'currentColor' }, 'T')),
      el('figcaption', {}, t('alg.curveCaption')));
  }

  // --- Incremental -------------------------------------------------------------------------------

  #incremental() {
    const t = this.#t;
    const { summary } = this.#run;
    if (summary.mask !== 'causal' || summary.cross) return [el('p', { class: 'note alg-needs-causal' }, t('alg.needsCausal'))];
    if (summary.T > MAX_DECODE_T) return [el('p', { class: 'note alg-too-long' }, t('alg.decodeTooLong', { T: summary.T, max: MAX_DECODE_T })), ...this.#kvTables()];
    let run;
    try {
      run = this.#engine().run({ ...this.#config(), algorithm: 'incremental' });
    } catch (error) {
      return [el('p', { class: 'error', role: 'alert' }, error.messageIn?.(this.#lang) ?? error.message)];
    }
    const { batch, head } = this.#slice;
    const { T, H, Hkv, D } = summary;
    this.#step = Math.min(this.#step, T - 1);
    const step = this.#step;
    const kvHead = Math.floor(head / (H / Hkv));
    const move = (action, delta) => {
      const button = el('button', { type: 'button', 'data-action': `token-${action}` }, t(`alg.${action}Token`));
      button.disabled = (delta < 0 && step === 0) || (delta > 0 && step === T - 1);
      button.addEventListener('click', () => {
        this.#stop();
        this.#step = Math.max(0, Math.min(T - 1, step + delta));
        this.#draw();
        this.#body.querySelector(`[data-action="token-${action}"]`)?.focus();
      });
      return button;
    };
    const bytes = run.cacheBytes()[step];
    const naive = this.#run.output;
    const equal = naive ? maxAbsDiff(run.output, naive) : null;
    return [
      el('p', { class: 'lesson' }, t('alg.incrementalLesson')),
      el('div', { class: 'row' }, move('previous', -1), move('next', 1),
        this.#playButton(step, T - 1, (delta) => (this.#step = Math.max(0, Math.min(T - 1, this.#step + delta)))),
        el('span', { class: 'alg-token-at', 'aria-live': 'polite' }, t('alg.tokenAt', { t: step, last: T - 1, b: batch, h: head }))),
      el('div', { class: 'picture' }, this.#decodeGrid(run, step, summary), this.#cacheGrid(run, step, kvHead, summary)),
      el('p', { class: 'alg-cache-bytes' }, t('alg.cacheBytes', {
        shape: `[${bytes.shape.join(',')}]`, measured: formatCount(bytes.bytes), formula: formatCount(bytes.formulaBytes),
        B: summary.B, tokens: bytes.tokens, Hkv, D })),
      equal === null ? null : el('p', { class: 'alg-equal' }, t('alg.incrementalEqual', { diff: equal.toExponential(1) })),
      el('div', { class: 'row' }, this.#walkButton('incremental')),
      ...this.#kvTables(),
    ].filter(Boolean);
  }

  // The KV cache's size for MHA, GQA and MQA: this config, and a 7B-class model's shape.
  #kvTables() {
    const t = this.#t;
    const engine = this.#engine();
    const { T, H, Hkv, C } = this.#run.summary;
    const table = engine.kvCache({ C, H, Hkv, layers: 1, tokens: T });
    const named = engine.namedShapes[0];
    const kvRow = (row) => el('tr', { 'data-layout': row.layout, class: row.current ? 'current' : '' },
      el('th', {}, `${row.layout} (Hkv=${row.Hkv})`), el('td', {}, `2·${row.Hkv}·${table.D}·4 = ${formatCount(row.bytesPerTokenPerLayer)} B`), el('td', {}, bytesText(row.bytes)));
    const namedRow = (row) => el('tr', { 'data-layout': row.layout, class: row.current ? 'current' : '' },
      el('th', {}, `${row.layout} (Hkv=${row.Hkv})`),
      el('td', {}, `2·${row.Hkv}·${named.table.D}·4·${named.table.layers} = ${formatCount(row.bytesPerToken)} B`),
      el('td', {}, bytesText(row.bytes)));
    return [
      el('h3', {}, t('alg.kvTitle')),
      el('div', { class: 'table-wrap' }, el('table', { class: 'alg-kv' },
        el('caption', {}, t('alg.kvCaption', { T, D: table.D })),
        el('tr', {}, el('th', {}, ''), el('th', {}, t('alg.perToken')), el('th', {}, t('alg.forTokens', { T }))),
        ...table.rows.map(kvRow))),
      named ? el('div', { class: 'table-wrap' }, el('table', { class: 'alg-named' },
        el('caption', {}, t('alg.namedCaption', { name: t(`alg.named.${named.id}`), C: named.table.C, H: named.table.H, layers: named.table.layers, tokens: formatCount(named.table.tokens) })),
        el('tr', {}, el('th', {}, ''), el('th', {}, t('alg.perToken')), el('th', {}, t('alg.forTokens', { T: formatCount(named.table.tokens) }))),
        ...named.table.rows.map(namedRow))) : null,
    ].filter(Boolean);
  }

  // The causal weights of one (batch, head), a row added per decoding step (the rows to come empty),
  // on the heatmaps' default scale (relative to each row's uniform weight 1/(t + 1), hatched where
  // a key comes after its query), with query and key positions along its sides and its legend.
  #decodeGrid(run, step, summary) {
    const t = this.#t;
    const { T, H } = summary;
    const { batch, head } = this.#slice;
    const cell = Math.max(2, Math.min(CELL_MAX, Math.floor(GRID_MAX / T)));
    // The rows so far as one [T, T] map: computed rows in place, the rest left out like masked keys.
    const data = new Float32Array(T * T);
    for (let r = 0; r <= step; r++) {
      const weights = run.step('decode_weights', { t: r });
      data.set(weights.data.subarray((batch * H + head) * (r + 1), (batch * H + head + 1) * (r + 1)), r * T);
    }
    const hidden = (i) => i % T > Math.floor(i / T) || Math.floor(i / T) > step;
    const panel = { offset: 0, rows: T, cols: T };
    const [scale] = heatmapScales({ op: 'softmax', id: 'weights', data }, [panel], 'uniform', hidden);
    const numbers = legendNumbers(scale, { id: 'weights' }, t);
    const font = Math.max(7, Math.min(11, cell * 0.6));
    const every = Math.max(1, Math.ceil((font + 1) / cell));
    const margin = Math.ceil(font * 2.2);
    const cells = [];
    for (let r = 0; r <= step; r++) {
      for (let k = 0; k < T; k++) {
        const masked = k > r;
        cells.push(svg('rect', { x: margin + k * cell, y: margin + r * cell, width: cell, height: cell, fill: masked ? 'url(#alg-decode-hatch)' : scale.color(data[r * T + k], r),
          'data-cell': `${r},${k}`, ...(masked ? { 'data-masked': '' } : {}) }));
      }
    }
    const labels = [];
    for (let i = 0; i < T; i += every) {
      labels.push(svg('text', { x: margin - 3, y: margin + (i + 0.5) * cell + font * 0.35, 'font-size': font, 'text-anchor': 'end', fill: 'currentColor', class: 'query-label' }, String(i)));
      labels.push(svg('text', { x: margin + (i + 0.5) * cell, y: margin - 3, 'font-size': font, 'text-anchor': 'middle', fill: 'currentColor', class: 'key-label' }, String(i)));
    }
    const now = svg('rect', { x: margin, y: margin + step * cell, width: (step + 1) * cell, height: cell, fill: 'none', stroke: 'var(--accent)', 'stroke-width': 2 });
    const size = margin + T * cell + 2;
    return el('figure', { class: 'decode-map' },
      svgWith('svg', { class: 'grid', viewBox: `-1 -1 ${size} ${size}`, width: size, height: size, role: 'img', 'aria-label': t('alg.decodeLabel', { t: step }) },
        [svg('defs', {}, svg('pattern', { id: 'alg-decode-hatch', width: 4, height: 4, patternUnits: 'userSpaceOnUse', patternTransform: 'rotate(45)' },
          svg('line', { x1: 0, y1: 0, x2: 0, y2: 4, stroke: 'currentColor', 'stroke-width': 1, opacity: 0.45 }))),
        svg('rect', { class: 'gridline', x: margin, y: margin, width: T * cell, height: T * cell }), ...labels, ...cells, now]),
      rampLegend(rampColors(scale.ramp, 11, numbers.from, numbers.to), numbers.numbers, `${t('hm.reached', { range: numbers.reachedText })} · ${t('alg.decodeScale')}`),
      el('figcaption', {}, t('alg.decodeCaption')));
  }

  // The K cache of one K/V head at this step: one row per token so far, D values each.
  #cacheGrid(run, step, kvHead, summary) {
    const { Hkv, D, T } = summary;
    const { batch } = this.#slice;
    const cache = run.step('cache_k', { t: step });
    const tokens = step + 1;
    const start = (batch * Hkv + kvHead) * tokens * D;
    const values = cache.data.subarray(start, start + tokens * D);
    let extent = 0;
    for (const v of values) extent = Math.max(extent, Math.abs(v));
    const cell = Math.max(2, Math.min(CELL_MAX, Math.floor(GRID_MAX / Math.max(T, D))));
    const cells = [];
    for (let r = 0; r < tokens; r++) {
      for (let d = 0; d < D; d++) {
        const v = values[r * D + d] / (extent || 1);
        cells.push(svg('rect', { x: d * cell, y: r * cell, width: cell, height: cell, fill: v >= 0 ? `rgba(230,159,0,${Math.abs(v).toFixed(3)})` : `rgba(0,114,178,${Math.abs(v).toFixed(3)})` }));
      }
    }
    const now = svg('rect', { x: 0, y: step * cell, width: D * cell, height: cell, fill: 'none', stroke: 'var(--accent)', 'stroke-width': 2 });
    return el('figure', {},
      svgWith('svg', { class: 'grid', viewBox: `-1 -1 ${D * cell + 2} ${T * cell + 2}`, width: D * cell + 2, height: T * cell + 2, role: 'img', 'aria-label': this.#t('alg.cacheLabel', { tokens, D }) },
        [svg('rect', { class: 'gridline', x: 0, y: 0, width: D * cell, height: T * cell }), ...cells, now]),
      rampLegend([-1, -0.5, 0, 0.5, 1].map((v) => (v < 0 ? `rgba(0,114,178,${-v})` : `rgba(230,159,0,${v})`)),
        [formatValue(-extent, 3), '0', formatValue(extent, 3)], this.#t('alg.cacheScale')),
      el('figcaption', {}, this.#t('alg.cacheCaption', { h: kvHead, tokens, D })));
  }
}
