// `mha-lens check`: a learner's own attention module, traced by scripts/mha_lens_trace.py, set
// against the engine's steps on the same x, weights and mask. Each tensor the module's forward
// assigned is matched to a step (tensor-match.js: the same values, perhaps transposed, split
// into heads or merged); the module matches when its output is the engine's output. Otherwise
// the first tensor that matches no step is named, and each known mistake is computed from the
// engine's own steps (softmax over the other axis of `masked`, `scores` left unscaled, the raw
// view of `q`, …) and carried through to the output: the mistake whose tensor at some stage holds
// the learner's values is the one reported, or none. The first wrong tensor of four mistakes is
// the one the page's mistakes panel shows (mistakes.js). No DOM: tests/js/check-trace.test.js.
import { noProjection, noScale, noTranspose, softmaxOverQueries } from '../lessons/mistakes.js';
import { engineConfig } from './trace-file.js';
import { fromStep, labelled, matchTensor, maxDifference } from './tensor-match.js';

export const DEFAULT_TOLERANCE = 1e-4;

/** The known mistakes, in the order they are tried: what the code did and the fix. */
export const MISTAKES = {
  softmaxOverQueries: { title: 'softmax over Tq', did: 'softmax over the queries (dim=-2): each column of the weights sums to 1, not each row', fix: 'softmax(scores, dim=-1), over the keys' },
  noScale: { title: 'no 1/√D', did: 'the scores are never divided by √D', fix: 'divide Q @ Kᵀ by math.sqrt(d_k)' },
  scaleSqrtC: { title: 'a wrong scale (√C instead of √D)', did: 'the scores are divided by √C (the model width), not √D (one head\'s width)', fix: 'divide by math.sqrt(d_k), d_k = C / H' },
  kNotTransposed: { title: 'K not transposed', did: 'Q @ K instead of Q @ K.transpose(-2, -1); it only runs because D = T', fix: 'Q @ K.transpose(-2, -1)' },
  viewWithoutTranspose: { title: 'view without the transpose (heads mixing positions)', did: 'view(B, H, T, D) straight from [B, T, C]: the right shape, but each head row holds features of other positions', fix: 'view(B, T, H, D).transpose(1, 2)' },
  headsNotMoved: { title: 'heads split but never moved before the positions', did: 'view(B, T, H, D) without transpose(1, 2): attention runs over the heads of each token, not over the positions', fix: 'view(B, T, H, D).transpose(1, 2)' },
  noProjection: { title: 'no Q/K/V projections', did: 'x split into heads without w_q, w_k, w_v: every score matrix is symmetric', fix: 'project x with w_q, w_k and w_v first' },
  maskInverted: { title: 'mask with the wrong sign', did: '−∞ where a query may look and the scores kept where it may not (mask == 1 for mask == 0, or ~mask)', fix: 'masked_fill(mask == 0, float("-inf")) for a mask of 1 where a query may look' },
  maskAdded: { title: 'mask added as 0/1 (wrong convention)', did: 'the 0/1 mask added to the scores (scores + mask), so nothing is hidden', fix: 'masked_fill(mask == 0, float("-inf")), or add a mask of 0 and −∞' },
  maskZeroFill: { title: 'mask fills 0, not −∞ (wrong convention)', did: 'hidden scores set to 0 (scores * mask, or masked_fill(…, 0)): a 0 still gets weight', fix: 'fill float("-inf") (or -1e9)' },
  maskPositiveFill: { title: 'mask fills +∞ (wrong sign)', did: 'the hidden scores filled with a large positive number: the hidden keys take all the weight', fix: 'fill float("-inf") (or -1e9)' },
  maskFlipped: { title: 'mask hides the past, not the future (wrong convention)', did: 'triu where tril was meant (or the mask transposed): each query sees the keys after it', fix: 'torch.tril(torch.ones(T, T)) as the mask of keys a query may see' },
  mergeWithoutTranspose: { title: 'merge without transpose', did: '(attn @ V).view(B, T, C) straight from [B, H, T, D]: each row mixes heads and positions', fix: '(attn @ V).transpose(1, 2).contiguous().view(B, T, C)' },
  mergeWithoutContiguous: { title: 'merge without contiguous', did: 'view() on the transposed context, whose strides no view can express', fix: '.transpose(1, 2).contiguous().view(B, T, C), or .reshape(B, T, C)' },
  noOutputProjection: { title: 'a missing output projection', did: 'the merged heads are returned without the output projection w_o', fix: 'return self.w_o(x)' },
};

// --- Tensors computed for the mistakes, from the engine's steps -----------------------------------

// [B, H, R, Cc] of the matrices fn(b, h) gives (arrays of rows).
function fromHeads(B, H, fn) {
  const parts = [];
  for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) parts.push(fn(b, h));
  const R = parts[0].length;
  const Cc = parts[0][0].length;
  const data = new Float64Array(B * H * R * Cc);
  parts.forEach((m, i) => m.forEach((row, r) => data.set(row, (i * R + r) * Cc)));
  return { data, R, Cc };
}

// Softmax of each row of n values with max subtraction; a row holding +∞ (a +1e9 fill) puts all
// its weight evenly on those, a row all −∞ gets zeros (as the engine).
function softmaxRows(data, n) {
  const out = new Float64Array(data.length);
  for (let at = 0; at < data.length; at += n) {
    let max = -Infinity;
    let top = 0;
    for (let i = 0; i < n; i++) {
      max = Math.max(max, data[at + i]);
      if (data[at + i] === Infinity) top++;
    }
    if (max === -Infinity) continue;
    let sum = 0;
    for (let i = 0; i < n; i++) {
      out[at + i] = top ? (data[at + i] === Infinity ? 1 : 0) : Math.exp(data[at + i] - max);
      sum += out[at + i];
    }
    for (let i = 0; i < n; i++) out[at + i] /= sum;
  }
  return out;
}

// a [G, M, K] · b [G, K, N] (or b [G, N, K] read transposed) for each of G matrices.
function batchMatmul(a, b, G, M, K, N, { transposeB = false } = {}) {
  const out = new Float64Array(G * M * N);
  for (let g = 0; g < G; g++) {
    for (let i = 0; i < M; i++) {
      for (let j = 0; j < N; j++) {
        let sum = 0;
        for (let k = 0; k < K; k++) sum += a[(g * M + i) * K + k] * (transposeB ? b[(g * N + j) * K + k] : b[(g * K + k) * N + j]);
        out[(g * M + i) * N + j] = sum;
      }
    }
  }
  return out;
}

// [B, H, T, D] → [B, T, H, D], the order a merge of heads needs.
function headsLast(data, B, H, T, D) {
  const out = new Float64Array(data.length);
  for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let t = 0; t < T; t++) {
    for (let d = 0; d < D; d++) out[((b * T + t) * H + h) * D + d] = data[((b * H + h) * T + t) * D + d];
  }
  return out;
}

// The walkthrough from some stage on, with one stage replaced: each later tensor recomputed from
// the wrong one with the engine's own v, Wo and bo, so that a learner's tensor at any later stage
// can be recognised too. Stages are labelled like the steps they stand for.
class Downstream {
  constructor(run, trace) {
    const { B, T, C, H, D } = trace.config;
    Object.assign(this, { run, B, T, C, H, D });
    this.weights = trace.weights.tensors;
    const masked = run.step('masked').data;
    this.blocked = (b, i, j) => masked[((b * H) * T + i) * T + j] === -Infinity;
    this.hasMask = trace.config.mask === 'causal' || trace.config.keyLengths !== null;
  }

  fromQkv(q, k, v, stages = []) {
    const { B, H, T, D } = this;
    const scores = batchMatmul(q, k, B * H, T, D, T, { transposeB: true });
    return this.fromScores(scores, [...stages, this.heads('q_heads', q), this.heads('k_heads', k), this.heads('v_heads', v)], v);
  }

  fromScores(scores, stages = [], v = this.run.step('v_heads').data) {
    const s = 1 / Math.sqrt(this.D);
    return this.fromScaled(scores.map((x) => x * s), [...stages, this.scoreLike('scores', scores)], v);
  }

  fromScaled(scaled, stages = [], v = this.run.step('v_heads').data) {
    const masked = this.hasMask ? this.mask(scaled, (b, i, j) => this.blocked(b, i, j), -Infinity) : scaled;
    return this.fromMasked(masked, [...stages, this.scoreLike('scaled', scaled)], v);
  }

  fromMasked(masked, stages = [], v = this.run.step('v_heads').data) {
    return this.fromWeights(softmaxRows(masked, this.T), [...stages, this.scoreLike('masked', masked)], v);
  }

  fromWeights(weights, stages = [], v = this.run.step('v_heads').data) {
    const { B, H, T, D } = this;
    const context = batchMatmul(weights, v, B * H, T, T, D);
    return this.fromConcat(headsLast(context, B, H, T, D), [...stages, this.scoreLike('weights', weights), this.heads('context', context)]);
  }

  fromConcat(concat, stages = []) {
    const { B, T, C, H, D } = this;
    const { Wo, bo } = this.weights;
    const output = batchMatmul(concat, Wo.data, 1, B * T, C, C);
    if (bo) for (let i = 0; i < output.length; i++) output[i] += bo.data[i % C];
    return [...stages, { ...labelled(['B', 'Tq', 'H', 'D'], [B, T, H, D], concat, 'concat'), ownShape: [B, T, C] }, labelled(['B', 'Tq', 'C'], [B, T, C], output, 'output')];
  }

  mask(scores, hidden, fill) {
    const { B, H, T } = this;
    const out = Float64Array.from(scores);
    for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < T; i++) for (let j = 0; j < T; j++) {
      const at = ((b * H + h) * T + i) * T + j;
      if (hidden(b, i, j)) out[at] = typeof fill === 'function' ? fill(out[at]) : fill;
    }
    return out;
  }

  heads(name, data) {
    return labelled(['B', 'H', 'T', 'D'], [this.B, this.H, this.T, this.D], data, name);
  }

  scoreLike(name, data) {
    return labelled(['B', 'H', 'Tq', 'Tk'], [this.B, this.H, this.T, this.T], data, name);
  }
}

// Each mistake's tensors, stage by stage, or [] where it cannot happen in this config.
function mistakeStages(key, run, trace) {
  const flow = new Downstream(run, trace);
  const { B, T, C, H, D, mask, keyLengths } = trace.config;
  const data = (id) => run.step(id).data;
  switch (key) {
    case 'softmaxOverQueries':
      return flow.fromWeights(fromHeads(B, H, (b, h) => softmaxOverQueries(run, b, h).wrong).data);
    case 'noScale': {
      const scores = data('scores');
      const masked = flow.hasMask ? flow.mask(Float64Array.from(scores), flow.blocked, -Infinity) : Float64Array.from(scores);
      const weights = fromHeads(B, H, (b, h) => noScale(run, null, b, h).wrong).data;
      return [flow.scoreLike('masked', masked), ...flow.fromWeights(weights)];
    }
    case 'scaleSqrtC':
      return H === 1 ? [] : flow.fromScaled(Float64Array.from(data('scores'), (x) => x / Math.sqrt(C)));
    case 'kNotTransposed':
      if (D !== T) return [];
      return flow.fromScores(fromHeads(B, H, (b, h) => noTranspose(run, b, h).wrong).data);
    case 'viewWithoutTranspose':
      // view(B, H, T, D) of [B, T, C] keeps the buffer as it is: the raw q, k and v, read as heads.
      return flow.fromQkv(Float64Array.from(data('q')), Float64Array.from(data('k')), Float64Array.from(data('v')));
    case 'headsNotMoved': {
      // [B, T, H, D] @ [B, T, D, H]: scores between the heads of one token.
      const q = data('q_split'), k = data('k_split'), v = data('v_split');
      const scores = batchMatmul(q, k, B * T, H, D, H, { transposeB: true });
      const scaled = scores.map((x) => x / Math.sqrt(D));
      const weights = softmaxRows(scaled, H);
      const context = batchMatmul(weights, v, B * T, H, H, D);
      const shape = ['B', 'T', 'Hq', 'Hk'];
      return [labelled(shape, [B, T, H, H], scores, 'scores'), labelled(shape, [B, T, H, H], scaled, 'scaled'),
        labelled(shape, [B, T, H, H], weights, 'weights'), ...flow.fromConcat(context)];
    }
    case 'noProjection': {
      const x = data('x');
      const heads = headsLast(x, B, T, H, D); // [B, T, H, D] → [B, H, T, D] is the same index shuffle
      const scaled = fromHeads(B, H, (b, h) => noProjection(run, b, h).wrong).data;
      return [flow.heads('q_heads', heads), ...flow.fromScaled(scaled, [], heads)];
    }
    case 'maskInverted':
    case 'maskAdded':
    case 'maskZeroFill':
    case 'maskPositiveFill':
    case 'maskFlipped': {
      if (!flow.hasMask || (key === 'maskFlipped' && mask !== 'causal')) return [];
      const scaled = data('scaled');
      const keep = (b, i, j) => !flow.blocked(b, i, j);
      const masked = {
        maskInverted: () => flow.mask(Float64Array.from(scaled), keep, -Infinity),
        maskAdded: () => flow.mask(Float64Array.from(scaled), keep, (x) => x + 1),
        maskZeroFill: () => flow.mask(Float64Array.from(scaled), flow.blocked, 0),
        maskPositiveFill: () => flow.mask(Float64Array.from(scaled), flow.blocked, Infinity),
        maskFlipped: () => flow.mask(Float64Array.from(scaled), (b, i, j) => j < i || (keyLengths !== null && j >= keyLengths[b]), -Infinity),
      }[key]();
      return flow.fromMasked(masked);
    }
    case 'mergeWithoutTranspose':
      return flow.fromConcat(Float64Array.from(data('context'))).map((stage) => (stage.name === 'concat' ? labelled(['B', 'Tq', 'C'], [B, T, C], stage.data, 'concat') : stage));
    case 'noOutputProjection':
      return [labelled(['B', 'Tq', 'C'], [B, T, C], Float64Array.from(data('concat')), 'output')];
    default:
      return [];
  }
}

// --- Matching -------------------------------------------------------------------------------------

// Tensors that are no step but that correct code makes: q, k and v side by side (a fused
// projection, before it is split), and the weights averaged over heads (nn.MultiheadAttention's
// default return).
function extraCandidates(run, { B, T, H, D }) {
  const [q, k, v] = ['q', 'k', 'v'].map((id) => run.step(id).data);
  const qkv = new Float64Array(3 * q.length);
  const C = H * D;
  for (let row = 0; row < B * T; row++) {
    [q, k, v].forEach((part, p) => qkv.set(part.subarray(row * C, (row + 1) * C), (row * 3 + p) * C));
  }
  const weights = run.step('weights').data;
  const mean = new Float64Array(B * T * T);
  for (let b = 0; b < B; b++) for (let h = 0; h < H; h++) for (let i = 0; i < T * T; i++) mean[b * T * T + i] += weights[(b * H + h) * T * T + i] / H;
  return [
    { ...labelled(['B', 'T', 'qkv', 'H', 'D'], [B, T, 3, H, D], qkv, 'q, k, v'), ownShape: [B, T, 3 * C], title: 'q, k, v side by side (steps 2–4)' },
    { ...labelled(['B', 'Tq', 'Tk'], [B, T, T], mean, 'weights'), ownShape: [B, T, T], title: 'weights averaged over heads' },
  ];
}

/** The engine's steps (and the extras) as candidates: { name, title, index, labels, sizes, data, ownShape }. */
export function candidatesOf(run, config) {
  const steps = run.steps.map((step, i) => ({ ...fromStep(step, config), index: i + 1, ownShape: step.shape, title: `step ${i + 1} ${step.id}` }));
  return [...steps, ...extraCandidates(run, config).map((c) => ({ ...c, index: null }))];
}

// The best match of one tensor: the lowest rank, then the first candidate at or after the last
// matched step (so `scaled` and `masked`, equal without a mask, are read in the code's order).
function bestMatch(tensor, candidates, tolerance, after) {
  let best = null;
  for (const candidate of candidates) {
    const found = matchTensor(tensor, candidate, { tolerance, ownShape: candidate.ownShape });
    if (!found) continue;
    const inOrder = candidate.index === null || candidate.index >= after;
    const better = !best || found.rank < best.rank || (found.rank === best.rank && inOrder && !best.inOrder);
    if (better) best = { ...found, name: candidate.name, title: candidate.title, index: candidate.index, inOrder };
  }
  return best && { rank: best.rank, layout: best.rank ? best.layout : null, maxDiff: best.maxDiff, step: best.name, title: best.title, index: best.index };
}

// PyTorch's own words for a view of a tensor whose strides no view can express.
const NOT_CONTIGUOUS = /view size is not compatible with input tensor's size and stride/;

/**
 * The trace (trace-file.js's readTrace) against the engine: `engine` is the engine object or a
 * function run(config). Returns plain data: { ok, config, module, records: [{ …record, match,
 * compared }], output, returnedWeights, error, firstUnmatched (the first tensor that matches no
 * step), explained (the tensor the mistakes were found in: the first miss, or a later one when the
 * first is none of them), mistakes: [{ key, stage, layout, maxDiff }], closest, tolerance }.
 */
export function checkTrace(trace, engine, { tolerance = DEFAULT_TOLERANCE } = {}) {
  const config = engineConfig(trace);
  const run = typeof engine === 'function' ? engine(config) : engine.run(config);
  const dims = trace.config;
  const candidates = candidatesOf(run, dims);
  let after = 0;
  const records = trace.records.map((record) => {
    const { data, ...rest } = record;
    if (!record.fromInput) return { ...rest, compared: false, match: null };
    const match = bestMatch(record, candidates, tolerance, after);
    if (match?.index) after = match.index;
    return { ...rest, compared: true, match };
  });
  const output = trace.output && { shape: trace.output.shape, match: bestMatch(trace.output, candidates, tolerance, 0) };
  const returnedWeights = trace.returnedWeights && { shape: trace.returnedWeights.shape, match: bestMatch(trace.returnedWeights, candidates, tolerance, 0) };
  const ok = !trace.error && output?.match?.step === 'output';

  // The tensors that match no step, in the order the code made them, then the output.
  const unmatched = [];
  if (!ok) {
    records.forEach((r, index) => {
      if (r.compared && !r.match) unmatched.push({ what: 'record', index, tensor: trace.records[index] });
    });
    if (output) unmatched.push({ what: 'output', index: null, tensor: trace.output });
  }
  const summary = (u) => u ? { what: u.what, index: u.index, name: u.what === 'output' ? 'output' : u.tensor.name, line: u.tensor.line ?? null, shape: u.tensor.shape } : null;

  let mistakes = [];
  let explained = null;
  if (trace.error && NOT_CONTIGUOUS.test(trace.error.message)) {
    mistakes = [{ key: 'mergeWithoutContiguous', stage: null, layout: null, maxDiff: null, byTorch: true }];
  } else {
    // An extra tensor of the learner's own (a sum of the weights, say) may come before the
    // mistake: when the first miss is no known mistake, the next misses are tried.
    const stages = new Map();
    const stagesOf = (key) => {
      if (!stages.has(key)) stages.set(key, mistakeStages(key, run, trace));
      return stages.get(key);
    };
    for (const miss of unmatched.slice(0, MAX_TRIED)) {
      mistakes = findMistakes(miss.tensor, stagesOf, tolerance);
      if (mistakes.length) {
        explained = miss;
        break;
      }
    }
  }
  const closest = unmatched.length ? closestStep(unmatched[0].tensor, run) : null;
  run.release?.();
  return {
    ok, tolerance, config: dims, module: trace.module, weightsSource: trace.weights.source, mask: trace.mask,
    records, output, returnedWeights, error: trace.error,
    firstUnmatched: summary(unmatched[0]), explained: summary(explained), mistakes, closest,
  };
}

// How many of the tensors that match no step are tried against the mistakes.
const MAX_TRIED = 8;

// Every known mistake that, at some stage, holds the tensor's values (at the stage whose layout
// is nearest the tensor's: the merged context as concat rather than as context reordered).
function findMistakes(tensor, stagesOf, tolerance) {
  const found = [];
  for (const key of Object.keys(MISTAKES)) {
    let best = null;
    for (const stage of stagesOf(key)) {
      const match = matchTensor(tensor, stage, { tolerance, ownShape: stage.ownShape ?? stage.sizes });
      if (match && (!best || match.rank < best.rank)) best = { ...match, stage: stage.name };
    }
    if (best) found.push({ key, stage: best.stage, layout: best.rank ? best.layout : null, maxDiff: best.maxDiff });
  }
  return found;
}

// The step of the same shape nearest the tensor, for a tensor no mistake explains.
function closestStep(tensor, run) {
  let best = null;
  run.steps.forEach((step, i) => {
    if (step.shape.length !== tensor.shape.length || step.shape.some((n, d) => n !== tensor.shape[d])) return;
    const diff = maxDifference(tensor.data, step.data);
    if (!best || diff < best.maxDiff) best = { step: step.id, index: i + 1, maxDiff: diff };
  });
  return best;
}

// --- The report, as lines of text -----------------------------------------------------------------

const exp = (x) => (x === 0 ? '0' : x.toExponential(1));
const shapeText = (shape) => `[${shape.join(',')}]`;
const clip = (text, n) => (text.length > n ? `${text.slice(0, n - 1)}…` : text);

function matchText(match, ok) {
  if (!match) return ok ? '· matches no step (an extra: the output is right)' : '✗ matches no step';
  return `→ ${match.title}${match.layout ? ` as [${match.layout.join(', ')}]` : ''} ✓`;
}

/** The check's result → the lines `mha-lens check` prints (and the page shows). */
export function checkLines(result) {
  const { config: c, records } = result;
  const maskText = [c.mask === 'causal' ? 'causal mask' : null, c.keyLengths ? `padding [${c.keyLengths}]` : null].filter(Boolean).join(' + ') || 'no mask';
  const lines = [`mha-lens check · ${result.module.path}:${result.module.className} · B=${c.B} T=${c.T} C=${c.C} H=${c.H} (D=${c.D}) · ${maskText} · ${result.weightsSource} weights${c.seed !== null ? ` (seed ${c.seed})` : ''}`, ''];
  const rows = records.map((r) => {
    const source = r.kind === 'argument' ? `${r.name}: argument of ${r.function ?? 'forward'}` : r.source;
    const named = r.kind === 'argument' || new RegExp(`^${r.name.replace(/[[\]]/g, '\\$&')}\\s*=[^=]`).test(source) ? '' : `  (${r.name})`;
    const verdict = r.compared ? matchText(r.match, result.ok) : '· not computed from x: not compared';
    return [`line ${r.line ?? '?'}`, `${clip(source, 76)}${named}`, verdict];
  });
  if (result.output) rows.push(['', 'returned output', matchText(result.output.match, false).replace('✓', result.ok ? '✓' : '✗ (the output should be step output)')]);
  if (result.returnedWeights) rows.push(['', 'returned weights', matchText(result.returnedWeights.match, result.ok)]);
  const widths = [0, 1].map((i) => Math.max(...rows.map((row) => [...row[i]].length)));
  for (const row of rows) lines.push(`${row[0].padEnd(widths[0])}  ${row[1].padEnd(widths[1])}  ${row[2]}`.trimEnd());
  lines.push('');
  if (result.ok) {
    lines.push(`✓ The module matches the engine: its output is step ${result.output.match.index} output (max |diff| ${exp(result.output.match.maxDiff)}, tolerance ${result.tolerance}).`);
    return lines;
  }
  if (result.error) {
    lines.push(`✗ forward raised ${result.error.type} at line ${result.error.line ?? '?'}${result.error.source ? `  ${result.error.source}` : ''}:`);
    lines.push(`  ${result.error.message.split('\n')[0]}`);
  }
  const first = result.firstUnmatched;
  if (first) {
    const where = first.what === 'output' ? 'the returned output' : `${first.name} (line ${first.line ?? '?'}, ${shapeText(first.shape)})`;
    lines.push(`✗ The module does not match. The first variable that matches no step: ${where}.`);
  } else if (!result.error) {
    lines.push('✗ The module does not match: its output matches no step.');
  }
  const later = result.explained && first && result.explained.index !== first.index;
  if (later) {
    const where = result.explained.what === 'output' ? 'the returned output' : `${result.explained.name} (line ${result.explained.line ?? '?'}, ${shapeText(result.explained.shape)})`;
    lines.push(`  It is none of the known mistakes; a later variable that matches no step is: ${where}.`);
  }
  for (const m of result.mistakes) {
    const known = MISTAKES[m.key];
    if (m.byTorch) {
      lines.push(`  PyTorch refused the view: the known mistake "${known.title}": ${known.did}. Fix: ${known.fix}.`);
      continue;
    }
    lines.push(`  ${later ? 'That' : 'It'} is the known mistake "${known.title}": ${known.did}.`);
    lines.push(`  Computed from the engine's steps, that mistake's ${m.stage}${m.layout ? ` (as [${m.layout.join(', ')}])` : ''} equals it (max |diff| ${exp(m.maxDiff)}). Fix: ${known.fix}.`);
  }
  if (first && !result.mistakes.length) {
    lines.push(`  It matches none of the ${Object.keys(MISTAKES).length} known mistakes mha-lens computes from the engine's steps.`);
    if (result.closest) lines.push(`  The nearest step of its shape: step ${result.closest.index} ${result.closest.step}, max |diff| ${exp(result.closest.maxDiff)}.`);
  }
  return lines;
}
