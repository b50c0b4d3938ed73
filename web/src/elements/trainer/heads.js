// The trainer's heads: for every layer, every head over the probe as a heatmap (the <mha-heatmap>
// element, fed a Run of that layer's block), labelled with the job it scores best on; beside it,
// when asked, the same head at step 0 ("random vs trained") and, with dropout on, the map one
// training step sees. The heatmaps are made once per shape and only get new runs after that.
import { attentionRun } from '../../engine/run.js';
import { uniformDeviation, uniformReferences } from '../../logic/heatmap/colors.js';
import { formatScore, headLabel } from '../../logic/training/heads.js';
import { el } from '../base/dom.js';

/** An option as the engine hands it back (float32: 0.30000001192092896) as the learner chose it: 0.3. */
export const optionText = (value) => String(Number(Number(value).toPrecision(6)));

// One Run for a heatmap: a layer's attention weights [1, H, T, T] over the probe.
const runOf = (weights, shape, messages) => attentionRun({ weights, ...shape }, messages);

export class HeadsPanel {
  #key = null;
  #maps = new Map(); // `${layer}.${head}.${kind}` → { box, heatmap }
  #labels = new Map(); // `${layer}.${head}` → the label element

  constructor({ t, lang, theme }) {
    this.t = t;
    this.lang = lang;
    this.theme = theme;
    this.list = el('div', { class: 'layers' });
    this.element = el('div', { class: 'heads-panel' }, this.list);
  }

  /**
   * Draws `view` (the service's: layers, dropped, scores, initial, step, dropout) over `tokens`.
   * `job` is the task's own job (it wins a near tie in a head's label).
   */
  draw(view, { tokens, job, messages }) {
    const { t } = this;
    const { H } = view.shape;
    const kinds = ['now', ...(view.initial ? ['start'] : []), ...(view.dropped ? ['dropout'] : [])];
    const key = JSON.stringify([view.layers.length, H, tokens.length, kinds]);
    if (key !== this.#key) this.#build(view.layers.length, H, kinds);
    this.list.classList.toggle('side-by-side', kinds.length > 1);
    this.#key = key;
    const labels = tokens.map(String);
    this.list.dataset.step = String(view.step); // the step these maps are of (tests and scripts read it)
    view.layers.forEach((layer, l) => {
      this.#feed(l, H, 'now', runOf(layer.weights, view.shape, messages), labels, t('tr.map.now', { step: view.step }));
      if (view.initial) this.#feed(l, H, 'start', runOf(view.initial.layers[l].weights, view.shape, messages), labels, t('tr.map.start'));
      if (view.dropped) this.#feed(l, H, 'dropout', runOf(view.dropped[l].weights, view.shape, messages), labels, t('tr.map.dropout', { p: optionText(view.dropout) }));
      this.#shareScale(l, H, view.shape, [layer.weights, view.initial?.layers[l].weights, view.dropped?.[l].weights]);
      for (let h = 0; h < H; h++) {
        const scores = view.scores.find((s) => s.layer === l && s.head === h)?.jobs;
        const start = view.initial?.scores.find((s) => s.layer === l && s.head === h)?.jobs;
        this.#label(l, h, scores, start, job);
      }
    });
  }

  #build(layers, H, kinds) {
    const { t } = this;
    this.#maps.clear();
    this.#labels.clear();
    const sections = [];
    for (let l = 0; l < layers; l++) {
      const row = el('div', { class: 'head-row' });
      for (let h = 0; h < H; h++) {
        const label = el('p', { class: 'job', 'aria-live': 'off' });
        this.#labels.set(`${l}.${h}`, label);
        const maps = el('div', { class: 'maps' });
        for (const kind of kinds) {
          const heatmap = el('mha-heatmap', { lang: this.lang, step: 'weights', pinned: '', only: '', head: h, controls: 'none', theme: this.theme });
          heatmap.run = null; // handed its runs from here: it must not run a config of its own
          const title = el('span', { class: 'map-title' });
          const box = el('div', { class: 'map', 'data-kind': kind }, title, heatmap);
          this.#maps.set(`${l}.${h}.${kind}`, { box, title, heatmap });
          maps.append(box);
        }
        row.append(el('figure', { class: 'head', 'data-layer': l, 'data-head': h, style: null },
          el('figcaption', {}, el('strong', {}, `${t('tr.heads.layer', { layer: l })} · ${t('tr.heads.head', { head: h })}`), label), maps));
      }
      sections.push(el('section', { class: 'layer', 'data-layer': l, 'aria-label': t('tr.heads.layer', { layer: l }) }, row));
    }
    this.list.replaceChildren(...sections);
  }

  // Each head's maps (now, step 0, through dropout) on one colour scale: the widest of theirs, so
  // that a near-uniform head at step 0 looks as pale beside the trained one as its numbers are.
  #shareScale(l, H, { T, causal }, arrays) {
    // As the heatmap reads a causal task's weights: keys after the query are masked.
    const masked = causal ? (i) => i % T > Math.floor(i / T) % T : null;
    for (let h = 0; h < H; h++) {
      const panel = { offset: h * T * T, rows: T, cols: T };
      const references = [uniformReferences(panel, masked)];
      let extent = 0;
      for (const weights of arrays) {
        if (!weights) continue;
        const { below, above } = uniformDeviation(weights, [panel], references, masked);
        extent = Math.max(extent, below, above);
      }
      for (const kind of ['now', 'start', 'dropout']) {
        const map = this.#maps.get(`${l}.${h}.${kind}`);
        if (map) map.heatmap.minExtent = extent;
      }
    }
  }

  #feed(l, H, kind, run, labels, title) {
    for (let h = 0; h < H; h++) {
      const map = this.#maps.get(`${l}.${h}.${kind}`);
      if (!map) continue;
      if (map.title.textContent !== title) map.title.textContent = title;
      map.heatmap.labels = labels;
      map.heatmap.run = run;
    }
  }

  #label(l, h, jobs, startJobs, job) {
    const { t } = this;
    const node = this.#labels.get(`${l}.${h}`);
    const label = headLabel(jobs, { prefer: job });
    if (!node || !label) return;
    const name = t(`tr.job.${label.job}`);
    let text = label.clear ? t('tr.heads.job', { job: name, score: label.text }) : t('tr.heads.noJob', { job: name, score: label.text });
    if (startJobs) text += ` · ${t('tr.heads.atStart', { score: formatScore(startJobs[label.job]) })}`;
    node.textContent = text;
    node.className = `job ${label.clear ? 'clear' : 'unclear'}`;
    node.dataset.job = label.job;
    node.dataset.score = String(label.score);
  }
}
