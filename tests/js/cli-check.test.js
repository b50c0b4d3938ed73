// `mha-lens check trace.json` as a user runs it, on the committed traces: a line per recorded
// variable, the verdict, exit 0 when the module matches, 1 when it does not, 2 on a bad file or
// bad usage; and the tracer's own refusals, when PyTorch is installed.
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';

import { MISTAKES } from '../../web/src/logic/check/check-trace.js';
import { ROOT } from './helpers.js';

const cli = (...args) => spawnSync(process.execPath, [`${ROOT}web/cli.js`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 30_000 });
const TRACES = 'tests/fixtures/traces/';
const dir = mkdtempSync(join(tmpdir(), 'mha-lens-check-'));
after(() => rmSync(dir, { recursive: true, force: true }));

test('the tutorial\'s module: a line per variable, each on its step, exit 0', () => {
  const { status, stdout, stderr } = cli('check', `${TRACES}tutorial_causal.json`);
  assert.equal(status, 0, stderr);
  assert.match(stdout, /^mha-lens check · tests\/fixtures\/modules\/tutorial_mha\.py:MultiHeadAttention · B=2 T=4 C=8 H=2 \(D=4\) · causal mask · seeded weights \(seed 0\)$/m);
  for (const [line, code, step] of [
    [26, 'Q = self.w_q(x).view(B, -1, self.n_head, self.d_k).transpose(1, 2)', 'step 8 q_heads'],
    [29, 'scores = Q @ K.transpose(-2, -1) / math.sqrt(self.d_k)', 'step 13 scaled'],
    [31, 'scores = scores.masked_fill(mask == 0, float("-inf"))', 'step 14 masked'],
    [32, 'attn = torch.softmax(scores, dim=-1)', 'step 15 weights'],
    [34, 'x = (attn @ V).transpose(1, 2).contiguous().view(B, -1, self.d_model)', 'step 18 concat'],
  ]) {
    const escaped = code.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    assert.match(stdout, new RegExp(`^line ${line} +${escaped} +→ ${step} ✓$`, 'm'));
  }
  assert.match(stdout, /^ +returned output +→ step 19 output ✓$/m);
  assert.match(stdout, /^✓ The module matches the engine: its output is step 19 output \(max \|diff\| [\d.e-]+, tolerance 0\.0001\)\.$/m);
});

test('each mistaken module: the first variable that matches nothing, the mistake it is, exit 1', () => {
  const cases = {
    softmax_over_queries: ['attn (line 30, [2,2,4,4])', 'softmaxOverQueries'],
    no_scale: ['attn (line 29, [2,2,4,4])', 'noScale'],
    k_not_transposed: ['scores (line 27, [2,2,4,4])', 'kNotTransposed'],
    view_without_transpose: ['Q (line 24, [2,2,4,4])', 'viewWithoutTranspose'],
    mask_inverted: ['scores (line 29, [2,2,4,4])', 'maskInverted'],
    mask_added: ['scores (line 29, [2,2,4,4])', 'maskAdded'],
    merge_without_transpose: ['x (line 32, [2,4,8])', 'mergeWithoutTranspose'],
    no_output_projection: ['the returned output', 'noOutputProjection'],
    scale_sqrt_d_model: ['scores (line 26, [2,2,4,4])', 'scaleSqrtC'],
  };
  for (const [name, [first, mistake]] of Object.entries(cases)) {
    const { status, stdout, stderr } = cli('check', `${TRACES}${name}.json`);
    assert.equal(status, 1, `${name}: ${stderr}`);
    assert.ok(stdout.includes(`✗ The module does not match. The first variable that matches no step: ${first}.`), `${name}:\n${stdout}`);
    assert.ok(stdout.includes(`It is the known mistake "${MISTAKES[mistake].title}"`), `${name}:\n${stdout}`);
    assert.match(stdout, /Computed from the engine's steps, that mistake's \w+ .*equals it \(max \|diff\| [\d.e-]+\)\. Fix: /);
  }
  const { status, stdout } = cli('check', `${TRACES}merge_without_contiguous.json`);
  assert.equal(status, 1);
  assert.match(stdout, /^✗ forward raised RuntimeError at line 32 +x = \(attn @ V\)\.transpose\(1, 2\)\.view\(B, -1, self\.d_model\):$/m);
  assert.match(stdout, /PyTorch refused the view: the known mistake "merge without contiguous"/);
});

test('renamed variables and extra temporaries: still a match, exit 0', () => {
  const { status, stdout } = cli('check', `${TRACES}renamed_causal.json`);
  assert.equal(status, 0, stdout);
  assert.match(stdout, /^line 23 +query = query\.view\(.*→ step 8 q_heads as \[B·H, T, D\] ✓$/m);
  assert.match(stdout, /^line 21 +qkv = self\.c_attn\(inputs\) +→ q, k, v side by side \(steps 2–4\) ✓$/m);
});

test('--json prints the result; --tolerance loosens the comparison', () => {
  const { status, stdout } = cli('check', `${TRACES}no_scale.json`, '--json');
  assert.equal(status, 1);
  const result = JSON.parse(stdout);
  assert.deepEqual(result.mistakes.map((m) => m.key), ['noScale']);
  assert.equal(result.firstUnmatched.name, 'attn');
  // The tutorial's output, moved by 1e-3, does not match at 1e-4 and does at 1e-2.
  const moved = JSON.parse(readFileSync(`${ROOT}${TRACES}tutorial.json`, 'utf8'));
  moved.output.data[3] += 1e-3;
  writeFileSync(join(dir, 'moved.json'), JSON.stringify(moved));
  assert.equal(cli('check', join(dir, 'moved.json')).status, 1);
  assert.equal(cli('check', join(dir, 'moved.json'), '--tolerance', '1e-2').status, 0);
});

test('a bad file or bad usage exits 2 with a message naming what is wrong', () => {
  const write = (name, text) => {
    writeFileSync(join(dir, name), text);
    return join(dir, name);
  };
  const trace = JSON.parse(readFileSync(`${ROOT}${TRACES}tutorial.json`, 'utf8'));
  const bad = (args, pattern) => {
    const { status, stdout, stderr } = cli('check', ...args);
    assert.equal(status, 2, `${args}: ${stdout}`);
    assert.equal(stdout, '');
    assert.match(stderr, pattern);
  };
  bad([write('not.json', 'line 23  scores = …')], /not\.json: \(file\): This is not JSON/);
  bad([write('attention.json', JSON.stringify({ format: 'mha-lens/attention', version: 1 }))], /attention\.json: format: must be "mha-lens\/trace", not the string "mha-lens\/attention": this file was not written by mha_lens_trace\.py\.\n$/);
  bad([write('short.json', JSON.stringify({ ...trace, records: trace.records.map((r, i) => (i === 4 ? { ...r, data: r.data.slice(1) } : r)) }))],
    /short\.json: records\[4\]\.data: has 63 values, but shape \[2,2,4,4\] holds 64\./);
  bad([write('noweights.json', JSON.stringify({ ...trace, weights: undefined }))], /noweights\.json: weights: must be an object/);
  bad([join(dir, 'missing.json')], /missing\.json: no such file\./);
  bad([dir], /is a folder, not a trace file\./);
  bad([], /^check needs a trace file: mha-lens check trace\.json/);
  bad([`${TRACES}tutorial.json`, `${TRACES}no_scale.json`], /check takes one trace file, not 2\./);
  bad([`${TRACES}tutorial.json`, '--B', '2'], /check takes a trace file and --tolerance or --json, not --B/);
  bad([`${TRACES}tutorial.json`, '--tolerance', 'big'], /--tolerance must be a number between 0 and 1, not "big"/);
});

test('--help lists check', () => {
  const { status, stdout } = cli('--help');
  assert.equal(status, 0);
  assert.match(stdout, /^ +mha-lens check trace\.json \[--tolerance 1e-4\] \[--json\]$/m);
  assert.match(stdout, /^check: +compares your own attention module, traced by mha_lens_trace\.py/m);
});

// --- The tracer ------------------------------------------------------------------------------------

const noPython = spawnSync('python3', ['--version']).error ? 'no python3 on PATH' : false;

test('the tracer without PyTorch says so and how to get it, with exit 2', { skip: noPython }, () => {
  // Any python3 will do: torch is hidden from it.
  const code = 'import runpy, sys\nsys.modules["torch"] = None\nsys.argv = ["mha_lens_trace.py", "a.py:B"]\nrunpy.run_path("scripts/mha_lens_trace.py", run_name="__main__")\n';
  const run = spawnSync('python3', ['-c', code], { cwd: ROOT, encoding: 'utf8' });
  assert.equal(run.status, 2, run.stderr);
  assert.match(run.stderr, /^error: mha_lens_trace\.py needs PyTorch, which .* cannot import: .*pip install torch/);
});

const PYTHON = '/usr/bin/python3';
const probe = spawnSync(PYTHON, ['-c', 'import torch'], { encoding: 'utf8' });
const noTorch = probe.error || probe.status !== 0 ? `PyTorch is not installed for ${PYTHON} (scripts/setup.sh --fixtures installs python3-torch)` : false;
const tracer = (...args) => spawnSync(PYTHON, [`${ROOT}scripts/mha_lens_trace.py`, ...args], { cwd: ROOT, encoding: 'utf8', timeout: 60_000 });

test('the tracer refuses what it cannot trace, saying how to fix it, with exit 2', { skip: noTorch }, () => {
  const modules = 'tests/fixtures/modules/';
  const helper = join(dir, 'needs_more.py');
  writeFileSync(helper, 'from torch import nn\nclass A(nn.Module):\n    def __init__(self, d_model, n_head, ffn):\n        super().__init__()\n');
  const cases = [
    [[`${modules}tutorial_mha.py`], /names no class: write path\/to\/file\.py:ClassName/],
    [[`${modules}tutorial_mha.py:Attention`], /has no nn\.Module class Attention\. Its nn\.Module classes: MultiHeadAttention\./],
    [[`${modules}nothing.py:X`], /no such file/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--C', '6', '--H', '4'], /C=6 is not divisible by H=4/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--key-lengths', '4,0'], /--key-lengths needs B=2 lengths, each from 1 to T=4/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--mask', 'causal', '--mask-shape', '1,1,T,C'], /is not a mask shape/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--mask', 'causal', '--mask-shape', '1,1,T'], /a causal mask differs from query to query: end the shape in T,T/],
    [[`${modules}mask_flipped.py:MultiHeadAttention`, '--mask', 'causal'], /has no mask parameter .*--mask-arg/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--C', '12', '--H', '2', '--init', '{"d_model": 8, "n_head": 2}'], /Cannot tell the projections apart: .*in_features = C = 12/],
    [[`${helper}:A`], /A\.__init__ needs ffn, which the tracer cannot guess: give every argument with --init/],
    [[`${modules}tutorial_mha.py:MultiHeadAttention`, '--init', '{d_model: 8}'], /argument --init: '\{d_model: 8\}' is not JSON/],
  ];
  // One Python for all the cases (importing torch takes a second or two), main() as the script calls it.
  const script = 'import contextlib, io, json, sys\nsys.path.insert(0, "scripts")\nimport mha_lens_trace\nout = []\n'
    + 'for argv in json.load(sys.stdin):\n    err = io.StringIO()\n    with contextlib.redirect_stderr(err):\n        try:\n            code = mha_lens_trace.main(argv)\n'
    + '        except SystemExit as exit:\n            code = exit.code\n'
    + '    out.append([code, err.getvalue()])\nprint(json.dumps(out))\n';
  const run = spawnSync(PYTHON, ['-c', script], { cwd: ROOT, encoding: 'utf8', timeout: 60_000,
    input: JSON.stringify(cases.map(([args]) => [...args, '--out', join(dir, 'refused.json')])) });
  assert.equal(run.status, 0, run.stderr);
  JSON.parse(run.stdout).forEach(([code, stderr], i) => {
    assert.equal(code, 2, `${cases[i][0]}: ${stderr}`);
    assert.match(stderr, cases[i][1]);
  });
  // As a command: the exit code itself.
  const { status, stderr } = tracer(`${modules}tutorial_mha.py`, '--out', join(dir, 'refused.json'));
  assert.equal(status, 2);
  assert.match(stderr, /^error: /);
});
