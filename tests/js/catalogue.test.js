// The step catalogue (cpp/data/steps.json) is the one source of what each step is. Here: every
// output generated from it is what scripts/generate.js writes (the JS module, its .d.ts, the
// docs' step tables), the engine's own table is the same one, its entries are consistent, the
// page has words for every op and axis, and runs hold exactly its steps, titled by it.
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { before, test } from 'node:test';

import { committedOutputs } from '../../scripts/generate.js';
import { STEPS } from '../../web/src/catalogue/catalogue.js';
import { titleOf } from '../../web/src/catalogue/step-text.js';
import { EN } from '../../web/src/text/en.js';
import { ZH } from '../../web/src/text/zh.js';
import { translator } from '../../web/src/text/translate.js';
import { chainSteps, headSharing, stepTitle } from '../../web/src/catalogue/steps.js';
import { NAMED_IN_CHAIN } from '../../web/src/logic/format.js';
import { CONFIGS, getTestEngine } from './engine-helper.js';
import { ROOT } from './helpers.js';

let catalogue;
let ids;
before(async () => {
  catalogue = STEPS;
  ids = catalogue.map((step) => step.id);
});

test('every output generated from cpp/data/ is what scripts/generate.js writes', () => {
  for (const [file, content] of Object.entries(committedOutputs())) {
    assert.equal(readFileSync(`${ROOT}${file}`, 'utf8'), content, `${file} is stale: run node scripts/generate.js`);
  }
  // --check says so too, for a shell (or a build) to ask.
  execFileSync(process.execPath, [`${ROOT}scripts/generate.js`, '--check']);
});

test('the engine\'s step table is the catalogue module\'s, and engine.catalogue gives it', async () => {
  const engine = await getTestEngine();
  assert.deepEqual(engine.catalogue.map((step) => step.id), ids);
  for (const [i, step] of engine.catalogue.entries()) {
    assert.equal(step.title, STEPS[i].title.en);
    assert.deepEqual(step.titles, STEPS[i].title);
  }
  // The engine refuses a .wasm whose table is not this one (tests/js/wasm-load.test.js loads one).
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

test('every step has a title in English and Chinese, and the page keeps no copy of them', () => {
  for (const step of catalogue) {
    assert.ok(step.title.en.length > 0 && step.title.zh.length > 0, step.id);
    assert.match(step.title.zh, /[\u4e00-\u9fff]/u, `${step.id}: a Chinese title`);
  }
  for (const lang of ['en', 'zh']) {
    const keys = Object.keys(lang === 'en' ? EN : ZH).filter((key) => key.startsWith('step.'));
    assert.deepEqual(keys, [], `${lang}: step titles belong to the catalogue`);
  }
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

test('the .d.ts unions are the generated ones: exactly the catalogue\'s step ids, ops, axes and passes', () => {
  const file = 'web/src/catalogue/catalogue.d.ts';
  assert.deepEqual(unionOf(file, 'StepId'), ids);
  assert.deepEqual(new Set(unionOf(file, 'StepOp')), new Set(catalogue.flatMap(opsOf)));
  assert.deepEqual(new Set(unionOf(file, 'AxisName')), new Set(catalogue.flatMap((step) => symbols(step.axes))));
  assert.deepEqual(new Set(unionOf(file, 'Pass')), new Set(['forward', 'backward', 'tiled', 'incremental']));
  // The API's types take them from there.
  const api = readFileSync(`${ROOT}web/src/engine/engine.d.ts`, 'utf8');
  assert.match(api, /from '\.\.\/catalogue\/catalogue\.js'/);
  assert.doesNotMatch(api, /export type StepId =/);
});

// The step tables of the docs are generated from the catalogue and sit between markers:
// <!-- generated:steps <pass> --> … <!-- /generated:steps -->. Only what lies between them is read.
const PASSES = ['forward', 'backward', 'tiled', 'incremental'];
const TABLE_HEADER = '| # | id | op | formula | shape | axes |';

/** Every generated step table of `file`, as { pass: rows }, each row its trimmed cells. */
function stepTables(file) {
  const text = readFileSync(`${ROOT}${file}`, 'utf8');
  const tables = {};
  for (const match of text.matchAll(/<!-- generated:steps (\S+) -->\n([\s\S]*?)<!-- \/generated:steps -->/g)) {
    const [, pass, body] = match;
    assert.ok(!(pass in tables), `${file}: two tables for ${pass}`);
    const lines = body.split('\n').filter((line) => line !== '');
    assert.equal(lines[0], TABLE_HEADER, `${file} ${pass}: header`);
    assert.match(lines[1], /^\|(---\|)+$/, `${file} ${pass}: separator`);
    assert.ok(lines.slice(2).every((line) => line.startsWith('|') && line.endsWith('|')), `${file} ${pass}: only table rows between the markers`);
    tables[pass] = lines.slice(2).map((line) => line.split('|').slice(1, -1).map((cell) => cell.trim()));
  }
  // A marker that does not open or close a table as above would leave that table unchecked.
  const opened = [...text.matchAll(/<!-- generated:steps/g)].length;
  const closed = [...text.matchAll(/<!-- \/generated:steps -->/g)].length;
  assert.deepEqual([opened, closed], [Object.keys(tables).length, Object.keys(tables).length], `${file}: every marker pairs with a table`);
  return tables;
}

// One pass's rows are that pass's catalogue steps in catalogue order, with their ops and axes.
function checkTable(where, pass, rows) {
  const byId = new Map(catalogue.map((step) => [`\`${step.id}\``, step]));
  assert.deepEqual(rows.map(([, id]) => id).filter((id) => !byId.has(id)), [], `${where}: rows for no catalogue step`);
  assert.deepEqual(rows.map(([, id]) => id), catalogue.filter((step) => step.pass === pass).map((step) => `\`${step.id}\``), `${where}: one row per ${pass} step, in order`);
  let previous = 0;
  for (const [n, id, op, , shape, axes] of rows) {
    const step = byId.get(id);
    assert.equal(op.split(/, or | under /)[0], opsOf(step)[0], `${where} ${step.id} op`);
    assert.deepEqual(symbols(axes), symbols(step.axes), `${where} ${step.id} axes`);
    assert.deepEqual(symbols(shape.replace(/^\[|\]$/g, '')).length, symbols(step.axes).length, `${where} ${step.id} shape`);
    // Steps that appear in every run of the pass are numbered (rising; "12t", "2d" for the tiled
    // and incremental steps); the others ("–") appear only when they apply.
    assert.equal(n === '–', step.when !== 'always', `${where} ${step.id} numbered "${n}", when ${step.when}`);
    if (n !== '–') {
      assert.ok(Number.parseInt(n, 10) > previous, `${where} ${step.id} number ${n} after ${previous}`);
      previous = Number.parseInt(n, 10);
    }
  }
}

test('web/docs/algorithms.md has a generated step table for every pass, each the catalogue\'s steps, ops and axes in its order', () => {
  const tables = stepTables('web/docs/algorithms.md');
  assert.deepEqual(new Set(Object.keys(tables)), new Set(catalogue.map((step) => step.pass)), 'one table per pass of the catalogue');
  assert.deepEqual(new Set(PASSES), new Set(catalogue.map((step) => step.pass)));
  for (const pass of PASSES) checkTable(`algorithms.md ${pass}`, pass, tables[pass]);
});

test('the README\'s generated step table is the forward pass, the same as the one in web/docs/algorithms.md', () => {
  const tables = stepTables('README.md');
  assert.deepEqual(Object.keys(tables), ['forward'], 'the README holds the forward table only');
  checkTable('README forward', 'forward', tables.forward);
  assert.deepEqual(tables.forward, stepTables('web/docs/algorithms.md').forward);
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
      assert.equal(step.title, titleOf(entry, run.summary, 'en'));
      assert.equal(step.titleIn('zh'), titleOf(entry, run.summary, 'zh'));
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
  assert.equal(stepTitle(en, 'q', mqa), STEPS.find((step) => step.id === 'q').title.en);
});
