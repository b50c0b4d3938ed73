// The trainer section's pure logic (web/src/logic/training/, logic/walkthrough/backward-text.js): curves, what a
// head's label says, the probe, the options and their URL, the dropout mask and the backward
// walkthrough's words. The probe's targets are checked against the trained checkpoints, whose
// predictions follow the engine's own targets.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, describe, test } from 'node:test';

import { createEngine } from '../../web/src/engine/engine.js';
import { gradientOf, isBackward } from '../../web/src/logic/walkthrough/backward-text.js';
import { TrainingHistory, bucketed, chartScale, lossAxis, polyline, stepAxisEnd } from '../../web/src/logic/training/curves.js';
import { CLEAR_SCORE, droppedOut, dropoutMask, flatness, formatScore, headLabel } from '../../web/src/logic/training/heads.js';
import { PRESETS, RANGES, checkpointFor, defaultOptions, engineOptions, readOptions, sameModel } from '../../web/src/logic/training/options.js';
import { exampleProbe, mulberry32, parseProbe, predictionMarks, targetsFor } from '../../web/src/logic/training/probe.js';
import { decodeTrainingState, encodeTrainingState, mergeParams } from '../../web/src/logic/training/state.js';
import MANIFEST from '../../web/checkpoints/manifest.json' with { type: 'json' };

const CHECKPOINTS = MANIFEST.checkpoints;
import { translator } from '../../web/src/text/translate.js';

describe('curves', () => {
  test('bucketed keeps every point while there are few, then means of equal runs', () => {
    assert.deepEqual(bucketed([3, 2, 1]), [{ step: 1, mean: 3, min: 3, max: 3 }, { step: 2, mean: 2, min: 2, max: 2 }, { step: 3, mean: 1, min: 1, max: 1 }]);
    const many = Array.from({ length: 1000 }, (_, i) => 1000 - i);
    const points = bucketed(many, { maxPoints: 100 });
    assert.equal(points.length, 100);
    assert.deepEqual(points[0], { step: 5.5, mean: 995.5, min: 991, max: 1000 });
    assert.equal(points.at(-1).step, 995.5);
    assert.deepEqual(bucketed([]), []);
    // A recorded curve: one value per 10 steps, the first at step 5.
    assert.equal(bucketed([1, 2], { first: 5, every: 10 })[1].step, 15);
  });

  test('the loss axis spans powers of ten around the values, down to 0.001', () => {
    assert.deepEqual(lossAxis([3.4, 0.02]), { min: 0.01, max: 10, ticks: [0.01, 0.1, 1, 10] });
    assert.deepEqual(lossAxis([3.45, 3.41]).ticks, [1, 10]);
    assert.equal(lossAxis([2, 1e-6]).min, 0.001);
    assert.deepEqual(lossAxis([]), { min: 0.1, max: 10, ticks: [0.1, 1, 10] });
    assert.deepEqual(lossAxis([NaN, Infinity, 0.5]).ticks, [0.1, 1]);
  });

  test('chart geometry: steps left to right, values bottom to top, log or linear', () => {
    const scale = chartScale({ width: 100, height: 50, pad: { left: 10, right: 10, top: 5, bottom: 5 }, steps: 200, min: 0.01, max: 10, log: true });
    assert.equal(scale.x(0), 10);
    assert.equal(scale.x(200), 90);
    assert.equal(scale.y(10), 5);
    assert.equal(scale.y(0.01), 45);
    assert.ok(Math.abs(scale.y(1) - (45 - (2 / 3) * 40)) < 1e-9);
    assert.equal(scale.y(1e-9), 45, 'below the axis: drawn at its floor');
    const linear = chartScale({ width: 100, height: 50, pad: { left: 0, right: 0, top: 0, bottom: 0 }, steps: 10, min: 0, max: 1 });
    assert.equal(linear.y(0.5), 25);
    assert.equal(polyline([{ step: 0, mean: 1 }, { step: 10, mean: 0 }], linear), '0.0,0.0 100.0,50.0');
  });

  test('the step axis ends on a round number at or above the steps', () => {
    assert.deepEqual([0, 99, 100, 101, 400, 401, 1000, 1001, 2600].map(stepAxisEnd), [100, 100, 100, 200, 500, 500, 1000, 2000, 5000]);
  });

  test('a history keeps every step, or continues a recorded curve in buckets of its size', () => {
    const history = new TrainingHistory();
    history.append({ losses: Float32Array.of(3, 2), step: 2, accuracy: 0.1 });
    history.append({ losses: Float32Array.of(1), step: 3, accuracy: 0.5 });
    assert.deepEqual(history.losses, [3, 2, 1]);
    assert.deepEqual(history.accuracy, [{ step: 2, value: 0.1 }, { step: 3, value: 0.5 }]);
    assert.deepEqual(history.accuracyPoints(1), [{ step: 3, mean: 0.3 }]);
    const recorded = TrainingHistory.fromCurve({ every: 2, points: [4, 3] });
    recorded.append({ losses: Float32Array.of(2, 1, 0.5), step: 7, accuracy: 1 });
    assert.deepEqual(recorded.losses, [4, 3, 1.5], 'steps 5–6 make one bucket; step 7 waits for its pair');
    assert.deepEqual(recorded.lossPoints(10).map((p) => p.step), [1, 3, 5]);
  });
});

describe('head labels', () => {
  test('a head is labelled with the job it scores best on, the task\'s own winning a near tie', () => {
    const induction0 = { antiDiagonal: 0.04, answer: 0.03, previousToken: 0.79, prefixMatching: 0.03 };
    assert.deepEqual(headLabel(induction0, { prefer: 'prefixMatching' }), { job: 'previousToken', score: 0.79, clear: true, text: '0.79' });
    // In reverse the answer key is the mirrored one: both jobs score the same.
    assert.equal(headLabel({ antiDiagonal: 0.9829, answer: 0.9838, previousToken: 0.07, prefixMatching: 0.07 }, { prefer: 'antiDiagonal' }).job, 'antiDiagonal');
    assert.equal(headLabel({ antiDiagonal: 0.5, answer: 0.9 }, { prefer: 'antiDiagonal' }).job, 'answer');
    const flat = headLabel({ antiDiagonal: 0.06, answer: 0.06, previousToken: 0.15, prefixMatching: 0.05 });
    assert.equal(flat.clear, false);
    assert.ok(CLEAR_SCORE > 0.15 && CLEAR_SCORE < 0.47, 'step-0 heads are unclear; sort\'s trained answer head (0.47) is clear');
    assert.equal(headLabel(null), null);
  });

  test('scores read with two decimals; the page writes the label in both languages', () => {
    assert.deepEqual([0.97577, 1, 0, 0.005, NaN].map(formatScore), ['0.98', '1.00', '0.00', '0.01', '–']);
    for (const lang of ['en', 'zh']) {
      const t = translator(lang);
      const text = t('tr.heads.job', { job: t('tr.job.antiDiagonal'), score: '0.97' });
      assert.match(text, lang === 'en' ? /^anti-diagonal 0\.97$/ : /^反对角线：0\.97$/);
      assert.match(t('tr.heads.noJob', { job: t('tr.job.previousToken'), score: '0.15' }), /0\.15/);
    }
  });

  test('flatness: 0 for a uniform map, causal rows uniform over the keys they see', () => {
    const T = 4;
    const uniform = new Float32Array(T * T).fill(1 / T);
    assert.ok(flatness(uniform, T) < 1e-7);
    const causal = new Float32Array(T * T);
    for (let q = 0; q < T; q++) for (let k = 0; k <= q; k++) causal[q * T + k] = 1 / (q + 1);
    assert.ok(flatness(causal, T, { causal: true }) < 1e-7);
    assert.ok(flatness(causal, T) > 0.4, 'not flat as a full-attention map');
    const oneHot = new Float32Array(T * T);
    for (let q = 0; q < T; q++) oneHot[q * T + (T - 1 - q)] = 1;
    assert.equal(flatness(oneHot, T), 0.75);
  });

  test('dropout\'s mask zeroes about p of the entries and scales the rest by 1/(1−p), seeded', () => {
    const keep = dropoutMask(20000, 0.3, 7);
    const zeros = keep.filter((k) => k === 0).length / keep.length;
    assert.ok(Math.abs(zeros - 0.3) < 0.015, `share zeroed ${zeros}`);
    assert.ok(keep.every((k) => k === 0 || k === Math.fround(1 / 0.7)));
    assert.deepEqual(dropoutMask(50, 0.3, 7), dropoutMask(50, 0.3, 7));
    assert.notDeepEqual(dropoutMask(50, 0.3, 7), dropoutMask(50, 0.3, 8));
    const weights = new Float32Array(16).fill(0.25);
    assert.deepEqual(droppedOut(weights, 0, 1), weights);
    const dropped = droppedOut(weights, 0.5, 1);
    assert.ok(dropped.every((w) => w === 0 || w === 0.5));
  });
});

describe('the probe', () => {
  const induction = { T: 24, vocab: 32 };
  test('it reads T whole numbers below the vocabulary, spaces or commas between', () => {
    assert.deepEqual(parseProbe('1 2,3，4', { T: 4, vocab: 5 }), { tokens: [1, 2, 3, 4] });
    assert.deepEqual(parseProbe(' 1 2 3 ', { T: 4, vocab: 5 }), { error: { key: 'tr.probe.count', params: { n: 3, T: 4 } } });
    assert.deepEqual(parseProbe('1 2 3 5', { T: 4, vocab: 5 }).error, { key: 'tr.probe.value', params: { word: '5', max: 4 } });
    assert.equal(parseProbe('1 2 x 4', { T: 4, vocab: 5 }).error.params.word, 'x');
    assert.equal(parseProbe('1 -2 3 4', { T: 4, vocab: 5 }).error.key, 'tr.probe.value');
    assert.equal(parseProbe('<img src=x onerror=alert(1)>', { T: 4, vocab: 5 }).error.key, 'tr.probe.value');
    for (const lang of ['en', 'zh']) assert.ok(translator(lang)('tr.probe.count', { n: 3, T: 4 }).includes('4'));
  });

  test('examples are of the task\'s kind', () => {
    const sort = exampleProbe('sort', { T: 8, vocab: 16 }, 3);
    assert.equal(new Set(sort).size, 8);
    const seq = exampleProbe('induction', induction, 0);
    assert.equal(seq.length, 24);
    const m = seq.findIndex((token, i) => seq.indexOf(token) < i);
    assert.ok(m > 0, 'a repeat');
    assert.deepEqual(seq.slice(m), seq.slice(2 * m - 24, m), 'the last part again');
    assert.equal(new Set(seq.slice(0, m)).size, m, 'distinct before the repeat');
    assert.notDeepEqual(exampleProbe('reverse', { T: 16, vocab: 16 }, 1), exampleProbe('reverse', { T: 16, vocab: 16 }, 2));
    for (const token of exampleProbe('previous', { T: 16, vocab: 16 }, 9)) assert.ok(token >= 0 && token < 16);
  });

  test('targets as the engine defines them, and the wrong predictions counted', () => {
    assert.deepEqual(targetsFor('reverse', [1, 2, 3]), [3, 2, 1]);
    assert.deepEqual(targetsFor('sort', [3, 1, 2]), [1, 2, 3]);
    assert.deepEqual(targetsFor('previous', [5, 6, 7]), [-1, 5, 6]);
    assert.deepEqual(targetsFor('induction', [4, 5, 6, 4, 5, 6]), [-1, -1, -1, 5, 6, -1]);
    const { marks, scored, wrong } = predictionMarks('previous', [5, 6, 7], [0, 5, 1]);
    assert.deepEqual(marks.map((m) => m.right), [null, true, false]);
    assert.deepEqual({ scored, wrong }, { scored: 2, wrong: 1 });
  });
});

describe('options and the URL', () => {
  test('defaults come from the task\'s preset; only offered values are taken', () => {
    assert.deepEqual(defaultOptions(), { task: 'induction', layers: 2, heads: 1, lr: 0.003, dropout: 0, seed: 0 });
    assert.deepEqual(defaultOptions('sort'), { task: 'sort', layers: 3, heads: 1, lr: 0.005, dropout: 0, seed: 0 });
    const given = { task: 'reverse', layers: '3', heads: '3', lr: '0.01', dropout: '0.95', seed: '12' };
    const { options, rejected } = readOptions((name) => given[name] ?? null);
    assert.deepEqual(options, { task: 'reverse', layers: 3, heads: 1, lr: 0.01, dropout: 0, seed: 12 });
    assert.deepEqual(rejected.map((r) => r.name), ['heads', 'dropout']);
    assert.equal(rejected[0].accepted, RANGES.heads.join(', '));
    assert.equal(readOptions((name) => (name === 'task' ? 'histogram' : null)).options.task, 'induction');
    assert.equal(readOptions((name) => (name === 'seed' ? '4294967296' : null)).rejected.length, 1);
    assert.deepEqual(engineOptions(defaultOptions('sort')), { task: 'sort', layers: 3, heads: 1, width: 16, lr: 0.005, dropout: 0, seed: 0 });
    assert.ok(sameModel(defaultOptions(), { ...defaultOptions(), lr: 0.03, dropout: 0.5 }));
    assert.ok(!sameModel(defaultOptions(), { ...defaultOptions(), seed: 1 }));
  });

  test('a checkpoint opens the options it was trained with, whatever lr and dropout', () => {
    for (const task of Object.keys(PRESETS)) {
      assert.deepEqual(checkpointFor(defaultOptions(task)), CHECKPOINTS[task]);
      assert.deepEqual(checkpointFor({ ...defaultOptions(task), lr: 0.03, dropout: 0.3 }), CHECKPOINTS[task]);
      assert.equal(checkpointFor({ ...defaultOptions(task), seed: 1 }), null);
      assert.equal(checkpointFor({ ...defaultOptions(task), heads: 2 }), null);
    }
  });

  test('state to URL and back, defaults left out, tr- keys beside the playground\'s', () => {
    assert.equal(encodeTrainingState({ options: defaultOptions() }).toString(), '');
    const state = { options: { task: 'previous', layers: 1, heads: 2, lr: 0.01, dropout: 0.2, seed: 5 }, probe: '1 2 3', compare: true };
    const params = encodeTrainingState(state, { layer: 0, backward: true });
    assert.equal(params.toString(), 'tr-task=previous&tr-heads=2&tr-lr=0.01&tr-dropout=0.2&tr-seed=5&tr-probe=1+2+3&tr-compare=1&tr-block=0&tr-backward=1');
    const back = decodeTrainingState(`?seed=9&${params}`);
    assert.deepEqual(back, { ...state, rejected: [], block: { layer: 0, backward: true, source: 'trainer' } });
    assert.deepEqual(decodeTrainingState('?tr-block=x').block, { layer: null, backward: false, source: 'trainer' });
    // A layer past the trainer's is its last one: a link cannot ask for a picker of N options.
    for (const N of ['100000', '1e7', '9007199254740993']) assert.deepEqual(decodeTrainingState(`?tr-block=${N}`).block, { layer: defaultOptions().layers - 1, backward: false, source: 'trainer' });
    assert.equal(decodeTrainingState('?tr-layers=2&tr-block=5').block.layer, 1);
    // The language model's block: its source kept, no backward pass (the toy trainer's only).
    const lm = encodeTrainingState({}, { layer: 1, backward: false, source: 'lm' });
    assert.equal(lm.toString(), 'tr-block=1&tr-source=lm');
    assert.deepEqual(decodeTrainingState(`?${lm}`).block, { layer: 1, backward: false, source: 'lm' });
    assert.equal(encodeTrainingState({}, { layer: null, source: 'lm' }).toString(), '', 'the seeded run needs no source');
    assert.equal(mergeParams(new URLSearchParams('seed=9'), params).get('seed'), '9');
  });
});

describe('the backward walkthrough', () => {
  test('each d_ step names the tensor whose gradient it is', () => {
    assert.equal(isBackward({ id: 'd_x' }), true);
    assert.equal(isBackward({ id: 'output' }), false);
    assert.deepEqual(['d_weights', 'd_x', 'd_wq', 'd_bo', 'd_source', 'd_k_t', 'weights'].map((id) => gradientOf({ id })), ['weights', 'x', 'Wq', 'bo', 'source', 'k_t', null]);
  });
});

describe('against the engine', () => {
  let engine;
  before(async () => {
    engine = await createEngine({ trainer: true });
  });

  test('a trained checkpoint predicts the probe\'s targets on examples of its task', () => {
    for (const task of ['reverse', 'previous', 'induction', 'sort']) {
      const trainer = engine.trainer({ checkpoint: new Uint8Array(readFileSync(new URL(`../../web/checkpoints/${CHECKPOINTS[task].file}`, import.meta.url))) });
      let wrong = 0;
      let scored = 0;
      for (let seed = 0; seed < 20; seed++) {
        const tokens = exampleProbe(task, trainer.task, seed);
        const marks = predictionMarks(task, tokens, trainer.predict(tokens));
        wrong += marks.wrong;
        scored += marks.scored;
      }
      assert.ok(scored > 0 && wrong / scored < 0.02, `${task}: ${wrong} of ${scored} wrong`);
    }
  });

  test('the probe\'s and dropout\'s stream is the engine\'s mulberry32 (its seeded x, stream 1)', () => {
    for (const seed of [0, 7, 4294967295]) {
      const next = mulberry32((seed ^ 0x9e3779b9) >>> 0);
      const expected = Float32Array.from({ length: 24 }, () => (next() >>> 8) / 8388608 - 1);
      assert.deepEqual(engine.run({ B: 2, T: 3, C: 4, H: 2, seed }).step('x').data, expected, `seed ${seed}`);
    }
  });

  test('every backward step\'s gradient has the shape of its forward step', () => {
    const run = engine.run({ B: 2, T: 3, C: 4, H: 2, mask: 'causal', dOutput: new Float32Array(24).fill(1) });
    for (const step of run.steps.filter(isBackward)) {
      const forward = run.steps.find((s) => s.id === gradientOf(step));
      if (forward) assert.deepEqual(step.shape, forward.shape, step.id);
      else assert.deepEqual(step.shape.reduce((a, b) => a * b, 1), run.weights[gradientOf(step)].length, step.id);
    }
  });

  test('step 0 maps are near uniform; a trained head is not', () => {
    for (const task of Object.keys(PRESETS)) {
      const fresh = engine.trainer(engineOptions(defaultOptions(task)));
      const tokens = exampleProbe(task, fresh.task, 0);
      for (const { weights } of fresh.attention(tokens)) assert.ok(flatness(weights, fresh.task.T, fresh.task) < 0.2, `${task} step 0: ${flatness(weights, fresh.task.T, fresh.task)}`);
    }
    const trained = engine.trainer({ checkpoint: new Uint8Array(readFileSync(new URL('../../web/checkpoints/reverse.mhat', import.meta.url))) });
    const [{ weights }] = trained.attention(exampleProbe('reverse', trained.task, 0));
    assert.ok(flatness(weights, 16) > 0.5);
  });
});
