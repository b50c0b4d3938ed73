// `mha-lens check`'s logic on the committed traces (tests/fixtures/traces, written by
// scripts/mha_lens_trace.py from the modules in tests/fixtures/modules): the tutorial's module and
// the correct rewrites match, each module with one known mistake is named for that mistake and
// no other, at the line where the module goes wrong. The learner's tensors come from PyTorch, the
// mistakes' tensors from the engine's steps: they meet only here. Also the matcher on tensors
// built by plain loops, the file checks, the tracer's seeded tensors against the engine's, and
// (when PyTorch is installed) the traces regenerated and compared with the committed ones.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';

import { checkLines, checkTrace, MISTAKES } from '../../web/src/logic/check/check-trace.js';
import { labelled, matchTensor } from '../../web/src/logic/check/tensor-match.js';
import { parseTrace, readTrace, TRACE_FORMAT } from '../../web/src/logic/check/trace-file.js';
import { getTestEngine } from './engine-helper.js';
import { ROOT } from './helpers.js';

const TRACES = `${ROOT}tests/fixtures/traces/`;
const MODULES = `${ROOT}tests/fixtures/modules/`;
const rawTrace = (name) => JSON.parse(readFileSync(`${TRACES}${name}.json`, 'utf8'));
const trace = (name) => readTrace(rawTrace(name));

// What each traced module is, by construction (the file's own docstring says it): null for a
// correct module; else the mistake, the variable that first goes wrong and text of its line.
const EXPECTED = {
  tutorial: null,
  tutorial_causal: null,
  tutorial_padding: null,
  tutorial_own_weights: null,
  renamed_causal: null,
  annotated: null,
  softmax_over_queries: { mistake: 'softmaxOverQueries', name: 'attn', code: 'dim=-2' },
  // scores without the scale are the engine's `scores` step: the softmax of them is the first miss.
  no_scale: { mistake: 'noScale', name: 'attn', code: 'torch.softmax(scores, dim=-1)' },
  scale_sqrt_d_model: { mistake: 'scaleSqrtC', name: 'scores', code: 'math.sqrt(self.d_model)' },
  k_not_transposed: { mistake: 'kNotTransposed', name: 'scores', code: 'Q @ K / math.sqrt' },
  view_without_transpose: { mistake: 'viewWithoutTranspose', name: 'Q', code: 'view(B, self.n_head, -1, self.d_k)' },
  heads_not_moved: { mistake: 'headsNotMoved', name: 'scores', code: 'Q @ K.transpose(-2, -1)' },
  no_projection: { mistake: 'noProjection', name: 'scores', code: 'Q @ K.transpose(-2, -1)' },
  mask_inverted: { mistake: 'maskInverted', name: 'scores', code: 'mask == 1' },
  mask_added: { mistake: 'maskAdded', name: 'scores', code: 'scores + mask' },
  mask_zero_fill: { mistake: 'maskZeroFill', name: 'scores', code: 'masked_fill(mask == 0, 0.0)' },
  mask_positive_fill: { mistake: 'maskPositiveFill', name: 'scores', code: 'masked_fill(mask == 0, 1e9)' },
  mask_flipped: { mistake: 'maskFlipped', name: 'scores', code: 'masked_fill(mask == 0' },
  merge_without_transpose: { mistake: 'mergeWithoutTranspose', name: 'x', code: '(attn @ V).contiguous().view' },
  merge_without_contiguous: { mistake: 'mergeWithoutContiguous', error: 'RuntimeError', code: '.transpose(1, 2).view(' },
  no_output_projection: { mistake: 'noOutputProjection', name: 'output', code: null },
};

const sourceLine = (file, line) => readFileSync(`${ROOT}${file}`, 'utf8').split('\n')[line - 1];

test('every committed trace is in the table, and every fixture module has a trace', () => {
  const traces = readdirSync(TRACES).filter((f) => f.endsWith('.json')).map((f) => f.slice(0, -5)).sort();
  assert.deepEqual(traces, Object.keys(EXPECTED).sort());
  const modules = new Set(traces.map((name) => trace(name).module.path.split('/').pop()));
  for (const file of readdirSync(MODULES).filter((f) => f.endsWith('.py'))) assert.ok(modules.has(file), `${file} has no trace`);
  for (const name of traces) assert.equal(rawTrace(name).format, TRACE_FORMAT);
});

test('the correct modules match, line by line and at the output', async () => {
  const engine = await getTestEngine();
  for (const [name, expected] of Object.entries(EXPECTED)) {
    if (expected) continue;
    const result = checkTrace(trace(name), engine);
    assert.equal(result.ok, true, `${name}:\n${checkLines(result).join('\n')}`);
    assert.equal(result.output.match.step, 'output', name);
    assert.deepEqual(result.mistakes, [], name);
    assert.equal(result.firstUnmatched, null, name);
  }
  const tutorial = checkTrace(trace('tutorial_causal'), engine);
  assert.deepEqual(tutorial.records.filter((r) => r.compared).map((r) => `${r.name}→${r.match.step}${r.match.layout ? ' as ' + r.match.layout : ''}`),
    ['x→x', 'Q→q_heads', 'K→k_heads', 'V→v_heads', 'scores→scaled', 'scores→masked', 'attn→weights', 'x→concat']);
  assert.equal(tutorial.records.find((r) => r.name === 'mask').compared, false, 'the mask is not computed from x');
  assert.equal(tutorial.returnedWeights.match.step, 'weights');
  assert.ok(tutorial.output.match.maxDiff < 1e-6, `PyTorch and the engine agree to ${tutorial.output.match.maxDiff}`);
});

test('renamed variables, extra temporaries, heads folded into the batch and a fused projection still match', async () => {
  const result = checkTrace(trace('renamed_causal'), await getTestEngine());
  const at = (name, nth = 0) => result.records.filter((r) => r.name === name)[nth].match;
  assert.equal(at('qkv').step, 'q, k, v');
  assert.deepEqual([at('query', 0).step, at('key', 0).step, at('value', 0).step], ['q', 'k', 'v']);
  assert.deepEqual([at('query', 1).step, at('query', 1).layout], ['q_heads', ['B·H', 'T', 'D']]);
  assert.deepEqual([at('key_t').step, at('key_t').layout], ['k_t', ['B·H', 'D', 'Tk']]);
  assert.deepEqual([at('logits', 0).step, at('logits', 1).step, at('probs').step, at('mixed').step], ['scaled', 'masked', 'weights', 'context']);
  assert.deepEqual([at('heads_last').step, at('heads_last').layout, at('y').step], ['context_t', null, 'concat']);
  assert.equal(at('row_sums'), null, 'a sum of the weights is no step');
  assert.equal(result.ok, true);
  assert.match(checkLines(result).join('\n'), /row_sums = probs\.sum\(dim=-1\) +· matches no step \(an extra: the output is right\)/);
  // The helper function in the same file is traced too.
  const annotated = checkTrace(trace('annotated'), await getTestEngine());
  assert.ok(annotated.records.some((r) => r.function === 'attention' && r.name === 'p_attn' && r.match.step === 'weights'));
});

test('each mistaken module is named for its own mistake, at the line where it goes wrong', async () => {
  const engine = await getTestEngine();
  for (const [name, expected] of Object.entries(EXPECTED)) {
    if (!expected) continue;
    const t = trace(name);
    const result = checkTrace(t, engine);
    const report = checkLines(result).join('\n');
    assert.equal(result.ok, false, name);
    assert.deepEqual(result.mistakes.map((m) => m.key), [expected.mistake], `${name}:\n${report}`);
    assert.ok(report.includes(`"${MISTAKES[expected.mistake].title}"`), report);
    if (expected.error) {
      assert.equal(result.error.type, expected.error);
      assert.ok(sourceLine(t.module.path, result.error.line).includes(expected.code), `${name}: line ${result.error.line}`);
      continue;
    }
    assert.equal(result.firstUnmatched.name, expected.name, `${name}:\n${report}`);
    if (expected.code) assert.ok(sourceLine(t.module.path, result.firstUnmatched.line).includes(expected.code), `${name}: line ${result.firstUnmatched.line}`);
    // Every variable before the first miss matched a step.
    const before = result.records.slice(0, result.firstUnmatched.index ?? result.records.length);
    assert.ok(before.every((r) => !r.compared || r.match), name);
  }
});

test('an extra tensor of the learner\'s own before the mistake: named first, the mistake found in the next miss', async () => {
  const raw = rawTrace('softmax_over_queries');
  const at = raw.records.findIndex((r) => r.name === 'attn');
  const extra = { ...raw.records[at], name: 'entropy', line: 29, source: 'entropy = -(scores * scores.exp()).sum()', shape: [2, 2, 4], data: raw.records[at].data.slice(0, 16).map((v) => v * 3 + 1) };
  raw.records.splice(at, 0, extra);
  const result = checkTrace(readTrace(raw), await getTestEngine());
  assert.equal(result.firstUnmatched.name, 'entropy');
  assert.equal(result.explained.name, 'attn');
  assert.deepEqual(result.mistakes.map((m) => m.key), ['softmaxOverQueries']);
  const report = checkLines(result).join('\n');
  assert.match(report, /The first variable that matches no step: entropy \(line 29, \[2,2,4\]\)\.\n  It is none of the known mistakes; a later variable that matches no step is: attn \(line 30, \[2,2,4,4\]\)\.\n  That is the known mistake "softmax over Tq"/);
});

test('a tensor no mistake explains is said to match none, with the nearest step', async () => {
  const engine = await getTestEngine();
  // A correct module whose output is off by more than the tolerance does not match, and no
  // mistake explains it …
  const off = rawTrace('tutorial');
  off.output.data[0] += 1e-3;
  const wrong = checkTrace(readTrace(off), engine);
  assert.equal(wrong.ok, false);
  assert.equal(wrong.firstUnmatched.what, 'output');
  assert.deepEqual(wrong.mistakes, []);
  assert.equal(wrong.explained, null);
  assert.equal(wrong.closest.step, 'output');
  assert.ok(Math.abs(wrong.closest.maxDiff - 1e-3) < 1e-6, String(wrong.closest.maxDiff));
  assert.match(checkLines(wrong).join('\n'), /matches none of the 15 known mistakes mha-lens computes from the engine's steps\.\n  The nearest step of its shape: step 19 output, max \|diff\| 1\.0e-3\.$/);
  // … within it, it does; and a looser tolerance accepts the larger difference.
  const near = rawTrace('tutorial');
  near.output.data[0] += 1e-6;
  assert.equal(checkTrace(readTrace(near), engine).ok, true);
  assert.equal(checkTrace(readTrace(off), engine, { tolerance: 1e-2 }).ok, true);
  // A mistaken tensor moved off its mistake is no longer that mistake; the merged heads after it
  // still are (they were computed before the change).
  const raw = rawTrace('softmax_over_queries');
  raw.records.find((r) => r.name === 'attn').data[5] += 0.01;
  const moved = checkTrace(readTrace(raw), engine);
  assert.equal(moved.firstUnmatched.name, 'attn');
  assert.equal(moved.explained.name, 'x');
  assert.deepEqual(moved.mistakes.map((m) => [m.key, m.stage, m.layout]), [['softmaxOverQueries', 'concat', null]]);
});

test('the engine run may be given as a function; the report names the step by number', async () => {
  const engine = await getTestEngine();
  const configs = [];
  const result = checkTrace(trace('tutorial'), (config) => {
    configs.push(config);
    return engine.run(config);
  });
  assert.equal(result.ok, true);
  assert.equal(configs.length, 1);
  assert.deepEqual([configs[0].B, configs[0].T, configs[0].C, configs[0].H, configs[0].mask], [2, 4, 8, 2, 'none']);
  assert.match(checkLines(result).join('\n'), /^line 29 +scores = Q @ K\.transpose\(-2, -1\) \/ math\.sqrt\(self\.d_k\) +→ step 13 scaled ✓$/m);
});

// --- The matcher on tensors built here --------------------------------------------------------------

const B = 2, T = 3, H = 2, D = 4, C = H * D;
const random = (n, seed = 1) => {
  let s = seed;
  return Float64Array.from({ length: n }, () => ((s = (s * 16807) % 2147483647) / 2147483647) * 2 - 1);
};
// A [B, T, C] tensor and, by plain loops, what transposes and views of it hold.
const base = random(B * T * C);
const at = (b, t, h, d) => base[((b * T + t) * H + h) * D + d];
const candidate = labelled(['B', 'T', 'H', 'D'], [B, T, H, D], base, 'q_split');
function build(shape, index) {
  const data = new Float64Array(shape.reduce((a, n) => a * n, 1));
  let i = 0;
  const walk = (prefix) => {
    if (prefix.length === shape.length) {
      data[i++] = index(...prefix);
      return;
    }
    for (let k = 0; k < shape[prefix.length]; k++) walk([...prefix, k]);
  };
  walk([]);
  return { shape, data };
}

test('matchTensor: the same tensor, a transpose, heads split, merged or folded into the batch', () => {
  assert.deepEqual(matchTensor({ shape: [B, T, H, D], data: base }, candidate, { ownShape: [B, T, H, D] }), { rank: 0, layout: ['B', 'T', 'H', 'D'], maxDiff: 0 });
  const heads = build([B, H, T, D], (b, h, t, d) => at(b, t, h, d));
  assert.deepEqual(matchTensor(heads, candidate).layout, ['B', 'H', 'T', 'D']);
  assert.equal(matchTensor(heads, candidate).rank, 2);
  const merged = build([B, T, C], (b, t, c) => at(b, t, Math.floor(c / D), c % D));
  assert.deepEqual(matchTensor(merged, candidate), { rank: 1, layout: ['B', 'T', 'H·D'], maxDiff: 0 });
  const folded = build([B * H, T, D], (bh, t, d) => at(Math.floor(bh / H), t, bh % H, d));
  assert.deepEqual(matchTensor(folded, candidate).layout, ['B·H', 'T', 'D']);
  const transposedK = build([B, H, D, T], (b, h, d, t) => at(b, t, h, d));
  assert.deepEqual(matchTensor(transposedK, candidate).layout, ['B', 'H', 'D', 'T']);
  const unsqueezed = build([1, B, T, C], (_, b, t, c) => at(b, t, Math.floor(c / D), c % D));
  assert.deepEqual(matchTensor(unsqueezed, candidate).layout, ['1', 'B', 'T', 'H·D']);
});

test('matchTensor refuses a view that reinterprets memory, other values, and a merge in the wrong order', () => {
  // view(B, H, T, D) of the [B, T, C] buffer: the same numbers in memory order, but no
  // reordering of the axes gives them.
  assert.equal(matchTensor({ shape: [B, H, T, D], data: base }, candidate), null);
  // Features merged d-major (D·H) is a reordering, found as such; as a merge of H·D it is not the same.
  const dMajor = build([B, T, C], (b, t, c) => at(b, t, c % H, Math.floor(c / H)));
  assert.deepEqual(matchTensor(dMajor, candidate).layout, ['B', 'T', 'D·H']);
  const off = Float64Array.from(base);
  off[7] += 2e-4;
  assert.equal(matchTensor({ shape: [B, T, H, D], data: off }, candidate), null);
  assert.ok(matchTensor({ shape: [B, T, H, D], data: off }, candidate, { tolerance: 1e-3 }).maxDiff > 1.9e-4);
  assert.equal(matchTensor({ shape: [B, T, H, D + 1], data: new Float64Array(B * T * H * (D + 1)) }, candidate), null);
});

test('matchTensor: −∞ matches −∞ or a large negative fill (-1e9), never a finite score', () => {
  const masked = labelled(['Tq', 'Tk'], [2, 2], Float64Array.from([0.5, -Infinity, 0.25, 0.75]), 'masked');
  assert.ok(matchTensor({ shape: [2, 2], data: Float64Array.from([0.5, -Infinity, 0.25, 0.75]) }, masked));
  assert.ok(matchTensor({ shape: [2, 2], data: Float64Array.from([0.5, -1e9, 0.25, 0.75]) }, masked));
  assert.equal(matchTensor({ shape: [2, 2], data: Float64Array.from([0.5, -30, 0.25, 0.75]) }, masked), null);
  assert.equal(matchTensor({ shape: [2, 2], data: Float64Array.from([0.5, 0, 0.25, 0.75]) }, masked), null);
});

// --- The file ---------------------------------------------------------------------------------------

test('a bad trace is refused naming the field and what it should hold', () => {
  const refused = (mutate, field, pattern) => {
    const raw = rawTrace('tutorial');
    mutate(raw);
    assert.throws(() => readTrace(raw), (error) => {
      assert.equal(error.name, 'TraceError');
      assert.equal(error.field, field, error.message);
      if (pattern) assert.match(error.message, pattern);
      return true;
    });
  };
  refused((t) => { t.format = 'mha-lens/attention'; }, 'format', /not written by mha_lens_trace\.py/);
  refused((t) => { t.version = 2; }, 'version', /newer than this mha-lens reads/);
  refused((t) => { delete t.config; }, 'config', /must be an object/);
  refused((t) => { t.config.H = 3; }, 'config.H', /C=8 is not divisible by H=3/);
  refused((t) => { t.config.B = 0; }, 'config.B', /whole number ≥ 1/);
  refused((t) => { t.config.mask = 'future'; }, 'config.mask', /"none" or "causal"/);
  refused((t) => { t.config.keyLengths = [4]; }, 'config.keyLengths', /B=2 whole numbers from 1 to T=4/);
  refused((t) => { t.inputs.x.shape = [2, 4, 4]; }, 'inputs.x.shape', /config makes it \[2,4,8\]/);
  refused((t) => { delete t.weights.Wo; }, 'weights.Wo', /must be an object/);
  refused((t) => { t.records[3].data.pop(); }, 'records[3].data', /has 63 values, but shape \[2,2,4,4\] holds 64/);
  refused((t) => { t.records[2].data[1] = 'inf'; }, 'records[2].data[1]', /"-Infinity", "Infinity", "NaN"/);
  refused((t) => { t.records[0].shape = [2, -4, 8]; }, 'records[0].shape', /whole numbers ≥ 0/);
  refused((t) => { delete t.records[1].fromInput; }, 'records[1].fromInput');
  refused((t) => { t.records = {}; }, 'records');
  refused((t) => { t.output = null; }, 'output', /holds the forward's output/);
  refused((t) => { t.error = { type: 3, message: 'boom' }; }, 'error.type', /must be a string, not number/);
  assert.throws(() => parseTrace('{"format": '), { name: 'TraceError', field: '(file)', message: /not JSON/ });
  assert.throws(() => parseTrace('[1, 2]'), { name: 'TraceError', field: '(file)' });
  assert.throws(() => parseTrace('{"__proto__": {}}'), { name: 'TraceError', message: /__proto__/ });
});

test('masked −∞ travels through the file as "-Infinity"', () => {
  const raw = rawTrace('tutorial_causal');
  const masked = raw.records.find((r) => r.source.includes('masked_fill'));
  assert.equal(masked.data[1], '-Infinity', 'query 0 may not see key 1');
  assert.equal(trace('tutorial_causal').records.find((r) => r.source.includes('masked_fill')).data[1], -Infinity);
});

test('the tracer\'s seeded x and weights are the engine\'s, bit for bit (its mulberry32 port)', async () => {
  const engine = await getTestEngine();
  for (const name of Object.keys(EXPECTED)) {
    const t = trace(name);
    const { B, T, C, H, seed, bias } = t.config;
    const run = engine.run({ B, T, C, H, seed, bias });
    assert.deepEqual(Float32Array.from(t.x.data), run.step('x').data, `${name}: x`);
    if (t.weights.source !== 'seeded') continue;
    for (const [key, tensor] of Object.entries(t.weights.tensors)) {
      assert.deepEqual(Float32Array.from(tensor.data), run.weights[key], `${name}: ${key}`);
    }
  }
  // The module's own weights (made after torch.manual_seed) are not the seeded ones.
  const own = trace('tutorial_own_weights');
  assert.equal(own.weights.from.Wq, 'w_q.weight.T');
  const seeded = engine.run({ B: 2, T: 4, C: 8, H: 2, seed: own.config.seed });
  assert.notDeepEqual(Float32Array.from(own.weights.tensors.Wq.data), seeded.weights.Wq);
  // A module without an output projection says so; the comparison uses the seeded Wo.
  assert.equal(trace('no_output_projection').weights.from.Wo, null);
});

// --- Regenerated with PyTorch -----------------------------------------------------------------------

const PYTHON = '/usr/bin/python3';
const torch = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
const noTorch = torch.error || torch.status !== 0
  ? `PyTorch is not installed for ${PYTHON} (scripts/setup.sh --fixtures installs python3-torch): the committed traces are checked as they are`
  : false;

test('the traces regenerate from their modules as committed (each trace records its command)', { skip: noTorch }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'mha-lens-traces-'));
  try {
    const names = Object.keys(EXPECTED);
    const jobs = names.map((name) => {
      const argv = rawTrace(name).generator.argv.slice();
      argv[argv.indexOf('--out') + 1] = join(dir, `${name}.json`);
      return argv;
    });
    const script = 'import json, sys\nsys.path.insert(0, "scripts")\nimport mha_lens_trace\nfor argv in json.load(sys.stdin):\n    assert mha_lens_trace.main(argv) == 0, argv\n';
    const made = spawnSync(PYTHON, ['-c', script], { cwd: ROOT, input: JSON.stringify(jobs), encoding: 'utf8', timeout: 120_000 });
    assert.equal(made.status, 0, made.stderr);
    for (const name of names) {
      const fresh = JSON.parse(readFileSync(join(dir, `${name}.json`), 'utf8'));
      const committed = rawTrace(name);
      const strip = (t) => JSON.parse(JSON.stringify(t, (key, value) => (key === 'data' || key === 'python' || key === 'torch' || key === 'argv' ? undefined : value)));
      assert.deepEqual(strip(fresh), strip(committed), name);
      const data = (t) => [t.inputs.x, ...Object.values(t.weights).filter((w) => w && w.data), ...t.records, t.output, t.returnedWeights].filter(Boolean).map((x) => x.data);
      data(fresh).forEach((values, i) => values.forEach((v, j) => {
        const old = data(committed)[i][j];
        assert.ok(typeof v === 'string' ? v === old : Math.abs(v - old) <= 1e-6, `${name}: tensor ${i}, value ${j}: ${v} vs ${old}`);
      }));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
