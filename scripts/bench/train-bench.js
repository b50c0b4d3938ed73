// The training-step benchmark of npm run bench, side by side in one run: our engine's
// trainer (wasm, in this Node process, through the JS API), PyTorch on one CPU thread (Debian's
// python3-torch, a persistent /usr/bin/python3 process running scripts/bench/train_torch.py) and
// TF.js (its wasm backend, one thread) on the same model, batch, optimiser and task.
//
// For each task, at its trainer defaults: rounds of `steps` training steps, one per engine per
// round in a shuffled order, so a shared machine's noise falls on all alike; the median ms per
// step of each, and the ratios of those medians. Then each engine, from a fresh model, trains
// until its accuracy on 512 fresh sequences (checked every 50 steps; the checks not timed) is
// ≥ 99%: steps and seconds. Our time per step includes each call's checkpoint in and out (one
// call per round); PyTorch's is timed inside Python.
//
// TF.js: the wasm backend has every gradient kernel this model needs except UnsortedSegmentSum
// (the gradient of gather), so the embeddings are one-hot rows times the table (a matMul, whose
// gradient it has). AdamW is tf.train.adam with the decoupled decay applied first, as
// torch.optim.AdamW does; clipping by global norm is done with tf ops.
import { spawn } from 'node:child_process';
import path from 'node:path';
import { createInterface } from 'node:readline';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { performance } from 'node:perf_hooks';

import { createEngine } from '../../web/src/engine/engine.js';
import { mulberry32 as rng } from '../../web/src/logic/training/probe.js';

const require = createRequire(import.meta.url);
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const TASKS = process.argv.includes('--lm-only') ? [] : ['reverse', 'sort', 'previous', 'induction'];
const CHECK = 50;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length % 2 ? s[(s.length - 1) / 2] : (s[s.length / 2 - 1] + s[s.length / 2]) / 2;
};

function shuffle(xs) {
  for (let i = xs.length - 1; i > 0; --i) {
    const j = Math.floor(Math.random() * (i + 1));
    [xs[i], xs[j]] = [xs[j], xs[i]];
  }
  return xs;
}

// --- The tasks in JS, for TF.js (the same definitions as cpp/src/model/tasks.cpp) -------------------
function makeBatch(task, B, T, V, next) {
  const x = new Int32Array(B * T), y = new Int32Array(B * T).fill(-1);
  const distinct = (n) => {
    const pool = Array.from({ length: V }, (_, i) => i);
    for (let i = 0; i < n; i++) {
      const j = i + (next() % (V - i));
      [pool[i], pool[j]] = [pool[j], pool[i]];
    }
    return pool.slice(0, n);
  };
  for (let b = 0; b < B; b++) {
    const o = b * T;
    if (task === 'text') {  // the language model's next character (random ids: the same work)
      const row = Array.from({ length: T + 1 }, () => next() % V);
      for (let i = 0; i < T; i++) { x[o + i] = row[i]; y[o + i] = row[i + 1]; }
    } else if (task === 'reverse' || task === 'previous') {
      for (let i = 0; i < T; i++) x[o + i] = next() % V;
      for (let i = 0; i < T; i++) y[o + i] = task === 'reverse' ? x[o + T - 1 - i] : i ? x[o + i - 1] : -1;
    } else if (task === 'sort') {
      const tokens = distinct(T);
      tokens.forEach((t, i) => (x[o + i] = t));
      [...tokens].sort((a, c) => a - c).forEach((t, i) => (y[o + i] = t));
    } else {
      const m = 3 + (next() % (Math.floor(T / 2) - 2));
      const n = T - m;
      const first = distinct(n);
      for (let i = 0; i < T; i++) x[o + i] = i < n ? first[i] : first[i - m];
      for (let i = n; i < T - 1; i++) y[o + i] = x[o + i + 1];
    }
  }
  return { x, y };
}

// --- TF.js: the same model -------------------------------------------------------------------------
async function loadTfjs() {
  const tf = require('@tensorflow/tfjs');
  const wasm = require('@tensorflow/tfjs-backend-wasm');
  wasm.setWasmPaths(path.join(root, 'node_modules/@tensorflow/tfjs-backend-wasm/dist') + path.sep);
  tf.env().set('WASM_HAS_MULTITHREAD_SUPPORT', false);
  await tf.setBackend('wasm');
  await tf.ready();
  return tf;
}

function tfjsTrainer(tf, o) {
  const { T, vocab: V, width: C, heads: H, layers: L, mlp, layernorm, batch: B, lr, weightDecay, dropout, clip, causal } = o;
  const D = C / H;
  const uniform = (shape, bound) => tf.variable(tf.randomUniform(shape, -bound, bound));
  const p = { tok: uniform([V, C], Math.sqrt(3)), pos: uniform([T, C], Math.sqrt(3)), layers: [] };
  for (let l = 0; l < L; l++) {
    const layer = {};
    for (const n of ['Wq', 'Wk', 'Wv', 'Wo']) layer[n] = uniform([C, C], 1 / Math.sqrt(C));
    for (const n of ['bq', 'bk', 'bv', 'bo']) layer[n] = uniform([C], 1 / Math.sqrt(C));
    if (layernorm) Object.assign(layer, { g1: tf.variable(tf.ones([C])), s1: tf.variable(tf.zeros([C])) });
    if (mlp) {
      Object.assign(layer, { W1: uniform([C, 4 * C], 1 / Math.sqrt(C)), b1: uniform([4 * C], 1 / Math.sqrt(C)),
        W2: uniform([4 * C, C], 1 / Math.sqrt(4 * C)), b2: uniform([C], 1 / Math.sqrt(4 * C)) });
      if (layernorm) Object.assign(layer, { g2: tf.variable(tf.ones([C])), s2: tf.variable(tf.zeros([C])) });
    }
    p.layers.push(layer);
  }
  if (layernorm) Object.assign(p, { gf: tf.variable(tf.ones([C])), sf: tf.variable(tf.zeros([C])) });
  Object.assign(p, { Wu: uniform([C, V], 1 / Math.sqrt(C)), bu: uniform([V], 1 / Math.sqrt(C)) });
  const variables = [p.tok, p.pos, ...p.layers.flatMap((l) => Object.values(l)), ...['gf', 'sf', 'Wu', 'bu'].filter((k) => p[k]).map((k) => p[k])];
  const optimizer = tf.train.adam(lr, 0.9, 0.999, 1e-8);
  const mask = causal ? tf.keep(tf.linalg.bandPart(tf.ones([T, T]), -1, 0).sub(1).mul(1e9)) : null;
  const norm = (h, g, s) => {
    if (!layernorm) return h;
    const { mean, variance } = tf.moments(h, -1, true);
    return h.sub(mean).mul(tf.rsqrt(variance.add(1e-5))).mul(g).add(s);
  };
  const logits = (x, n, training) => {
    let h = tf.matMul(tf.oneHot(tf.tensor1d(x, 'int32'), V).toFloat(), p.tok).reshape([n, T, C]).add(p.pos).reshape([n * T, C]);
    for (const l of p.layers) {
      const a = norm(h, l.g1, l.s1);
      const heads = (W, b) => tf.matMul(a, W).add(b).reshape([n, T, H, D]).transpose([0, 2, 1, 3]);
      let s = tf.matMul(heads(l.Wq, l.bq), heads(l.Wk, l.bk), false, true).div(Math.sqrt(D));
      if (mask) s = s.add(mask);
      let w = tf.softmax(s);
      if (training && dropout > 0) w = tf.dropout(w, dropout);
      h = h.add(tf.matMul(tf.matMul(w, heads(l.Wv, l.bv)).transpose([0, 2, 1, 3]).reshape([n * T, C]), l.Wo).add(l.bo));
      if (mlp) h = h.add(tf.matMul(tf.relu(tf.matMul(norm(h, l.g2, l.s2), l.W1).add(l.b1)), l.W2).add(l.b2));
    }
    return tf.matMul(norm(h, p.gf, p.sf), p.Wu).add(p.bu);
  };
  const next = rng(o.seed + 1);
  return {
    step() {
      const { x, y } = makeBatch(o.task, B, T, V, next);
      tf.tidy(() => {
        const { grads } = tf.variableGrads(() => {
          const target = tf.tensor1d(y, 'int32');
          const scored = target.greaterEqual(0).toFloat();
          const picked = tf.logSoftmax(logits(x, B, true)).mul(tf.oneHot(target, V)).sum(-1);
          return tf.neg(picked.mul(scored).sum()).div(scored.sum());
        }, variables);
        let list = Object.entries(grads);
        if (clip > 0) {
          const total = Math.sqrt(tf.addN(list.map(([, g]) => g.square().sum())).dataSync()[0]);
          const scale = clip / (total + 1e-6);
          if (scale < 1) list = list.map(([k, g]) => [k, g.mul(scale)]);
        }
        for (const v of variables) v.assign(v.mul(1 - lr * weightDecay));  // AdamW's decoupled decay
        optimizer.applyGradients(Object.fromEntries(list));
      });
    },
    accuracy() {
      const { x, y } = makeBatch(o.task, 512, T, V, rng(12345));
      const predicted = tf.tidy(() => logits(x, 512, false).argMax(-1).dataSync());
      let right = 0, counted = 0;
      for (let i = 0; i < y.length; i++) if (y[i] >= 0) { counted++; right += predicted[i] === y[i]; }
      return right / counted;
    },
    dispose() {
      variables.forEach((v) => v.dispose());
      optimizer.dispose();
      mask?.dispose();
    },
  };
}

// --- PyTorch: a persistent process, one JSON answer a command ----------------------------------------
function torchTrainer(options) {
  const child = spawn('/usr/bin/python3', [path.join(root, 'scripts/bench/train_torch.py'), JSON.stringify(options)], { stdio: ['pipe', 'pipe', 'inherit'] });
  const lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  const answer = async () => {
    const { value, done } = await lines.next();
    if (done) throw new Error('train_torch.py ended early');
    return JSON.parse(value);
  };
  return {
    ready: answer(),
    async ask(command) {
      child.stdin.write(`${command}\n`);
      return answer();
    },
    close() {
      child.stdin.end('quit\n');
    },
  };
}

// --- The benchmark ---------------------------------------------------------------------------------
export async function trainingBenchmark({ quick = false, log = console.log } = {}) {
  const engine = await createEngine({ trainer: true });
  const tf = await loadTfjs();
  const rounds = quick ? 3 : 9;
  const results = { peers: { tfjs: `${require('@tensorflow/tfjs-backend-wasm/package.json').version} (wasm backend, 1 thread)` }, tasks: [] };
  log(`training: ours (wasm, JS API) vs PyTorch (/usr/bin/python3, 1 thread) vs TF.js ${results.peers.tfjs}; ${rounds} interleaved rounds per task, medians\n`);
  for (const task of TASKS) {
    const ours = engine.trainer({ task });
    const o = { ...ours.options, causal: ours.task.causal };
    const steps = Math.max(5, Math.round(600 / (o.width * o.layers)));  // a round of ~0.1–0.3 s each
    const torch = torchTrainer(o);
    results.peers.torch = (await torch.ready).torch;
    const tfjs = tfjsTrainer(tf, o);
    ours.train(5);
    for (let i = 0; i < 5; i++) tfjs.step();
    const times = { ours: [], pytorch: [], tfjs: [] };
    const impls = [
      { name: 'ours', run: async () => { const t0 = performance.now(); ours.train(steps); return performance.now() - t0; } },
      { name: 'pytorch', run: async () => 1000 * (await torch.ask(`round ${steps}`)).seconds },
      { name: 'tfjs', run: async () => { const t0 = performance.now(); for (let i = 0; i < steps; i++) tfjs.step(); return performance.now() - t0; } },
    ];
    for (let r = 0; r < rounds; r++) for (const impl of shuffle([...impls])) times[impl.name].push((await impl.run()) / steps);
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));

    // Time to 99%, each from a fresh model.
    const limit = quick ? ours.task.steps : 3 * ours.task.steps;
    const reach = {};
    {
      const t = engine.trainer({ task });
      let seconds = 0;
      while (t.step < limit) {
        const t0 = performance.now();
        t.train(CHECK);
        seconds += (performance.now() - t0) / 1000;
        if (t.evaluate().accuracy >= 0.99) break;
      }
      reach.ours = { steps: t.step, seconds, reached: t.evaluate().accuracy >= 0.99 };
    }
    reach.pytorch = await torch.ask(`reach99 ${CHECK} ${limit}`);
    torch.close();
    {
      tfjs.dispose();
      const t = tfjsTrainer(tf, o);
      let done = 0, seconds = 0, reached = false;
      while (done < limit && !reached) {
        const t0 = performance.now();
        for (let i = 0; i < CHECK; i++) t.step();
        seconds += (performance.now() - t0) / 1000;
        done += CHECK;
        reached = t.accuracy() >= 0.99;
      }
      t.dispose();
      reach.tfjs = { steps: done, seconds, reached };
    }
    const row = { task, options: o, stepsPerRound: steps, rounds, msPerStep: ms, stepsPerSecond: Object.fromEntries(Object.entries(ms).map(([k, v]) => [k, 1000 / v])),
      oursOverPytorch: ms.ours / ms.pytorch, oursOverTfjs: ms.ours / ms.tfjs, reach99: reach, checkpointBytes: ours.save().length };
    results.tasks.push(row);
    const fmt = (name) => `${name} ${ms[name].toFixed(2)} ms/step (${(1000 / ms[name]).toFixed(0)} steps/s)`;
    const r99 = (name) => `${name} ${reach[name].reached ? '' : 'NOT '}${reach[name].steps} steps ${reach[name].seconds.toFixed(1)} s`;
    log(`${task} (T=${o.T} V=${o.vocab} C=${o.width} layers=${o.layers} heads=${o.heads}${o.mlp ? ' MLP' : ''} batch=${o.batch}): `
      + `${fmt('ours')}, ${fmt('pytorch')}, ${fmt('tfjs')}; ours ÷ PyTorch ${row.oursOverPytorch.toFixed(2)}×, ours ÷ TF.js ${row.oursOverTfjs.toFixed(2)}×`);
    log(`  to 99% accuracy: ${r99('ours')}; ${r99('pytorch')}; ${r99('tfjs')}`);
  }

  // The language model at the English default (scripts/lm/make_checkpoints.js's recipe): ms per
  // training step, ours against PyTorch and TF.js on the same model, batch and optimiser.
  {
    const { RECIPES } = await import('../lm/make_checkpoints.js');
    const lm = engine.languageModel({ corpus: 'moby-dick', trained: false, ...RECIPES['moby-dick'].options });
    const o = { ...lm.options, task: 'text', vocab: lm.vocab.length, causal: true };
    const torch = torchTrainer(o);
    results.peers.torch = (await torch.ready).torch;
    const tfjs = tfjsTrainer(tf, o);
    lm.train(2);
    tfjs.step();
    await torch.ask('round 1');
    const steps = 2;
    const lmRounds = quick ? 3 : 5;
    const times = { ours: [], pytorch: [], tfjs: [] };
    const impls = [
      { name: 'ours', run: async () => { const t0 = performance.now(); lm.train(steps); return performance.now() - t0; } },
      { name: 'pytorch', run: async () => 1000 * (await torch.ask(`round ${steps}`)).seconds },
      { name: 'tfjs', run: async () => { const t0 = performance.now(); for (let i = 0; i < steps; i++) tfjs.step(); return performance.now() - t0; } },
    ];
    for (let r = 0; r < lmRounds; r++) for (const impl of shuffle([...impls])) times[impl.name].push((await impl.run()) / steps);
    torch.close();
    tfjs.dispose();
    lm.dispose();
    const ms = Object.fromEntries(Object.entries(times).map(([k, v]) => [k, median(v)]));
    results.languageModel = { options: o, rounds: lmRounds, stepsPerRound: steps, msPerStep: ms, oursOverPytorch: ms.ours / ms.pytorch, oursOverTfjs: ms.ours / ms.tfjs };
    log(`\nlanguage model (English default: T=${o.T} V=${o.vocab} C=${o.width} layers=${o.layers} heads=${o.heads} MLP batch=${o.batch}): `
      + `ours ${ms.ours.toFixed(0)} ms/step, pytorch ${ms.pytorch.toFixed(0)}, tfjs ${ms.tfjs.toFixed(0)}; ours ÷ PyTorch ${(ms.ours / ms.pytorch).toFixed(2)}×, ours ÷ TF.js ${(ms.ours / ms.tfjs).toFixed(2)}×`);
  }

  // The stateless API's price: a call per step against one call for `steps` steps (induction).
  {
    const t = engine.trainer({ task: 'induction' });
    t.train(5);
    const perCall = [], perChunk = [];
    for (let r = 0; r < rounds; r++) {
      let t0 = performance.now();
      for (let i = 0; i < 20; i++) t.train(1);
      perCall.push((performance.now() - t0) / 20);
      t0 = performance.now();
      t.train(20);
      perChunk.push((performance.now() - t0) / 20);
    }
    results.callOverhead = { task: 'induction', checkpointBytes: t.save().length, msPerStepOneCallEach: median(perCall), msPerStepTwentyPerCall: median(perChunk),
      msPerCall: median(perCall) - median(perChunk) };
    log(`\nper-call overhead (induction, checkpoint ${(t.save().length / 1024).toFixed(1)} KiB in and out): ${results.callOverhead.msPerCall.toFixed(3)} ms `
      + `(${median(perCall).toFixed(2)} ms/step one step a call, ${median(perChunk).toFixed(2)} ms/step twenty a call)`);
  }
  const induction = results.tasks.find((t) => t.task === 'induction');
  results.targets = {
    ...(induction ? {
      'training step ≤ 1.5× PyTorch (induction)': { ratio: induction.oursOverPytorch, met: induction.oursOverPytorch <= 1.5 },
      'training step ≤ 1/3 of TF.js (induction)': { ratio: induction.oursOverTfjs, met: induction.oursOverTfjs <= 1 / 3 },
    } : {}),
    'language-model training step ≤ 1× PyTorch 1 thread': { ratio: results.languageModel.oursOverPytorch, met: results.languageModel.oursOverPytorch <= 1 },
  };
  return results;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const results = await trainingBenchmark({ quick: process.argv.includes('--quick') });
  for (const [name, t] of Object.entries(results.targets)) console.log(`${t.met ? 'met    ' : 'NOT MET'} ${name}: ${t.ratio.toFixed(2)}×`);
}
