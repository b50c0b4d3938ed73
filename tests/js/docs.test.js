// The documentation as a reader follows it: the README is the front door and links to every page
// under web/docs/, every page links back to it, and every relative link (and image) in them points
// at a file that exists, and at a heading of that file when it names one. The prose itself is not
// checked; the generated step tables are, in catalogue.test.js.
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';
import { test } from 'node:test';

import { ROOT } from './helpers.js';

const DOCS = 'web/docs';
const PAGES = readdirSync(join(ROOT, DOCS)).filter((name) => name.endsWith('.md')).sort().map((name) => `${DOCS}/${name}`);
// The other Markdown a reader meets in the repository, checked for broken links too.
const FILES = ['README.md', ...PAGES, 'scripts/bench/README.md', 'tests/fixtures/README.md'];
// A screenshot ships in the package (the README is its registry page): keep it small.
const IMAGE_BYTES = 150 * 1024;

// The Markdown outside fenced code blocks, with inline code spans blanked: neither holds links.
function prose(text) {
  return text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '').replace(/`[^`\n]*`/g, '``');
}

// The anchors GitHub gives a file's headings: the heading's text, lower case, without
// punctuation, spaces as hyphens; a repeated heading gets -1, -2, …
function anchorsOf(text) {
  const anchors = new Set();
  const seen = new Map();
  const code = text.replace(/^(```|~~~)[^\n]*\n[\s\S]*?^\1[^\n]*$/gm, '');
  for (const [, heading] of code.matchAll(/^#{1,6}\s+(.+?)\s*#*\s*$/gm)) {
    const words = heading.replace(/`([^`]*)`/g, '$1').replace(/!?\[([^\]]*)\]\([^)]*\)/g, '$1').replace(/\*\*|__/g, '');
    const slug = words.toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const n = seen.get(slug) ?? 0;
    seen.set(slug, n + 1);
    anchors.add(n === 0 ? slug : `${slug}-${n}`);
  }
  return anchors;
}

/** Every link and image target of `file` that is not a URL with a scheme: { target, path, anchor }. */
function relativeLinks(file) {
  const text = prose(readFileSync(join(ROOT, file), 'utf8'));
  return [...text.matchAll(/!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g)]
    .map((match) => match[1])
    .filter((target) => !/^[a-z][a-z0-9+.-]*:/i.test(target))
    .map((target) => {
      const [path, anchor = null] = target.split('#');
      return { target, path: path === '' ? file : join(dirname(file), decodeURI(path)), anchor };
    });
}

test('the README links to every page under web/docs, and every page links back to the README', () => {
  assert.ok(PAGES.length >= 7, `${PAGES.length} pages`);
  const fromReadme = new Set(relativeLinks('README.md').map(({ path }) => path));
  assert.deepEqual(PAGES.filter((page) => !fromReadme.has(page)), [], 'pages the README does not link to');
  for (const page of PAGES) {
    assert.ok(relativeLinks(page).some(({ path }) => path === 'README.md'), `${page} does not link back to README.md`);
  }
});

test('every relative link and image in the README, web/docs and the other READMEs points at a file, and at a heading that exists', () => {
  const broken = [];
  for (const file of FILES) {
    for (const { target, path, anchor } of relativeLinks(file)) {
      if (relative(ROOT, join(ROOT, path)).startsWith('..')) broken.push(`${file}: ${target} leaves the repository`);
      else if (!existsSync(join(ROOT, path))) broken.push(`${file}: ${target} (no file ${path})`);
      else if (anchor !== null && path.endsWith('.md') && !anchorsOf(readFileSync(join(ROOT, path), 'utf8')).has(anchor)) {
        broken.push(`${file}: ${target} (no heading #${anchor} in ${path})`);
      }
    }
  }
  assert.deepEqual(broken, []);
});

test('the heading anchors are the ones GitHub makes', () => {
  const anchors = anchorsOf('# The JS API\n## `engine.run(config)`: the config\n```\n# not a heading\n```\n## Tiled attention\n## Tiled attention\n### Where the .wasm is, and load errors\n');
  assert.deepEqual([...anchors], ['the-js-api', 'enginerunconfig-the-config', 'tiled-attention', 'tiled-attention-1', 'where-the-wasm-is-and-load-errors']);
});

test('every image under web/docs/images is shown by a page and small enough to ship', () => {
  const dir = join(ROOT, DOCS, 'images');
  const images = existsSync(dir) ? readdirSync(dir).map((name) => `${DOCS}/images/${name}`) : [];
  const shown = new Set(FILES.flatMap((file) => relativeLinks(file).map(({ path }) => path)));
  for (const image of images) {
    assert.ok(shown.has(image), `${image} is shown by no page`);
    const { size } = statSync(join(ROOT, image));
    assert.ok(size <= IMAGE_BYTES, `${image} is ${size} bytes, over ${IMAGE_BYTES}`);
  }
});
