// <mha-lm>'s section, loaded when it comes near the screen (mha-lm.js): what the model reads, the
// heads over the typed characters, the next character, generation with the KV cache, training from
// scratch, what positions do, and honest words. It draws only: the model answers from its service
// (worker/mha-lm-worker.js) through `session`. No engine here; its words (text/lm-en.js,
// lm-zh.js) come with it, added to the page's t() the element hands it.
import { el as h } from '../base/dom.js';
import { lmStyles } from './styles.js';
import { withLmWords } from '../../text/lm-words.js';
import { bestJob, curvePath, heatRgb, JOBS, kilobytes } from '../../logic/lm/view-logic.js';

// A bar's filled part, `percent` wide (set through the CSSOM: a style attribute breaks a strict style-src).
function fill(percent) {
  const node = h('span', { class: 'fill' });
  node.style.width = `${percent}%`;
  return node;
}

const SVG = 'http://www.w3.org/2000/svg';
const s = (tag, attributes = {}) => {
  const node = document.createElementNS(SVG, tag);
  for (const [name, value] of Object.entries(attributes)) node.setAttribute(name, String(value));
  return node;
};

// Texts to start from: the corpus's own kind of text, and a passage written twice, so that a head
// that copies (induction) has something to copy (invented words: the model cannot know them).
const EXAMPLES = {
  'moby-dick': { first: 'Call me Ishmael. Some years ago, never mind how long precisely, I went to sea. Call me Ishma', repeat: 'the zorbled quibbish xanthor, the zorbled quibbish xanthor, the zorbled quib' },
  'tang-poems': { first: '床前明月光，疑是地上霜。举头望明月，低头思故', repeat: '春眠不觉晓，处处闻啼鸟。春眠不觉晓，处处闻' },
};
const PROMPTS = { 'moby-dick': 'The whale ', 'tang-poems': '白日依山尽，' };
const READ_DELAY_MS = 120;
// How long one frame may spend painting maps.
const PAINT_BUDGET_MS = 12;
// Below this share on its best job's place, a head is said to have no clear job.
const CLEAR_JOB = 0.3;
// The job each corpus's curve and position lesson follow.
const HEADLINE_JOB = { 'moby-dick': 'previousChar', 'tang-poems': 'halfLine' };
// An induction head puts at least this share on the character after the earlier occurrence.
const INDUCTION_FORMED = 0.5;
// The corpora's names as word keys.
const KEY = { 'moby-dick': 'mobyDick', 'tang-poems': 'tangPoems' };

// The masked cells (a key after the query): light grey.
const MASKED = [236, 238, 242];
const FOCUS = [224, 161, 0];
// Up to this many characters, each map carries them along its top and left edges.
const LABELLED = 40;

/**
 * Paints one head's weights ([n, n] at `offset` of `data`) into `canvas`, row `row` outlined;
 * `chars` (the characters read) along the edges of a small map.
 */
function paintHead(canvas, data, offset, n, row, chars = null) {
  // A long text: one pixel per cell, scaled up by CSS (pixelated), the chosen row tinted; a short
  // one: bigger cells, the characters along the edges and the row outlined.
  const labelled = chars && n <= LABELLED;
  const cell = labelled ? Math.max(3, Math.min(16, Math.floor(320 / n))) : 1;
  const margin = labelled ? cell : 0;
  canvas.width = n * cell + margin;
  canvas.height = n * cell + margin;
  const ctx = canvas.getContext('2d');
  // The cells as one ImageData: a map of 128 characters is 16,384 cells, too many for fillRect
  // on every keystroke.
  const side = n * cell;
  const image = ctx.createImageData(side, side);
  const pixels = image.data;
  const rgb = [0, 0, 0];
  for (let i = 0; i < n; i++) {
    for (let j = 0; j < n; j++) {
      if (j > i) {
        rgb[0] = MASKED[0];
        rgb[1] = MASKED[1];
        rgb[2] = MASKED[2];
      } else {
        heatRgb(data[offset + i * n + j], rgb);
      }
      if (!labelled && i === row) {
        // The chosen row, mixed half with the focus colour.
        rgb[0] = (rgb[0] + FOCUS[0]) >> 1;
        rgb[1] = (rgb[1] + FOCUS[1]) >> 1;
        rgb[2] = (rgb[2] + FOCUS[2]) >> 1;
      }
      for (let y = i * cell; y < (i + 1) * cell; y++) {
        let k = (y * side + j * cell) * 4;
        for (let x = 0; x < cell; x++, k += 4) {
          pixels[k] = rgb[0];
          pixels[k + 1] = rgb[1];
          pixels[k + 2] = rgb[2];
          pixels[k + 3] = 255;
        }
      }
    }
  }
  ctx.clearRect(0, 0, canvas.width, canvas.height);
  ctx.putImageData(image, margin, margin);
  if (margin) {
    ctx.fillStyle = '#5b6170';
    ctx.font = `${Math.round(cell * 0.8)}px system-ui, "Noto Sans CJK SC", sans-serif`;
    ctx.textAlign = 'center';
    ctx.textBaseline = 'middle';
    chars.forEach((char, i) => {
      const shown = char === ' ' ? '·' : char === '\n' ? '⏎' : char;
      ctx.fillText(shown, margin + (i + 0.5) * cell, margin / 2);
      ctx.fillText(shown, margin / 2, margin + (i + 0.5) * cell);
    });
  }
  if (labelled && row !== null && row >= 0 && row < n) {
    ctx.strokeStyle = '#e0a100';
    ctx.lineWidth = Math.max(1, cell / 5);
    ctx.strokeRect(margin + 0.5, margin + row * cell + 0.5, n * cell - 1, cell - 1);
  }
}

export function createLmView({ root, host, t: initialT, session, text: initialText, onRead, onWalk, onError }) {
  let t = withLmWords(initialT);
  let corpus = null;
  let model = null; // 'opened'
  let text = initialText ?? null;
  let position = null; // the character whose next one is shown (null: the last)
  let reading = null;
  let readId = 0;
  let readTimer = 0;
  let genId = 0;
  let generating = false;
  let generation = null; // { text, cached, cacheBytes, ms, recompute? }
  let training = { step: 0, running: false, points: [], sample: '', scores: null, shipped: true, loss: null };
  let error = null;
  let paintFrame = 0; // the frame that paints the maps still waiting
  const nodes = {};

  root.adoptedStyleSheets = [...root.adoptedStyleSheets.filter((sheet) => sheet !== lmStyles()), lmStyles()];

  function send(message) { session.send(message); }

  function read() {
    clearTimeout(readTimer);
    readTimer = setTimeout(() => {
      if (!model || !text) return;
      send({ type: 'read', id: ++readId, text, position: position === null ? null : position + 1, seed: 1 });
    }, READ_DELAY_MS);
  }

  // --- Building, in the reader's language ---------------------------------------------------
  function build() {
    cancelAnimationFrame(paintFrame);
    const input = h('textarea', { id: 'lm-text', name: 'text', rows: 3, spellcheck: 'false', 'aria-describedby': 'lm-text-note' });
    input.value = text ?? '';
    input.addEventListener('input', () => {
      text = input.value;
      position = null;
      if (text.length === 0) return;
      read();
    });
    const corpusSelect = h('select', { id: 'lm-corpus', name: 'corpus' },
      h('option', { value: 'moby-dick' }, t('lm.corpus.mobyDick')), h('option', { value: 'tang-poems' }, t('lm.corpus.tangPoems')));
    corpusSelect.value = corpus ?? 'moby-dick';
    corpusSelect.addEventListener('change', () => { host.corpus = corpusSelect.value; });
    const layerSelect = h('select', { id: 'lm-walk-layer', name: 'walkLayer', 'aria-label': t('lm.walk.layer') });
    const walk = h('button', { type: 'button', class: 'walk' }, t('lm.walk'));
    walk.addEventListener('click', () => onWalk(Number(layerSelect.value) || 0));

    const prompt = h('input', { id: 'lm-prompt', name: 'prompt', type: 'text', value: PROMPTS[corpus ?? 'moby-dick'] });
    const temperature = h('input', { id: 'lm-temperature', name: 'temperature', type: 'range', min: 0, max: 1.5, step: 0.1, value: 0.8 });
    const temperatureOut = h('output', { for: 'lm-temperature' }, '0.8');
    temperature.addEventListener('input', () => { temperatureOut.textContent = Number(temperature.value).toFixed(1); });
    const topK = h('select', { id: 'lm-topk', name: 'topK' }, ...[0, 5, 10, 20].map((k) => h('option', { value: k }, k === 0 ? t('lm.gen.all') : String(k))));
    const length = h('select', { id: 'lm-length', name: 'length' }, ...[64, 128, 256].map((n) => h('option', { value: n }, String(n))));
    length.value = '128';
    const seed = h('input', { id: 'lm-seed', name: 'seed', type: 'number', min: 0, max: 999999, value: 1 });
    const go = h('button', { type: 'button', class: 'primary generate' }, t('lm.gen.go'));
    go.addEventListener('click', () => {
      if (generating) {
        send({ type: 'stop' });
        generating = false;
        draw();
        return;
      }
      if (!prompt.value) return;
      generating = true;
      generation = { text: '', cached: 0, cacheBytes: 0, ms: 0 };
      send({ type: 'generate', id: ++genId, prompt: prompt.value, length: Number(length.value), temperature: Number(temperature.value), topK: Number(topK.value), seed: Math.max(0, Math.floor(Number(seed.value) || 0)) });
      draw();
    });

    const trainButton = h('button', { type: 'button', class: 'primary train' }, t('lm.train.go'));
    trainButton.addEventListener('click', () => {
      training.running = true;
      send({ type: 'train', until: training.shipped ? undefined : undefined });
      draw();
    });
    const pauseButton = h('button', { type: 'button', class: 'pause' }, t('lm.train.pause'));
    pauseButton.addEventListener('click', () => send({ type: 'pause' }));
    const resetButton = h('button', { type: 'button', class: 'reset' }, t('lm.train.reset'));
    resetButton.addEventListener('click', () => {
      training = { step: 0, running: false, points: [], sample: '', scores: null, shipped: false, loss: null };
      send({ type: 'reset' });
      draw();
    });

    Object.assign(nodes, {
      canvases: new Map(),
      input, corpusSelect, layerSelect, walk, prompt, temperature, temperatureOut, topK, length, seed, go, trainButton, pauseButton, resetButton,
      status: h('p', { class: 'status', role: 'status' }),
      error: h('p', { class: 'error', role: 'alert' }),
      textNote: h('p', { class: 'note', id: 'lm-text-note' }),
      chars: h('div', { class: 'chars', role: 'group', 'aria-label': t('lm.chars') }),
      heads: h('div', { class: 'heads' }),
      induction: h('p', { class: 'note induction' }),
      next: h('div', { class: 'next' }),
      nextTitle: h('h4', { class: 'next-title' }),
      output: h('pre', { class: 'output', 'aria-live': 'off' }),
      cache: h('div', { class: 'cache' }),
      timing: h('p', { class: 'note timing' }),
      trainStatus: h('p', { class: 'status train-status' }),
      curve: h('figure', { class: 'curve' }),
      sample: h('pre', { class: 'sample' }),
      forming: h('div', { class: 'forming' }),
      positions: h('div', { class: 'positions' }),
    });
    const field = (label, control, extra, cls = '') => h('label', { class: `field ${cls}` }, h('span', {}, label), control, extra ?? null);
    root.replaceChildren(h('section', { class: 'lm', 'aria-label': t('lm.title') },
      h('p', { class: 'intro' }, t('lm.intro')),
      h('div', { class: 'row' }, field(t('lm.corpus'), corpusSelect)),
      nodes.status, nodes.error,
      h('div', { class: 'card read' },
        h('h3', {}, t('lm.read.title')),
        field(t('lm.read.label'), input, null, 'text'),
        h('div', { class: 'buttons examples' }, ...['first', 'repeat'].map((name) => {
          const button = h('button', { type: 'button', 'data-example': name }, t(`lm.example.${name}`));
          button.addEventListener('click', () => {
            text = EXAMPLES[corpus ?? 'moby-dick'][name];
            input.value = text;
            position = null;
            read();
          });
          return button;
        })),
        nodes.textNote,
        nodes.chars,
        h('p', { class: 'note' }, t('lm.read.heads')),
        nodes.heads,
        nodes.induction,
        nodes.nextTitle, nodes.next,
        h('div', { class: 'row walk-row' }, field(t('lm.walk.layer'), layerSelect), walk),
        h('p', { class: 'note' }, t('lm.walk.note'))),
      h('div', { class: 'card generate' },
        h('h3', {}, t('lm.gen.title')),
        h('div', { class: 'controls' }, field(t('lm.gen.prompt'), prompt), field(t('lm.gen.temperature'), temperature, temperatureOut),
          field(t('lm.gen.topK'), topK), field(t('lm.gen.length'), length), field(t('lm.gen.seed'), seed), go),
        nodes.output, nodes.cache, nodes.timing),
      h('div', { class: 'card train' },
        h('h3', {}, t('lm.train.title')),
        h('p', { class: 'note' }, t('lm.train.recipe')),
        h('div', { class: 'buttons' }, trainButton, pauseButton, resetButton),
        nodes.trainStatus, nodes.curve,
        h('h4', {}, t('lm.train.sample')), nodes.sample,
        h('h4', {}, t('lm.train.forming')), nodes.forming),
      h('div', { class: 'card positions-card' },
        h('h3', {}, t('lm.pos.title')),
        h('p', { class: 'note' }, t('lm.pos.intro')),
        nodes.positions),
      h('div', { class: 'card honest' },
        h('h3', {}, t('lm.honest.title')),
        h('p', {}, t('lm.honest.small')),
        h('p', {}, t('lm.honest.can')),
        h('p', {}, t('lm.honest.cannot')),
        h('p', {}, t(`lm.honest.source.${KEY[corpus ?? 'moby-dick']}`)))));
    draw();
  }

  // --- Drawing ------------------------------------------------------------------------------
  function draw() {
    if (!nodes.status) return;
    nodes.error.textContent = error ? t('lm.error', { detail: error }) : '';
    nodes.status.textContent = !model ? t('lm.loading') : model.missing
      ? t('lm.missing', { corpus: t(`lm.corpus.${KEY[corpus]}`) })
      : t(model.bits === null ? 'lm.statusMeasuring' : 'lm.status', { layers: model.options.layers, heads: model.options.heads, width: model.options.width, T: model.context, steps: model.step,
        bits: model.bits?.toFixed(2), characters: model.characters?.toLocaleString('en'), params: model.parameterCount.toLocaleString('en') });
    drawReading();
    drawGeneration();
    drawTraining();
  }

  function drawReading() {
    if (model?.scores) {
      // Measured on held-out text where a passage repeats: the honest answer, whatever it is.
      const best = model.scores.reduce((a, b) => (b.jobs.induction > a.jobs.induction ? b : a));
      nodes.induction.textContent = t(best.jobs.induction >= INDUCTION_FORMED ? 'lm.read.inductionFound' : 'lm.read.inductionNone',
        { layer: best.layer, head: best.head, score: best.jobs.induction.toFixed(2), target: INDUCTION_FORMED });
    }
    if (!reading) return;
    const { window: chars, unknown, layers, heads: H, scores } = reading;
    const n = chars.length;
    const row = position === null ? n - 1 : Math.min(n - 1, position - (Array.from(reading.text).length - n));
    nodes.textNote.textContent = [
      Array.from(reading.text).length > n ? t('lm.read.context', { n, T: model.context }) : '',
      unknown.length ? t('lm.read.unknown', { chars: unknown.map((u) => u.char).join(' '), mark: model.corpus === 'tang-poems' ? '□' : t('lm.read.space') }) : '',
    ].filter(Boolean).join(' ');
    const offset = Array.from(reading.text).length - n;
    nodes.chars.replaceChildren(...chars.map((char, i) => {
      const button = h('button', { type: 'button', class: `char${i === row ? ' chosen' : ''}${unknown.some((u) => u.index === offset + i) ? ' unknown' : ''}`,
        'aria-pressed': String(i === row), title: t('lm.chars.choose') }, char === ' ' ? '␣' : char === '\n' ? '⏎' : char);
      button.addEventListener('click', () => {
        position = offset + i;
        read();
      });
      return button;
    }));
    const figures = [];
    const paints = [];
    for (const { layer, weights } of layers) {
      const layerHeads = h('div', { class: 'layer-heads' });
      figures.push(h('div', { class: 'layer', 'data-layer': layer }, h('h4', {}, t('lm.layer', { layer })), layerHeads));
      for (let head = 0; head < H; head++) {
        const score = scores.find((entry) => entry.layer === layer && entry.head === head);
        const best = bestJob(score.jobs, model.corpus);
        const canvas = canvasFor(`head ${layer} ${head}`, 'map', t('lm.head.label', { layer, head }));
        paints.push(() => paintHead(canvas, weights, head * n * n, n, row, chars));
        const figure = h('figure', { class: 'head', 'data-layer': layer, 'data-head': head },
          canvas,
          h('figcaption', {}, h('span', { class: 'which' }, t('lm.head.name', { layer, head })), ' ',
            h('span', { class: 'job' }, best.score >= CLEAR_JOB ? `${t(`lm.job.${best.job}`)} ${best.score.toFixed(2)}` : t('lm.job.none')),
            h('span', { class: 'jobs' }, JOBS[model.corpus].map((job) => `${t(`lm.job.${job}`)} ${score.jobs[job].toFixed(2)}`).join(' · '))));
        figure.weights = weights.subarray(head * n * n, (head + 1) * n * n);
        layerHeads.append(figure);
      }
    }
    nodes.heads.replaceChildren(...figures);
    nodes.heads.dataset.text = reading.text;
    const upTo = reading.upTo.join('');
    nodes.nextTitle.textContent = t('lm.next.title', { after: upTo.length > 16 ? `…${Array.from(upTo).slice(-16).join('')}` : upTo });
    nodes.next.replaceChildren(...bars(reading.next));
    const layerCount = layers.length;
    if (nodes.layerSelect.options.length !== layerCount) {
      nodes.layerSelect.replaceChildren(...layers.map(({ layer }) => h('option', { value: layer }, String(layer))));
    }
    nodes.positions.replaceChildren(...['trained', 'removed', 'shuffled'].map((mode) => {
      const { next, weights } = reading.positions[mode];
      const m = Math.round(Math.sqrt(weights.length / H));
      // The head whose job needs positions most: the previous character (English), the previous half-line (verse).
      const job = HEADLINE_JOB[model.corpus];
      const prev = scores.filter((entry) => entry.layer === 0).sort((a, b) => b.jobs[job] - a.jobs[job])[0]?.head ?? 0;
      const canvas = canvasFor(`position ${mode}`, 'map small', t('lm.pos.map', { head: prev }));
      const asked = reading.upTo; // painted later, when `reading` may be another text's
      paints.push(() => paintHead(canvas, weights, prev * m * m, m, m - 1, asked));
      return h('div', { class: `mode ${mode}`, 'data-mode': mode }, h('h4', {}, t(`lm.pos.${mode}`)), h('div', { class: 'next' }, ...bars(next)), canvas,
        h('p', { class: 'note' }, t(`lm.pos.${mode}.note`)));
    }));
    paintSoon(paints);
  }

  // The maps are painted a few at a time, one batch per frame, so that no task of the page's
  // runs long however many heads there are; a newer text's maps replace any still waiting.
  function paintSoon(paints) {
    cancelAnimationFrame(paintFrame);
    const next = () => {
      const started = performance.now();
      while (paints.length && performance.now() - started < PAINT_BUDGET_MS) paints.shift()();
      paintFrame = paints.length ? requestAnimationFrame(next) : 0;
      if (!paints.length) nodes.heads.dataset.painted = nodes.heads.dataset.text;
    };
    paintFrame = requestAnimationFrame(next);
  }

  // The maps' canvases are kept from one text to the next (a new canvas and its context cost more
  // than painting it again).
  function canvasFor(key, cls, label) {
    let canvas = nodes.canvases.get(key);
    if (!canvas) {
      canvas = h('canvas', { class: cls, role: 'img' });
      nodes.canvases.set(key, canvas);
    }
    canvas.setAttribute('aria-label', label);
    return canvas;
  }

  function bars(entries) {
    return entries.map(({ char, p }) => h('div', { class: 'bar', 'data-char': char },
      h('span', { class: 'c' }, char === ' ' ? '␣' : char === '\n' ? '⏎' : char),
      h('span', { class: 'track' }, fill((100 * p).toFixed(1))),
      h('span', { class: 'p' }, p.toFixed(3))));
  }

  function drawGeneration() {
    nodes.go.textContent = generating ? t('lm.gen.stop') : t('lm.gen.go');
    nodes.go.disabled = !model;
    if (!generation) return;
    nodes.output.replaceChildren(h('span', { class: 'prompt' }, nodes.prompt.value), generation.text);
    const max = model.cacheMax ?? 1;
    const share = Math.min(1, generation.cacheBytes / max);
    nodes.cache.replaceChildren(h('span', { class: 'cache-label' }, t('lm.gen.cache', { n: generation.cached, kb: kilobytes(generation.cacheBytes), T: model.context })),
      h('span', { class: 'track' }, fill((100 * share).toFixed(1))));
    const count = Array.from(generation.text).length;
    nodes.timing.textContent = generation.recompute
      ? t('lm.gen.timing', { n: count, cached: generation.ms.toFixed(0), rate: Math.round(count / (generation.ms / 1000)), full: generation.recompute.ms.toFixed(0),
        every: generation.recompute.every, ratio: (generation.recompute.ms / generation.ms).toFixed(1) })
      : t('lm.gen.running', { n: count, ms: generation.ms.toFixed(0) });
    nodes.output.dataset.done = generation.recompute ? 'true' : 'false';
  }

  function drawTraining() {
    const { running, step, points } = training;
    nodes.trainButton.disabled = !model || running;
    nodes.pauseButton.disabled = !running;
    nodes.resetButton.disabled = !model;
    const last = points.at(-1);
    nodes.trainStatus.textContent = !model ? '' : training.shipped
      ? t('lm.train.shipped', { steps: step, bits: last ? last.bits.toFixed(2) : '–' })
      : t('lm.train.status', { step, bits: last ? last.bits.toFixed(2) : '–', loss: training.loss === null ? '–' : (training.loss / Math.LN2).toFixed(2) });
    nodes.trainStatus.dataset.step = String(step);
    nodes.trainStatus.dataset.running = String(running);
    const width = 320;
    const height = 130;
    const svg = s('svg', { viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': t('lm.train.curve') });
    const top = Math.max(1, ...points.map((p) => p.bits));
    const last2 = Math.max(model?.trainTarget ?? 600, step, ...points.map((p) => p.step));
    svg.append(s('line', { x1: 30, y1: 110, x2: 310, y2: 110, class: 'axis' }), s('line', { x1: 30, y1: 10, x2: 30, y2: 110, class: 'axis' }));
    const label = (x, y, value, cls = '') => { const node = s('text', { x, y, class: cls }); node.textContent = value; svg.append(node); };
    label(2, 14, top.toFixed(1)); label(2, 112, '0'); label(280, 124, String(last2));
    if (points.length) {
      svg.append(s('polyline', { class: 'bits', points: curvePath(points.map((p) => [p.step, p.bits]), { x0: 30, x1: 310, y0: 110, y1: 10, xMax: last2, yMax: top }) }));
      svg.append(s('polyline', { class: 'prev', points: curvePath(points.map((p) => [p.step, p.job]), { x0: 30, x1: 310, y0: 110, y1: 10, xMax: last2, yMax: 1 }) }));
      // Each measured point as a dot: one point alone (the trained model) is no line.
      for (const p of points) {
        for (const [value, max, cls] of [[p.bits, top, 'bits'], [p.job, 1, 'prev']]) {
          const [x, y] = curvePath([[p.step, value]], { x0: 30, x1: 310, y0: 110, y1: 10, xMax: last2, yMax: max }).split(',');
          svg.append(s('circle', { cx: x, cy: y, r: 2.5, class: cls }));
        }
      }
    }
    nodes.curve.replaceChildren(svg, h('figcaption', { class: 'legend' },
      h('span', {}, h('i', { class: 'swatch bits' }), t('lm.train.bits')), ' ', h('span', {}, h('i', { class: 'swatch prev' }), t(`lm.train.job.${KEY[corpus ?? 'moby-dick']}`))));
    nodes.sample.textContent = training.sample || '';
    nodes.forming.replaceChildren(...(training.scores ?? []).map((entry) => {
      const best = bestJob(entry.jobs, corpus);
      return h('div', { class: 'bar', 'data-layer': entry.layer, 'data-head': entry.head, 'data-previous': entry.jobs.previousChar.toFixed(4) },
        h('span', { class: 'c' }, t('lm.head.name', { layer: entry.layer, head: entry.head })),
        h('span', { class: 'track' }, fill((100 * best.score).toFixed(1))),
        h('span', { class: 'p' }, `${t(`lm.job.${best.job}`)} ${best.score.toFixed(2)}`));
    }));
  }

  function point(message) {
    const job = HEADLINE_JOB[corpus];
    return { step: message.step, bits: message.bits, job: Math.max(...message.scores.map((entry) => entry.jobs[job])) };
  }

  // --- Messages from the service -----------------------------------------------------------
  function receive(message) {
    switch (message.type) {
      case 'opened':
        model = { ...message, bits: null, characters: null, scores: null, cacheMax: null };
        // The cache's full size: K and V for T characters in every layer (float32).
        model.cacheMax = 2 * message.options.layers * message.context * message.options.width * 4;
        error = null;
        training = { step: message.step, running: false, points: [], sample: '', scores: null, shipped: !message.missing, loss: null };
        if (!text) text = EXAMPLES[corpus].first;
        nodes.input.value = text;
        build();
        clearTimeout(readTimer);
        send({ type: 'read', id: ++readId, text, position: null, seed: 1 });
        send({ type: 'measure' });
        break;
      case 'measured':
        if (message.corpus !== corpus || !model) return;
        Object.assign(model, { bits: message.bits, characters: message.characters, scores: message.scores });
        if (training.points.length === 0 && !training.running) {
          training = { ...training, step: message.step, points: [point(message)], sample: message.sample, scores: message.scores };
        }
        draw();
        break;
      case 'reading':
        if (message.id !== readId) return;
        reading = message;
        if (error) {
          error = null;
          nodes.error.textContent = '';
        }
        drawReading();
        onRead(message.text);
        break;
      case 'chunk':
        if (message.id !== genId) return;
        generation = { ...message };
        drawGeneration();
        break;
      case 'generated':
        if (message.id !== genId) return;
        generation = { ...message };
        generating = false;
        drawGeneration();
        break;
      case 'trainReset':
        training = { step: message.step, running: training.running, points: [point(message)], sample: message.sample, scores: message.scores, shipped: false, loss: null };
        drawTraining();
        break;
      case 'progress':
        training.step = message.step;
        training.running = message.running;
        training.loss = message.loss;
        if (message.bits !== undefined) {
          training.points.push(point(message));
          training.sample = message.sample;
          training.scores = message.scores;
        }
        drawTraining();
        break;
      case 'paused':
      case 'done':
        training.running = false;
        training.step = message.step;
        drawTraining();
        break;
      case 'error':
        generating = false;
        training.running = false;
        onError(message.error);
        break;
      default:
        break;
    }
  }

  return {
    get text() { return text; },
    get corpus() { return corpus; },
    get model() { return model ? { corpus, step: model.step, context: model.context, options: model.options, parameterCount: model.parameterCount } : null; },
    open(name) {
      if (corpus !== null && corpus !== name) text = null;
      corpus = name;
      model = null;
      reading = null;
      generation = null;
      build();
      nodes.corpusSelect.value = name;
      send({ type: 'open', corpus: name });
    },
    setText(value) {
      text = value;
      position = null;
      if (nodes.input) nodes.input.value = value;
      read();
    },
    relabel(next) {
      t = withLmWords(next);
      build();
      if (model) read();
    },
    showError(message) {
      error = message;
      draw();
    },
    receive,
  };
}
