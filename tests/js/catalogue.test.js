// The engine's step catalogue (cpp/src/catalogue.cpp, as engine.catalogue) is the one source of
// what each step is. Everything else that names steps is checked against it here: the page's
// titles in both languages, the .d.ts step ids, axes and ops, the README's table of steps, and
// the steps the shape chain names.
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { STRINGS, translator } from '../../web/src/text/translate.js';
import { chainSteps, headSharing, stepTitle } from '../../web/src/catalogue/steps.js';
import { NAMED_IN_CHAIN } from '../../web/src/logic/format.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';
import { ROOT } from './helpers.js';

let catalogue;
let ids;
before(async () => {
  catalogue = (await getTestEngine()).catalogue;
  ids = catalogue.map((step) => step.id);
});

// The names a union type of the .d.ts lists, in its order.
function unionOf(file, name) {
  const source = readFileSync(`${ROOT}${file}`, 'utf8');
  const body = new RegExp(`export type ${name} =([^;]+);`).exec(source);
  assert.ok(body, `${file} has no type ${name}`);
  return [...body[1].matchAll(/'([^']+)'/g)].map((match) => match[1]);
}

const symbols = (axes) => axes.split(',').map((axis) => axis.trim());

// The ops a step can have: "{group_op:matmul}" is a sum over each group under GQA/MQA, else matmul.
const opsOf = (step) => {
  const slot = /^\{group_op:(\w+)\}$/.exec(step.op);
  return slot ? [slot[1], 'sum'] : [step.op];
};

// Runs that hold every kind of step: MHA and GQA, self and cross, with the backward pass.
const dOutput = (config) => new Float32Array(config.B * config.T * config.C).fill(0.5);
const WIDE = [
  ...CONFIGS,
  ...[{ B: 2, T: 3, C: 8, H: 2 }, { B: 1, T: 3, Tk: 5, C: 12, H: 6, Hkv: 2, mask: 'causal' }].map((config) => ({ ...config, dOutput: dOutput(config) })),
];

test('the catalogue is a list of steps with unique ids, each reading a step before it', () => {
  assert.ok(catalogue.length >= 20, `${catalogue.length} steps`);
  assert.equal(new Set(ids).size, ids.length, 'ids are unique');
  for (const [i, step] of catalogue.entries()) {
    assert.match(step.id, /^[a-z][a-z_]*$/, 'snake_case ids');
    // A slot such as {src} names a step the run picks (checked on real runs below). A view may
    // show a buffer that a later step records (the backward pass's per-head gradients are views
    // of the merged gradient that follows them).
    if (step.input && !step.input.startsWith('{')) assert.ok(ids.slice(0, i).includes(step.input), `${step.id} reads ${step.input}, which comes before it`);
    if (step.viewOf && !step.viewOf.startsWith('{')) assert.ok(ids.includes(step.viewOf), `${step.id} views ${step.viewOf}`);
  }
});

test('every step has a title in English and Chinese, and no title names a step the catalogue lacks', () => {
  for (const lang of ['en', 'zh']) {
    const titled = Object.keys(STRINGS[lang]).filter((key) => key.startsWith('step.')).map((key) => key.slice('step.'.length));
    assert.deepEqual(ids.filter((id) => !titled.includes(id)), [], `${lang}: catalogue ids without step.<id>`);
    assert.deepEqual(titled.filter((id) => !ids.includes(id)), [], `${lang}: step.<id> for no catalogue id`);
  }
  // The page's English title is the catalogue's, at most with the run's head sharing after it.
  for (const step of catalogue) assert.ok(STRINGS.en[`step.${step.id}`].startsWith(step.title), `${step.id}: "${STRINGS.en[`step.${step.id}`]}" vs "${step.title}"`);
});

test('every op and axis of the catalogue has words in both languages', () => {
  for (const lang of ['en', 'zh']) {
    const t = translator(lang);
    for (const step of catalogue) {
      for (const op of opsOf(step)) assert.notEqual(t(`why.${op}`), `why.${op}`, `${lang} why.${op}`);
      for (const axis of symbols(step.axes)) assert.notEqual(t(`axis.${axis}`), `axis.${axis}`, `${lang} axis.${axis}`);
    }
  }
});

test('the .d.ts lists exactly the catalogue\'s step ids, ops and axes', () => {
  const file = 'web/src/engine/engine.d.ts';
  assert.deepEqual(unionOf(file, 'StepId'), ids);
  assert.deepEqual(new Set(unionOf(file, 'StepOp')), new Set(catalogue.flatMap(opsOf)));
  assert.deepEqual(new Set(unionOf(file, 'AxisName')), new Set(catalogue.flatMap((step) => symbols(step.axes))));
  assert.deepEqual(new Set(unionOf(file, 'Pass')), new Set(['forward', 'backward', 'tiled', 'incremental']));
  for (const step of catalogue) assert.ok(unionOf(file, 'Pass').includes(step.pass), step.pass);
});

test('the README\'s tables of steps, one per pass, have the catalogue\'s ids, ops and axes, in its order', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const header = '| # | id | op | formula | shape | axes |';
  const rows = [];
  for (let at = readme.indexOf(header); at >= 0; at = readme.indexOf(header, at + 1)) {
    const lines = readme.slice(at).split('\n');
    rows.push(...lines.slice(2, lines.findIndex((line) => !line.startsWith('|'))).map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim())));
  }
  const byId = new Map(catalogue.map((step) => [`\`${step.id}\``, step]));
  assert.deepEqual(rows.map(([, id]) => id).filter((id) => !byId.has(id)), [], 'README rows for no catalogue step');
  // Each pass's rows, in the README's order, are that pass's catalogue steps in catalogue order.
  for (const pass of new Set(catalogue.map((step) => step.pass))) {
    const documented = rows.filter(([, id]) => byId.get(id).pass === pass);
    assert.deepEqual(documented.map(([, id]) => id), catalogue.filter((step) => step.pass === pass).map((step) => `\`${step.id}\``), `${pass}: one row per step, in order`);
    let previous = 0;
    for (const [n, id, op, , shape, axes] of documented) {
      const step = byId.get(id);
      assert.equal(op.split(/, or | under /)[0], opsOf(step)[0], `${step.id} op`);
      assert.deepEqual(symbols(axes), symbols(step.axes), `${step.id} axes`);
      assert.deepEqual(symbols(shape.replace(/^\[|\]$/g, '')).length, symbols(step.axes).length, `${step.id} shape`);
      // Steps that appear in every run of the pass are numbered (rising; "12t", "2d" for the tiled
      // and incremental steps); the others ("–") appear only when they apply.
      assert.equal(n === '–', step.when !== 'always', `${step.id} numbered "${n}", when ${step.when}`);
      if (n !== '–') {
        assert.ok(Number.parseInt(n, 10) > previous, `${step.id} number ${n} after ${previous}`);
        previous = Number.parseInt(n, 10);
      }
    }
  }
});

test('the shape chain follows catalogue steps from x to the output, and names only catalogue ids', async () => {
  for (const id of NAMED_IN_CHAIN) assert.ok(ids.includes(id), `${id} is not in the catalogue`);
  const engine = await getTestEngine();
  const tiled = [CONFIGS[1], CONFIGS[3]].map((config) => ({ ...config, algorithm: 'tiled', blockQ: 2, blockK: 3 }));
  for (const config of [...CONFIGS, ...tiled]) {
    const run = engine.run(config);
    const chain = chainSteps(run.steps);
    assert.equal(chain[0].id, 'x');
    assert.equal(chain.at(-1).id, 'output');
    for (const step of chain) assert.ok(ids.includes(step.id), step.id);
    // Between two links of the chain lie only steps that scale or mask what the first computed,
    // or a tiled run's per-tile state (P_ij, the running O) between tile_scores and tile_context.
    for (let i = 1; i < chain.length; i++) {
      const passed = [];
      for (let step = run.step(chain[i].input); step.id !== chain[i - 1].id; step = run.step(step.input)) passed.push(step);
      const tileState = chain[i - 1].id === 'tile_scores' && chain[i].id === 'tile_context';
      assert.ok(passed.every((step) => step.op === 'scale' || step.op === 'mask' || (tileState && ['tile_probs', 'tile_output'].includes(step.id))),
        `${chain[i - 1].id} → ${chain[i].id} passes over ${passed.map((step) => step.id)}`);
    }
  }
});

test('a run\'s steps are catalogue steps in catalogue order, with its input, title and LaTeX', async () => {
  const engine = await getTestEngine();
  for (const config of WIDE) {
    const run = engine.run(config);
    const order = run.steps.map((step) => ids.indexOf(step.id));
    assert.ok(order.every((at, i) => at >= 0 && (i === 0 || at > order[i - 1])), `${JSON.stringify(config)}: ${run.steps.map((s) => s.id)}`);
    for (const step of run.steps) {
      const entry = catalogue[ids.indexOf(step.id)];
      assert.ok(opsOf(entry).includes(step.op), `${step.id}: ${step.op}`);
      assert.equal(step.title, entry.title);
      assert.equal(typeof step.latex, 'string');
      assert.ok(step.input === '' ? entry.input === '' : run.steps.some((s) => s.id === step.input), `${step.id} reads ${step.input}`);
    }
  }
});

test('the K/V sharing steps say GQA or MQA as the run is', async () => {
  const engine = await getTestEngine();
  const en = translator('en');
  const zh = translator('zh');
  const gqa = engine.run({ B: 1, T: 2, C: 8, H: 4, Hkv: 2 }).summary;
  const mqa = engine.run({ B: 1, T: 2, C: 8, H: 4, Hkv: 1 }).summary;
  const mha = engine.run({ B: 1, T: 2, C: 8, H: 4 }).summary;
  assert.deepEqual([headSharing(mha), headSharing(gqa), headSharing(mqa)], ['MHA', 'GQA', 'MQA']);
  assert.equal(stepTitle(en, 'k_shared', gqa), 'Share K heads across query heads (GQA)');
  assert.equal(stepTitle(en, 'v_shared', mqa), 'Share V heads across query heads (MQA)');
  assert.equal(stepTitle(zh, 'k_shared', mqa), '查询头共享 K 头（MQA）');
  assert.equal(stepTitle(en, 'q', mqa), 'Query projection');
});
