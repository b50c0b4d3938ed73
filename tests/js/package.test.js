// The package as an author installs it, from the tarball `npm pack` makes: what it holds, that
// its README links only to what it ships, that importing it in Node (server-side rendering) throws
// nothing and the Node entry runs the engine, and that a consumer's .ts and .tsx files pass
// `tsc --noEmit --strict` against its types. The bundlers: tests/browser/bundlers.test.js.
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { promisify } from 'node:util';

import { ROOT, appWith, pack, remove } from './pack.js';

const run = promisify(execFile);
let packed;
let app;
before(async () => {
  packed = await pack();
  app = await appWith(packed.tarball, { links: ['@types/react', 'csstype', 'react', 'react-dom'] });
});
after(async () => {
  if (packed) await remove(packed.dir);
  if (app) await remove(app);
});

test('the tarball holds the engine, the bundles, the types and the LICENSE, and nothing from tests/ or build/', () => {
  const { files } = packed;
  for (const file of ['package.json', 'README.md', 'LICENSE', 'web/dist/mha_engine.wasm', 'web/dist/mha_engine.mjs', 'web/dist/mha-lens.js',
    'web/dist/embed.js', 'web/dist/formulas.mjs', 'web/src/engine/engine.d.ts', 'web/src/mha-lens.d.ts', 'web/src/react.d.ts',
    'web/src/engine/engine.js', 'web/src/engine/node.js', 'web/embed.html', 'web/embed.css', 'web/cli.js', 'scripts/mha_lens_trace.py']) {
    assert.ok(files.includes(file), `${file} is missing from the tarball`);
  }
  // The tracer is for the package's users (mha-lens check reads what it writes); no other script is.
  const stray = files.filter((file) => (/^(tests|build|cpp|scripts|node_modules)\//.test(file) && file !== 'scripts/mha_lens_trace.py') || file.endsWith('.tgz'));
  assert.deepEqual(stray, []);
  const manifest = JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8'));
  assert.equal(manifest.license, 'MIT');
  assert.match(readFileSync(`${ROOT}LICENSE`, 'utf8'), /^MIT License/);
  assert.equal(manifest.scripts.prepack, 'scripts/build.sh');
  assert.ok(manifest.keywords.length > 0 && Array.isArray(manifest.sideEffects));
  // Every path package.json names is in the tarball.
  const named = [...Object.values(manifest.exports).flatMap((entry) => (typeof entry === 'string' ? [entry] : Object.values(entry))), ...Object.values(manifest.bin), ...manifest.sideEffects];
  for (const path of named.filter((p) => !p.includes('*'))) assert.ok(files.includes(path.replace(/^\.\//, '')), `${path} is not shipped`);
});

test('the README links only to what the package ships (it is the registry page)', () => {
  const readme = readFileSync(`${ROOT}README.md`, 'utf8');
  const links = [...readme.matchAll(/\]\(([^)\s]+)\)/g)].map((match) => match[1]).filter((href) => !/^(https?:|mailto:|#)/.test(href));
  assert.deepEqual(links.filter((href) => !packed.files.includes(href.replace(/^\.\//, '').replace(/#.*$/, ''))), []);
});

test('importing every entry in Node throws nothing and defines nothing; the Node entry runs the engine', async () => {
  const script = `
    const widgets = await import('mha-lens/widgets');
    const react = await import('mha-lens/react');
    for (const entry of ['walkthrough', 'heatmap', 'shapes', 'playground', 'trainer', 'vue']) await import(\`mha-lens/\${entry}\`);
    const { renderToString } = await import('react-dom/server');
    const { createElement } = await import('react');
    const html = renderToString(createElement(react.MhaHeatmap, { c: 12, h: 3, tokens: ['a', 'b'], keyLengths: [2], only: true, onMhaSelect: () => {} }));
    await import('mha-lens/dist/mha-lens.js');
    const api = await import('mha-lens');
    const engine = await api.createEngine();
    const shared = await api.getEngine();
    console.log(JSON.stringify({
      customElements: typeof customElements, HTMLElement: typeof HTMLElement,
      elements: Object.keys(widgets).sort(), sameGetEngine: widgets.getEngine === api.getEngine,
      output: engine.run({ B: 1, T: 2, C: 4, H: 2 }).output.length, shared: shared === (await widgets.getEngine()),
      version: (await import('mha-lens/package.json', { with: { type: 'json' } })).default.version, html,
    }));`;
  const { stdout } = await run(process.execPath, ['--input-type=module', '-e', script], { cwd: app });
  assert.deepEqual(JSON.parse(stdout), {
    customElements: 'undefined', HTMLElement: 'undefined',
    elements: ['MhaHeatmapElement', 'MhaPlaygroundElement', 'MhaRunElement', 'MhaShapesElement', 'MhaTrainerElement', 'MhaWalkthroughElement', 'env', 'getEngine'],
    sameGetEngine: true, output: 8, shared: true, version: JSON.parse(readFileSync(`${ROOT}package.json`, 'utf8')).version,
    html: '<mha-heatmap c="12" h="3" tokens="a b" key-lengths="2" only=""></mha-heatmap>',
  });
});

test('a consumer .ts and .tsx file pass tsc --noEmit --strict against the shipped types', { timeout: 120_000 }, async () => {
  await writeFile(join(app, 'tsconfig.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022', 'dom', 'dom.iterable'], jsx: 'react-jsx', types: [], skipLibCheck: false },
    files: ['consumer.ts', 'consumer.tsx'],
  }));
  await writeFile(join(app, 'consumer.ts'), `
import { createEngine, getEngine, MhaError, MhaLoadError, type Run, type Weights } from 'mha-lens';
import { MhaHeatmapElement, type MhaRunElement, type MhaStepEvent, type MhaErrorEventDetail } from 'mha-lens/widgets';

const engine = await createEngine({ wasmUrl: '/assets/mha_engine.wasm' });
const run: Run = engine.run({ B: 1, T: 2, C: 4, H: 2, mask: 'causal' });
const weights: Weights = engine.fromTorch({ in_proj_weight: new Float32Array(48), 'out_proj.weight': new Float32Array(16), 'out_proj.bias': [0, 0, 0, 0] });
const same: boolean = engine === (await getEngine());
const heatmap = document.querySelector('mha-heatmap');
const base: MhaRunElement | null = heatmap;
if (heatmap instanceof MhaHeatmapElement) heatmap.config = { C: 12, H: 3, tokens: ['a', 'b'] };
heatmap?.addEventListener('mha-select', (event) => { const head: number = event.detail.head; void head; });
document.addEventListener('mha-step', (event: MhaStepEvent) => { const step: string = event.detail.step; void step; });
document.addEventListener('mha-error', (event) => { const detail: MhaErrorEventDetail = event.detail; void detail; });
document.querySelector('mha-playground')?.addEventListener('mha-state', (event) => { void event.detail.state.view; });
try { engine.run({ B: 1, T: 2, C: 10, H: 4 }); } catch (error) { if (error instanceof MhaError) console.log(error.field, error.messageIn('zh')); }
createEngine().catch((error: unknown) => { if (error instanceof MhaLoadError) console.log(error.url, error.key); });
void run; void weights; void same; void base;
export {};
`);
  await writeFile(join(app, 'consumer.tsx'), `
import { MhaHeatmap, MhaPlayground, MhaShapes, MhaTrainer, MhaWalkthrough } from 'mha-lens/react';
import type { MhaStepEvent } from 'mha-lens/react';

export function Post({ onStep }: { onStep: (event: MhaStepEvent) => void }) {
  return (
    <article>
      <mha-walkthrough id="walk" c={12} h={3} tokens="the cat sat" mask="causal" theme="auto" controls="none" onmha-step={onStep} />
      <mha-heatmap for="walk" step="weights" head={1} only className="wide" onmha-select={(event) => console.log(event.detail.batch)} />
      <mha-shapes b="1" c="8" h="2" wasm-url="/assets/mha_engine.wasm" />
      <mha-playground lang="zh" onmha-state={(event) => console.log(event.detail.state.step)} />
    </article>
  );
}

export const documented = (
  <>
    <mha-heatmap scale="head" average src="attention.json" cell-size={20} label-length={3} key-lengths={[3, 2]} tokens={['a', 'b']} />
    <mha-shapes current="q" />
    <mha-trainer task="reverse" layers={1} lr={0.01} trained compare probe="3 1 4" onmha-train-step={(event) => console.log(event.detail.loss)} />
  </>
);
export const components = (
  <>
    <MhaWalkthrough id="w" c={12} h={3} tokens={['the', 'cat']} keyLengths={[2]} seed={7} onMhaStep={(event) => console.log(event.detail.step)} />
    <MhaHeatmap for="w" step="scores" head={2} scale="head" average cellSize={20} labelLength={3} only onMhaSelect={(event) => console.log(event.detail.head)} />
    <MhaShapes b={2} current="q" onMhaStep={(event) => console.log(event.detail.step)} />
    <MhaTrainer task="reverse" layers={1} lr={0.01} trained onMhaTrainStep={(event) => console.log(event.detail.loss)} />
    <MhaPlayground c={12} h={3} onMhaState={(event) => console.log(event.detail.state.step)} />
  </>
);

// @ts-expect-error: a heatmap draws only scores, scaled, masked and weights
export const wrongStep = <mha-heatmap step="output" />;
// @ts-expect-error: heads is the trainer's, not the walkthrough's
export const wrongProp = <MhaWalkthrough heads={2} />;
// @ts-expect-error: the task is one of the four
export const wrongTask = <MhaTrainer task="translate" />;
// @ts-expect-error: theme is auto, light or dark
export const wrongTheme = <mha-shapes theme="night" />;
`);
  const tsc = join(ROOT, 'node_modules', '.bin', 'tsc');
  const result = await run(tsc, ['-p', join(app, 'tsconfig.json')], { cwd: app }).catch((error) => error);
  assert.equal(result.code ?? 0, 0, `${result.stdout}${result.stderr}`);
  // A Node-only project: no DOM lib, no @types at all.
  await writeFile(join(app, 'tsconfig.node.json'), JSON.stringify({
    compilerOptions: { strict: true, noEmit: true, target: 'es2022', module: 'esnext', moduleResolution: 'bundler', lib: ['es2022'], types: [], skipLibCheck: false },
    files: ['node-only.ts'],
  }));
  await writeFile(join(app, 'node-only.ts'), `
import { compileEngine, createEngine, env, type Run } from 'mha-lens';
env.assetPath = null;
const engine = await createEngine({ wasmUrl: 'web/dist/mha_engine.wasm' });
const run: Run = engine.run({ B: 1, T: 2, C: 4, H: 2 });
const { url } = await compileEngine();
export const sizes = [run.output.length, url.length];
`);
  const node = await run(tsc, ['-p', join(app, 'tsconfig.node.json')], { cwd: app }).catch((error) => error);
  assert.equal(node.code ?? 0, 0, `Node-only: ${node.stdout}${node.stderr}`);
});
