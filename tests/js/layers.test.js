// web/src/ by role: engine/, catalogue/, text/ and logic/ are DOM-free (node:test runs them), and only
// elements/ (and the bundle's entry) build the page.
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';

import { ROOT } from './helpers.js';

const SRC = `${ROOT}web/src/`;
const modules = (folder) => readdirSync(`${SRC}${folder}`, { recursive: true }).filter((file) => file.endsWith('.js')).map((file) => `${folder}/${file}`);
const DOM_FREE = ['engine', 'catalogue', 'text', 'logic'].flatMap(modules);

test('engine/, catalogue/, text/ and logic/ use no DOM', () => {
  assert.ok(DOM_FREE.length >= 20, `${DOM_FREE.length} modules`);
  const dom = /\b(document|window|customElements|HTMLElement|CSSStyleSheet|localStorage|navigator|matchMedia)\b/g;
  // The JS API runs in Node and in browsers: in a browser it resolves a wasmUrl against the page.
  // The embed code writes the host's sizing line, which names document, as text; it runs none.
  const allowed = { 'engine/engine.js': ['document'], 'logic/page/embed-code.js': ['document'] };
  for (const file of DOM_FREE) {
    const code = readFileSync(`${SRC}${file}`, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
    const used = [...new Set([...code.matchAll(dom)].map((match) => match[1]))];
    assert.deepEqual(used.filter((name) => !(allowed[file] ?? []).includes(name)), [], file);
  }
});

test('nothing DOM-free imports an element module', () => {
  for (const file of DOM_FREE) {
    const imports = [...readFileSync(`${SRC}${file}`, 'utf8').matchAll(/from '([^']+)'/g)].map((match) => match[1]);
    assert.deepEqual(imports.filter((path) => path.includes('elements/')), [], file);
  }
});

test('every DOM-free module loads in Node', async () => {
  for (const file of DOM_FREE) await import(new URL(`../../web/src/${file}`, import.meta.url));
});
