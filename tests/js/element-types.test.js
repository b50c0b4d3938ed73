// What is generated from the elements' attribute table (scripts/generate_element_types.js): the
// custom-elements.json manifest, the JSX/Vue/Svelte typings and widgets.css are as committed, and
// the manifest lists every attribute each element observes.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { ELEMENT_ATTRIBUTES } from '../../web/src/logic/attributes.js';

const ROOT = new URL('../../', import.meta.url);

test('the generated manifest, typings and widgets.css are up to date with the attribute table', () => {
  execFileSync(process.execPath, [new URL('scripts/generate_element_types.js', ROOT).pathname, '--check'], { stdio: 'pipe' });
});

test('custom-elements.json declares each element with its attributes, properties and events', () => {
  const manifest = JSON.parse(readFileSync(new URL('web/custom-elements.json', ROOT), 'utf8'));
  const declared = Object.fromEntries(manifest.modules.flatMap((m) => m.declarations).map((d) => [d.tagName, d]));
  assert.deepEqual(Object.keys(declared).sort(), Object.keys(ELEMENT_ATTRIBUTES).sort());
  for (const [tag, attributes] of Object.entries(ELEMENT_ATTRIBUTES)) {
    assert.deepEqual(declared[tag].attributes.map((a) => a.name), attributes, tag);
    assert.ok(declared[tag].members.every((m) => m.reflects && m.attribute), tag);
    assert.ok(declared[tag].events.some((e) => e.name === 'mha-error'), tag);
  }
  const pkg = JSON.parse(readFileSync(new URL('package.json', ROOT), 'utf8'));
  assert.equal(pkg.customElements, './web/custom-elements.json');
  // The stylesheet has a rule for every element, before it is defined.
  const css = readFileSync(new URL('web/widgets.css', ROOT), 'utf8');
  for (const tag of Object.keys(ELEMENT_ATTRIBUTES)) assert.match(css, new RegExp(`^${tag}:not\\(:defined\\) \\{ min-height: [\\d.]+em; \\}`, 'm'), tag);
});
