// The backward pass through the JS API: every d_ step and gradient against PyTorch
// autograd within 1e-5 × max(1, max |expected|), the step contract of the d_ steps, gradients
// without snapshots, a lazy d_ step, bit-identical values natively, in wasm and through JS, and
// the errors that name dOutput.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { before, describe, test } from 'node:test';

import { createEngine, MhaError } from '../../web/src/engine/engine.js';
import { checksum, loadFixtures, ROOT, stepTitlePattern } from './helpers.js';

let engine;
before(async () => {
  engine = await createEngine();
});

function assertGradient(actual, expected, what) {
  const peak = Math.max(1, ...expected.map(Math.abs));
  const tolerance = 1e-5 * peak;
  assert.equal(actual.length, expected.length, `${what}: length`);
  let worst = 0;
  for (let i = 0; i < actual.length; i++) {
    const diff = Math.abs(actual[i] - expected[i]);
    if (!(diff <= worst)) worst = diff;
    assert.ok(diff <= tolerance, `${what}[${i}]: ${actual[i]} vs ${expected[i]} (max |diff| so far ${worst}, tolerance ${tolerance})`);
  }
}

const GRADIENT_OF = { d_x: 'x', d_source: 'kv', d_wq: 'Wq', d_wk: 'Wk', d_wv: 'Wv', d_wo: 'Wo', d_bq: 'bq', d_bk: 'bk', d_bv: 'bv', d_bo: 'bo' };

describe('PyTorch autograd parity', () => {
  for (const fixture of loadFixtures()) {
    test(`${fixture.name}: every d_ step and run.gradients within 1e-5 × max(1, max |expected|)`, () => {
      const run = engine.run({ ...fixture.config, dOutput: fixture.dOutput });
      const backward = run.steps.filter((step) => step.id.startsWith('d_'));
      assert.deepEqual(backward.map((s) => s.id).sort(), Object.keys(fixture.gradients).sort());
      for (const [id, expected] of Object.entries(fixture.gradients)) {
        const step = run.step(id);
        assert.deepEqual(step.shape, expected.shape, `${id} shape`);
        assertGradient(step.data, expected.data, `${fixture.name} ${id}`);
        if (GRADIENT_OF[id]) assertGradient(run.gradients[GRADIENT_OF[id]], expected.data, `${fixture.name} gradients.${GRADIENT_OF[id]}`);
      }
      const names = Object.keys(run.gradients).sort();
      assert.deepEqual(names, Object.keys(GRADIENT_OF).filter((id) => fixture.gradients[id]).map((id) => GRADIENT_OF[id]).sort());
    });
  }
});

describe('the d_ steps', () => {
  const config = { B: 2, T: 3, Tk: 5, C: 12, H: 6, Hkv: 2, mask: 'causal', keyLengths: [5, 2] };
  const dOutput = Float32Array.from({ length: 2 * 3 * 12 }, (_, i) => Math.sin(i));

  test('follow the forward steps, each with the shape and axes of its forward tensor', () => {
    const run = engine.run({ ...config, dOutput });
    const ids = run.steps.map((step) => step.id);
    const firstBackward = ids.indexOf('d_output');
    assert.equal(ids[firstBackward - 1], 'output');
    assert.ok(ids.slice(firstBackward).every((id) => id.startsWith('d_')));
    const catalogue = engine.catalogue;
    const backwardIds = catalogue.filter((entry) => entry.pass === 'backward').map((entry) => entry.id);
    assert.deepEqual(ids.slice(firstBackward), backwardIds.filter((id) => ids.includes(id)), 'catalogue order');
    for (const step of run.steps.slice(firstBackward)) {
      const forward = run.steps.find((s) => s.id === step.id.slice(2));
      if (forward) {
        assert.deepEqual(step.shape, forward.shape, step.id);
        assert.deepEqual(step.axes, forward.axes, step.id);
      }
      assert.ok(step.data instanceof Float32Array && step.data.every(Number.isFinite), step.id);
    }
    assert.equal(run.step('d_masked').formula, 'dS = A ⊙ (dA − rowsum(dA ⊙ A))');
    assert.equal(run.step('d_k_heads').op, 'sum');
    assert.deepEqual(run.step('d_wq').shape, [12, 12]);
    assert.deepEqual(run.step('d_wk').shape, [12, 4]);
    assert.deepEqual(run.step('d_source').shape, [2, 5, 12]);
    assert.equal(run.gradients.kv.length, 2 * 5 * 12);
    // Without dOutput there is no backward step and no gradients.
    const forwardOnly = engine.run(config);
    assert.ok(!forwardOnly.steps.some((step) => step.id.startsWith('d_')));
    assert.equal(forwardOnly.gradients, null);
  });

  test('snapshots: false returns only the gradients; a lazy run computes a d_ step on request', () => {
    const full = engine.run({ ...config, dOutput });
    const bare = engine.run({ ...config, dOutput, snapshots: false });
    assert.equal(bare.steps.length, 0);
    for (const [name, values] of Object.entries(full.gradients)) assert.deepEqual(bare.gradients[name], values, name);
    const lazy = engine.run({ ...config, dOutput: Array.from(dOutput), snapshots: 'lazy' });
    assert.equal(lazy.steps.find((s) => s.id === 'd_scores').data, null);
    assert.deepEqual(lazy.step('d_scores').data, full.step('d_scores').data);
    assert.deepEqual(lazy.step('d_v_shared').data, full.step('d_v_shared').data);
  });

  test('a wrong-size, non-finite or mistyped dOutput is refused naming dOutput, and the engine goes on', () => {
    const cases = [
      [{ ...config, dOutput: dOutput.slice(1) }, 'bad_tensor_length', 'dOutput has 71 values but needs B·T·C = 2·3·12 = 72.'],
      [{ ...config, dOutput: Array.from(dOutput, (v, i) => (i === 5 ? NaN : v)) }, 'non_finite', null],
      [{ ...config, dOutput: Float32Array.from(dOutput, (v, i) => (i === 9 ? Infinity : v)) }, 'non_finite', 'dOutput[9] is Infinity: explicit tensors must hold finite numbers.'],
      [{ ...config, dOutput: 'ones' }, 'bad_type', null],
      [{ ...config, dOutput: Float32Array.from(dOutput, (v) => v * 1e37) }, 'bad_value', null],
    ];
    for (const [bad, code, message] of cases) {
      assert.throws(() => engine.run(bad), (error) => {
        assert.ok(error instanceof MhaError);
        assert.equal(error.code, code);
        assert.match(error.field, /^dOutput/);
        if (message) assert.equal(error.message, message);
        assert.ok(error.messageIn('zh').length > 0);
        return true;
      });
    }
    assert.equal(engine.run({ ...config, dOutput }).gradients.x.length, 72);
  });

  test('a snake-cased key is pointed at dOutput', () => {
    assert.throws(() => engine.run({ ...config, d_output: dOutput }), { code: 'unknown_key', field: 'd_output', message: /did you mean "dOutput"/ });
  });
});

test('every backward step is bit-identical natively, in wasm and through the JS API', () => {
  // Keep equal to tests/cpp/seeded_configs.hpp (as doctest_builds.test.js does).
  const SEEDED = {
    classic: { B: 2, T: 4, C: 8, H: 2, seed: 0 },
    gqa_cross_causal_padding: { B: 2, T: 5, Tk: 7, C: 24, H: 6, Hkv: 2, seed: 42, mask: 'causal', keyLengths: [7, 3] },
    no_bias: { B: 1, T: 3, C: 12, H: 4, bias: false, seed: 7 },
  };
  const fromNative = spawnSync(`${ROOT}build/native/mha_tests`, ['--backward-checksums'], { encoding: 'utf8' });
  const fromWasm = spawnSync(process.execPath, [`${ROOT}build/wasm/mha_tests.cjs`, '--backward-checksums'], { encoding: 'utf8' });
  assert.equal(fromNative.status, 0, fromNative.stderr);
  assert.equal(fromWasm.stdout, fromNative.stdout);
  const lines = fromNative.stdout.trim().split('\n');
  assert.ok(lines.length > 60, `${lines.length} checksums`);
  const fromJs = Object.entries(SEEDED).flatMap(([name, config]) => {
    const n = config.B * config.T * config.C;
    const dOutput = Float32Array.from({ length: n }, (_, i) => (((i * 7919) % 17) - 8) / 8);
    return engine.run({ ...config, dOutput }).steps.filter((s) => s.id.startsWith('d_')).map((s) => `${name} ${s.id} ${checksum(s.data)}`);
  });
  assert.deepEqual(fromJs, lines);
});

test('the CLI: walk --backward prints the d_ steps and the backward chain with shapes', async () => {
  const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { encoding: 'utf8', timeout: 30_000 });
  const { status, stdout, stderr } = cli('walk', '--B', '2', '--T', '3', '--Tk', '5', '--C', '12', '--H', '6', '--Hkv', '2', '--backward');
  assert.equal(status, 0, stderr);
  assert.match(stdout, new RegExp(String.raw`^\d+ +d_masked · ${await stepTitlePattern('d_masked')} +softmax backward over Tk of \[2,6,3,5\] → \[2,6,3,5\]`, 'm'));
  assert.match(stdout, new RegExp(String.raw`^\d+ +d_k_heads · ${await stepTitlePattern('d_k_heads')} +\[2,6,5,2\] summed over groups of 3 → \[2,2,5,2\]`, 'm'));
  assert.ok(stdout.includes('backward chain: d_output [2,3,12] → d_concat [2,3,12] → d_context [2,6,3,2] → d_weights [2,6,3,5] → '
    + 'd_masked [2,6,3,5] → d_scores [2,6,3,5] → d_q_heads/d_k_heads/d_v_heads [2,6,3,2]/[2,2,5,2]/[2,2,5,2] → '
    + 'd_q/d_k/d_v [2,3,12]/[2,5,4]/[2,5,4] → d_x/d_source [2,3,12]/[2,5,12]'), stdout);
  const zh = cli('walk', '--B', '1', '--T', '2', '--C', '4', '--H', '2', '--backward', '--lang', 'zh');
  assert.equal(zh.status, 0, zh.stderr);
  assert.match(zh.stdout, new RegExp(`d_wq · ${await stepTitlePattern('d_wq', 'zh')}`));
  assert.match(zh.stdout, /反向形状链: d_output \[1,2,4\]/);
  const bad = cli('walk', '--B', '0', '--T', '2', '--C', '4', '--H', '2', '--backward');
  assert.equal(bad.status, 2);
  assert.match(bad.stderr, /B=0 is not allowed/);
});
