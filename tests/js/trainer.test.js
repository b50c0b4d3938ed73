// The trainer through the JS API: its task and options, training in chunks, the same
// loss curve natively, in wasm and through JS, checkpoints that round-trip exactly, predictions,
// attention maps, head scores, the traced block, dropout in training only, every bad option named,
// and a trainer that survives its errors.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError, Run, Trainer } from '../../web/src/engine/engine.js';
import { ROOT } from './helpers.js';

let engine;
before(async () => {
  engine = await createEngine({ trainer: true });
});

const bitsOf = (floats) => Array.from(new Uint32Array(Float32Array.from(floats).buffer), (u) => u.toString(16).padStart(8, '0'));
const fnv1a = (bytes) => {
  let hash = 2166136261;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash.toString(16).padStart(8, '0');
};

test('the same seed gives the same loss curve, bit for bit, natively, in wasm and through JS', () => {
  for (const [task, dropout] of [['induction', '0.1'], ['sort', '0']]) {
    const args = ['--train-curve', task, '25', dropout];
    const native = spawnSync(`${ROOT}build/native/mha_tests`, args, { encoding: 'utf8' });
    const wasm = spawnSync(process.execPath, [`${ROOT}build/wasm/mha_tests.cjs`, ...args], { encoding: 'utf8' });
    assert.equal(native.status, 0, native.stderr);
    assert.equal(wasm.stdout, native.stdout, `${task}: wasm vs native`);
    const trainer = engine.trainer({ task, seed: 7, dropout: Number(dropout) });
    // In chunks, as a Web Worker would train: the same curve as one call.
    const losses = [...trainer.train(10).losses, ...trainer.train(15).losses];
    const fromJs = [...bitsOf(losses), `checkpoint ${fnv1a(trainer.save())}`].join('\n');
    assert.equal(fromJs, native.stdout.trim(), `${task}: JS vs native`);
  }
});

describe('a trainer', () => {
  test('exposes its task, options and step', () => {
    const trainer = engine.trainer({ task: 'induction' });
    assert.ok(trainer instanceof Trainer);
    assert.deepEqual(trainer.task, { name: 'induction', T: 24, vocab: 32, causal: true, steps: 1000, job: 'prefixMatching', jobTarget: 0.7 });
    assert.equal(trainer.options.layers, 2);
    assert.equal(trainer.options.seed, 0);
    assert.equal(trainer.step, 0);
    assert.ok(trainer.parameterCount > 1000);
    const custom = engine.trainer({ task: 'reverse', T: 8, vocab: 10, width: 16, heads: 2, layers: 2, mlp: true, batch: 8, lr: 0.01 });
    assert.deepEqual(custom.task, { name: 'reverse', T: 8, vocab: 10, causal: false, steps: 400, job: 'antiDiagonal', jobTarget: 0.9 });
    assert.equal(custom.options.heads, 2);
    const result = custom.train(3);
    assert.equal(result.step, 3);
    assert.equal(custom.step, 3);
    assert.ok(result.losses instanceof Float32Array && result.losses.length === 3);
    assert.ok(Number.isFinite(result.loss) && result.accuracy >= 0 && result.accuracy <= 1);
  });

  test('reverse: 99% and an anti-diagonal head within its default length, step 0 near uniform', () => {
    const trainer = engine.trainer({ task: 'reverse' });
    const before = trainer.headScores();
    assert.equal(before.length, 1);
    assert.ok(before[0].score < 0.2, `step 0: ${before[0].score}`);
    assert.ok(engine.trainer({ task: 'reverse' }).evaluate().accuracy < 0.2);
    for (let done = 0; done < trainer.task.steps; done += 100) trainer.train(100);
    const evaluation = trainer.evaluate();
    assert.ok(evaluation.accuracy >= 0.99, JSON.stringify(evaluation));
    const [head] = trainer.headScores();
    assert.deepEqual(Object.keys(head.jobs).sort(), ['answer', 'antiDiagonal', 'prefixMatching', 'previousToken']);
    assert.ok(head.score >= 0.9, JSON.stringify(head));
    // Predictions: the reversed sequence.
    const tokens = Int32Array.from({ length: 32 }, (_, i) => (i * 7) % 16);
    const predicted = trainer.predict(tokens);
    assert.ok(predicted instanceof Int32Array && predicted.length === 32);
    const expected = [...tokens.slice(0, 16)].reverse().concat([...tokens.slice(16)].reverse());
    assert.deepEqual(Array.from(predicted), expected);
    // Attention: [{layer, weights [B, H, T, T]}], each row a distribution.
    const [layer0] = trainer.attention(Array.from(tokens));
    assert.equal(layer0.layer, 0);
    assert.equal(layer0.weights.length, 2 * 1 * 16 * 16);
    assert.ok(layer0.weights[15] > 0.5, 'query 0 looks at key 15');
  });

  test('save() and engine.trainer({ checkpoint }) round-trip exactly and train on identically', () => {
    const trainer = engine.trainer({ task: 'previous', dropout: 0.2, seed: 3 });
    trainer.train(7);
    const bytes = trainer.save();
    assert.ok(bytes instanceof Uint8Array);
    assert.equal(String.fromCharCode(...bytes.slice(0, 4)), 'MHAT');
    const loaded = engine.trainer({ checkpoint: bytes });
    assert.deepEqual(loaded.save(), bytes);
    assert.deepEqual(loaded.options, trainer.options);
    assert.equal(loaded.step, 7);
    bytes.fill(0);  // the caller's copy changing changes nothing
    assert.deepEqual(bitsOf(loaded.train(5).losses), bitsOf(trainer.train(5).losses));
    assert.deepEqual(loaded.save(), trainer.save());
  });

  test('run(tokens) walks one trained block forward and backward', () => {
    const trainer = engine.trainer({ task: 'induction' });
    trainer.train(20);
    const tokens = Int32Array.from({ length: 24 }, (_, i) => (i < 16 ? i : i - 8));
    const run = trainer.run(tokens, { layer: 1 });
    assert.ok(run instanceof Run);
    assert.deepEqual(run.summary.mask, 'causal');
    assert.deepEqual(run.step('weights').shape, [1, 1, 24, 24]);
    assert.deepEqual(run.step('weights').data, trainer.attention(tokens)[1].weights);
    assert.deepEqual(run.step('d_masked').shape, [1, 1, 24, 24]);
    assert.ok(run.gradients.Wq instanceof Float32Array && run.gradients.Wq.length === 32 * 32);
    assert.ok(run.gradients.x.some((g) => g !== 0));
  });

  test('dropout changes training, never evaluation', () => {
    const plain = engine.trainer({ task: 'reverse', seed: 4 });
    const dropped = engine.trainer({ task: 'reverse', seed: 4, dropout: 0.5 });
    const tokens = Array.from({ length: 16 }, (_, i) => i);
    assert.deepEqual(plain.evaluate(), dropped.evaluate());
    assert.deepEqual(plain.attention(tokens), dropped.attention(tokens));
    assert.deepEqual(plain.headScores(), dropped.headScores());
    assert.notDeepEqual(plain.train(3).losses, dropped.train(3).losses);
  });
});

test('configure() changes lr and dropout from the next step, never the model', () => {
  const trainer = engine.trainer({ task: 'reverse', seed: 2 });
  trainer.train(4);
  const twin = engine.trainer({ checkpoint: trainer.save() });
  const tokens = Array.from({ length: 16 }, (_, i) => (i * 5) % 16);
  const before = { attention: trainer.attention(tokens), scores: trainer.headScores(), evaluation: trainer.evaluate() };
  assert.equal(trainer.configure({ dropout: 0.3, lr: 0.01 }), trainer);
  assert.equal(trainer.options.dropout.toFixed(6), '0.300000');
  assert.equal(trainer.options.lr.toFixed(6), '0.010000');
  assert.equal(trainer.step, 4);
  assert.deepEqual(trainer.attention(tokens), before.attention);
  assert.deepEqual(trainer.headScores(), before.scores);
  assert.deepEqual(trainer.evaluate(), before.evaluation);
  assert.notDeepEqual(trainer.train(2).losses, twin.train(2).losses);
  // Back to the twin's options: the same steps from here on, bit for bit.
  const again = engine.trainer({ checkpoint: twin.save() });
  again.configure({ dropout: 0.3, lr: 0.01 }).configure({ dropout: 0, lr: 0.003 });
  assert.deepEqual(bitsOf(again.train(3).losses), bitsOf(engine.trainer({ checkpoint: twin.save() }).train(3).losses));
});

describe('errors', () => {
  const fails = (fn, field, code, message) => assert.throws(fn, (error) => {
    assert.ok(error instanceof MhaError, String(error));
    assert.equal(error.field, field);
    assert.equal(error.code, code);
    if (message) assert.match(error.message, message);
    assert.ok(error.messageIn('zh').length > 0 && error.messageIn('zh') !== error.message);
    return true;
  });

  test('an engine loaded without the trainer says how to load it', async () => {
    const lite = await createEngine();
    fails(() => lite.trainer({ task: 'reverse' }), 'trainer', 'trainer', /createEngine\(\{ trainer: true \}\)/);
  });

  test('bad options name the option', () => {
    fails(() => engine.trainer({ task: 'histogram' }), 'task', 'unknown_task', /choose reverse, sort, previous or induction/);
    fails(() => engine.trainer({ task: 3 }), 'task', 'bad_type');
    fails(() => engine.trainer({ task: 'sort', leyers: 2 }), 'leyers', 'unknown_key', /Known options: task, seed/);
    fails(() => engine.trainer({ weight_decay: 0.1 }), 'weight_decay', 'unknown_key', /did you mean "weightDecay"/);
    fails(() => engine.trainer({ layers: 9 }), 'layers', 'bad_option', /layers=9 is outside 1 … 4/);
    fails(() => engine.trainer({ layers: '2' }), 'layers', 'bad_type');
    fails(() => engine.trainer({ width: 30, heads: 4 }), 'heads', 'bad_option', /divisors of 30: 1, 2, 3, 5, 6, 10, 15, 30/);
    fails(() => engine.trainer({ task: 'sort', T: 32 }), 'vocab', 'bad_option', /vocab must be at least 32/);
    fails(() => engine.trainer({ lr: -1 }), 'lr', 'bad_option');
    fails(() => engine.trainer({ dropout: NaN }), 'dropout', 'bad_type');
    fails(() => engine.trainer({ mlp: 1 }), 'mlp', 'bad_type');
    fails(() => engine.trainer(null), 'options', 'bad_type');
    const trainer = engine.trainer({ task: 'reverse' });
    fails(() => trainer.configure({ layers: 2 }), 'layers', 'bad_option', /layers cannot change on a trainer/);
    fails(() => trainer.configure({ dropout: 0.95 }), 'dropout', 'bad_option', /dropout=0\.95 is outside 0 … 0\.9/);
    fails(() => trainer.configure({ lr: '0.1' }), 'lr', 'bad_type');
    assert.equal(trainer.options.dropout, 0);
    fails(() => engine.trainer({ checkpoint: [1, 2] }), 'checkpoint', 'bad_type');
  });

  test('a foreign, corrupt or other-version checkpoint is refused naming checkpoint', () => {
    const good = engine.trainer({ task: 'reverse', T: 8, vocab: 8 }).save();
    fails(() => engine.trainer({ checkpoint: good, task: 'reverse' }), 'task', 'bad_option', /cannot be given with checkpoint/);
    fails(() => engine.trainer({ checkpoint: new Uint8Array(64) }), 'checkpoint', 'checkpoint', /not an mha-lens trainer checkpoint/);
    const flipped = good.slice();
    flipped[200] ^= 4;
    fails(() => engine.trainer({ checkpoint: flipped }), 'checkpoint', 'checkpoint', /checksum does not match/);
    fails(() => engine.trainer({ checkpoint: good.slice(0, good.length - 4) }), 'checkpoint', 'checkpoint', /damaged/);
    const other = good.slice();
    other[4] = 3;  // version 3 (a later format than this engine reads), checksum recomputed
    const words = new Uint32Array(other.buffer, 0, other.length / 4);
    let hash = 2166136261;
    for (let i = 0; i < words.length - 1; i++) hash = Math.imul(hash ^ words[i], 16777619) >>> 0;
    words[words.length - 1] = hash;
    fails(() => engine.trainer({ checkpoint: other }), 'checkpoint', 'checkpoint', /version 3 of the trainer's format/);
  });

  test('a running trainer loses nothing to an error', () => {
    const trainer = engine.trainer({ task: 'previous' });
    trainer.train(4);
    const bytes = trainer.save();
    fails(() => trainer.train(0), 'steps', 'bad_option');
    fails(() => trainer.train(2.5), 'steps', 'bad_option');
    fails(() => trainer.train('10'), 'steps', 'bad_option');
    fails(() => trainer.predict([1, 2, 3]), 'tokens', 'bad_tokens', /multiple of 16/);
    fails(() => trainer.predict(new Array(16).fill(16)), 'tokens', 'bad_tokens', /tokens\[0\]=16 is not a token: tokens are whole numbers from 0 to 15/);
    fails(() => trainer.predict(new Array(16).fill(0.5)), 'tokens', 'bad_tokens');
    fails(() => trainer.attention('abc'), 'tokens', 'bad_type');
    fails(() => trainer.run(new Int32Array(16), { layer: 1 }), 'layer', 'bad_option');
    fails(() => trainer.evaluate({ sequences: 0 }), 'sequences', 'bad_option');
    assert.deepEqual(trainer.save(), bytes);
    assert.equal(trainer.train(1).step, 5);
  });
});

test('the CLI: train prints progress, the final loss, accuracy on fresh batches and head scores', () => {
  const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { encoding: 'utf8', timeout: 60_000 });
  const { status, stdout, stderr } = cli('train', '--task', 'previous', '--steps', '200', '--seed', '2');
  assert.equal(status, 0, stderr);
  assert.match(stdout, /^step +100 +loss \d/m);
  assert.match(stdout, /accuracy on 512 fresh sequences: \d+\.\d+%/);
  assert.match(stdout, /layer 0 head 0: previousToken 0\.\d+ \(step 0: 0\.\d+\)/);
  const json = cli('train', '--task', 'reverse', '--steps', '20', '--json');
  assert.equal(json.status, 0, json.stderr);
  const report = JSON.parse(json.stdout);
  assert.equal(report.task.name, 'reverse');
  assert.equal(report.step, 20);
  assert.equal(report.losses.length, 20);
  assert.ok(report.evaluation.accuracy >= 0 && report.heads[0].jobs.antiDiagonal >= 0 && report.headsAtStart.length === 1);
  const bad = cli('train', '--task', 'histogram');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /task "histogram" is not a task/);
  const zh = cli('train', '--task', 'reverse', '--steps', '0', '--lang', 'zh');
  assert.equal(zh.status, 2);
  assert.match(zh.stderr, /steps=0 超出/);
});
