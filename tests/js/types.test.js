// The hand-written TypeScript declarations (Emscripten 3.1.6 cannot emit them) against what the
// API really is: they parse, package.json's exports point at files that exist, and every member
// the engine, a run, an error and a warning have is declared, and nothing more.
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { transformSync } from 'esbuild';

import { MhaError } from '../../web/src/engine/engine.js';
import { getTestEngine } from './engine-helper.js';
import { ROOT } from './helpers.js';

const ENGINE_DTS = readFileSync(`${ROOT}web/src/engine/engine.d.ts`, 'utf8');

// The members a `class` or `interface` of the .d.ts declares (methods and properties).
function declared(source, kind, name) {
  const start = source.indexOf(`export ${kind} ${name} `);
  assert.ok(start >= 0, `no ${kind} ${name}`);
  const body = source.slice(source.indexOf('{', start) + 1, source.indexOf('\n}', start));
  const text = body.replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
  // Member declarations end at a ; or a line break outside brackets.
  const pieces = [];
  let depth = 0;
  let piece = '';
  for (const ch of text) {
    if ('({<['.includes(ch)) depth++;
    if (')}>]'.includes(ch)) depth--;
    if (depth === 0 && (ch === ';' || ch === '\n')) {
      pieces.push(piece.trim());
      piece = '';
    } else {
      piece += ch;
    }
  }
  return new Set(pieces.map((p) => /^(?:readonly\s+)?(\w+)\??\s*[(:<]/.exec(p)?.[1]).filter(Boolean));
}

// What an object really has: own enumerable properties and its prototype chain's getters and methods.
function members(object, stopAt = Object.prototype) {
  const names = new Set(Object.keys(object));
  for (let proto = Object.getPrototypeOf(object); proto && proto !== stopAt; proto = Object.getPrototypeOf(proto)) {
    for (const name of Object.getOwnPropertyNames(proto)) if (name !== 'constructor') names.add(name);
  }
  return names;
}

test('both declaration files parse as TypeScript', () => {
  for (const file of ['web/src/engine/engine.d.ts', 'web/src/mha-lens.d.ts', 'web/src/catalogue/catalogue.d.ts', 'web/src/react.d.ts', 'web/src/vue.d.ts', 'web/src/svelte.d.ts', 'web/src/types/elements.d.ts']) {
    assert.doesNotThrow(() => transformSync(readFileSync(`${ROOT}${file}`, 'utf8'), { loader: 'ts' }), file);
  }
});

test('package.json exports point at files that exist', () => {
  const { exports, bin } = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
  const paths = [...Object.values(exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry))), ...Object.values(bin)];
  for (const path of paths.filter((p) => !p.includes('*'))) assert.ok(existsSync(`${ROOT}${path}`), path);
  assert.equal(exports['.'].types, './web/src/engine/engine.d.ts');
  assert.equal(exports['.'].default, './web/src/engine/engine.js');
});

test('the engine, a run, an error and a warning have exactly the members the .d.ts declares', async () => {
  const engine = await getTestEngine();
  assert.deepEqual(members(engine), declared(ENGINE_DTS, 'interface', 'Engine'));
  const run = engine.run({ B: 1, T: 4, C: 8, H: 2, keyLengths: [0] });
  assert.deepEqual(members(run), declared(ENGINE_DTS, 'class', 'Run'));
  assert.deepEqual(members(run.step('q')), new Set([...declared(ENGINE_DTS, 'class', 'Step')].filter((name) => name !== 'slice')));
  assert.ok('slice' in run.step('weights', { batch: 0, head: 0 }));
  assert.deepEqual(new Set(Object.keys(run.step('q').toJSON())), new Set([...declared(ENGINE_DTS, 'interface', 'StepObject')].filter((name) => name !== 'slice')));
  // engine.catalogue: the generated CatalogueStep, with an English `title` and both `titles`.
  const catalogueStep = declared(readFileSync(`${ROOT}web/src/catalogue/catalogue.d.ts`, 'utf8'), 'interface', 'CatalogueStep');
  assert.deepEqual(new Set(Object.keys(engine.catalogue[0])), new Set([...catalogueStep, ...declared(ENGINE_DTS, 'interface', 'CatalogueEntry')]));
  assert.deepEqual(new Set(Object.keys(run.summary)), declared(ENGINE_DTS, 'interface', 'Summary'));
  let error;
  try { engine.run({ B: 1, T: 4, C: 10, H: 4 }); } catch (caught) { error = caught; }
  assert.ok(error instanceof MhaError);
  const errorMembers = new Set([...members(error, Error.prototype)].filter((name) => !['stack', 'message'].includes(name)));
  assert.deepEqual(errorMembers, declared(ENGINE_DTS, 'class', 'MhaError'));
  assert.equal(run.warnings.length, 1);
  assert.deepEqual(members(run.warnings[0]), declared(ENGINE_DTS, 'class', 'MhaWarning'));
});
