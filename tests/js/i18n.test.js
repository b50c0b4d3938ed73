// Every word of the page exists in English and Chinese: the two tables have the same keys, no
// empty strings, the same {placeholders}, and every key the page's code asks for is in them.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { LANGUAGES, STRINGS, translator } from '../../web/src/text/translate.js';
import { PageError } from '../../web/src/text/page-error.js';
import { MhaLoadError } from '../../web/src/engine/errors.js';
import { MESSAGES } from '../../web/src/text/messages.js';
import { LM_STRINGS, withLmWords } from '../../web/src/text/lm-words.js';
import { getTestEngine, CONFIGS } from './engine-helper.js';

const root = new URL('../../web/', import.meta.url).pathname;
// The page, the CLI and every module under web/src/, whatever folder it sits in.
const sources = [join(root, 'app.js'), join(root, 'cli.js'),
  ...readdirSync(join(root, 'src'), { recursive: true }).filter((f) => f.endsWith('.js')).map((f) => join(root, 'src', f))];

test('both languages have exactly the same keys, none empty', () => {
  assert.deepEqual(LANGUAGES, ['en', 'zh']);
  const en = Object.keys(STRINGS.en).sort();
  const zh = Object.keys(STRINGS.zh).sort();
  assert.deepEqual(zh.filter((k) => !en.includes(k)), [], 'keys only in zh');
  assert.deepEqual(en.filter((k) => !zh.includes(k)), [], 'keys only in en');
  for (const lang of LANGUAGES) {
    for (const [key, text] of Object.entries(STRINGS[lang])) assert.ok(text.trim().length > 0, `${lang} ${key} is empty`);
  }
});

test('the Chinese strings are Chinese and carry the same placeholders', () => {
  const placeholders = (text) => (text.match(/\{\w+\}/g) ?? []).sort();
  const mostlyLatin = [];
  for (const key of Object.keys(STRINGS.en)) {
    assert.deepEqual(placeholders(STRINGS.zh[key]), placeholders(STRINGS.en[key]), `placeholders of ${key}`);
    if (STRINGS.zh[key] === STRINGS.en[key] && /[a-z]{4,}/i.test(STRINGS.en[key]) && !/^(page\.heading|ctl\.placeholder)/.test(key)) mostlyLatin.push(key);
  }
  assert.deepEqual(mostlyLatin, [], 'untranslated zh strings');
});

test('every literal key the page code asks for is in both tables', () => {
  const used = new Set();
  for (const file of sources) {
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(/\bt\(\s*'([a-zA-Z]+\.[\w.·]+)'/g)) used.add(match[1]);
    for (const match of text.matchAll(/'((?:why|layout|kind|equal|quiz|error|lessons|mistakes|hm|wt|ctl|page)\.[\w.]+)'/g)) used.add(match[1]);
    for (const match of text.matchAll(/data-i18n="([\w.]+)"/g)) used.add(match[1]);
  }
  for (const match of readFileSync(join(root, 'index.html'), 'utf8').matchAll(/data-i18n="([\w.]+)"/g)) used.add(match[1]);
  assert.ok(used.size > 100, `found only ${used.size} keys: the scan is broken`);
  // A word of the page (en.js and zh.js), of the language-model section (lm-en.js and lm-zh.js,
  // loaded with it), or a message of the page's own (messages.js).
  const inBoth = (tables, key) => key in tables.en && key in tables.zh;
  const missing = [...used].filter((key) => !(key in MESSAGES) && !inBoth(STRINGS, key) && !inBoth(LM_STRINGS, key));
  assert.deepEqual(missing, []);
});

test('every step, axis and op the engine can produce has words in both languages, and the .d.ts names every error code', async () => {
  const engine = await getTestEngine();
  const needed = new Set();
  for (const config of CONFIGS) {
    for (const step of engine.run(config).steps) {
      needed.add(`why.${step.op}`);
      for (const axis of step.axes) needed.add(`axis.${axis}`);
    }
  }
  // The .d.ts's ErrorCode is generated from the engine's part of the messages (tests/js/catalogue.test.js
  // holds every generated output to the generator); the engine's table is that part.
  const codes = readFileSync(join(root, 'src/text/messages.d.ts'), 'utf8').match(/export type ErrorCode =([^;]+);/)[1].match(/'(\w+)'/g).map((c) => c.slice(1, -1));
  const engineKeys = Object.keys(JSON.parse(readFileSync(join(root, '../cpp/data/messages.json'), 'utf8')).engine);
  const tableCodes = new Set(engineKeys.filter((key) => !key.startsWith('term.') && !key.startsWith('warning.')).map((key) => key.split('.')[0]));
  assert.deepEqual([...new Set(codes)].sort(), [...tableCodes].sort());
  for (const key of engineKeys) assert.ok(key in engine.messages, `the engine has ${key}`);
  // Their words are the table's own (tests/js/messages.test.js checks both languages of every entry).
  for (const lang of LANGUAGES) {
    const t = translator(lang);
    for (const key of needed) assert.notEqual(t(key), key, `${lang} lacks ${key}`);
  }
});

test('t(key, params) fills {name} slots, in either language, by the rule of the engine\'s messages', () => {
  const en = translator('en');
  const zh = translator('zh');
  assert.equal(en('wt.position', { n: 3, m: 19 }), 'Step 3 of 19 · ← → keys');
  assert.equal(zh('wt.position', { n: 3, m: 19 }), '第 3 / 19 步 · ← → 键');
  assert.equal(en('hm.readout', { b: 0, h: 1, q: 'I', k: 'love', v: '0.2500' }), 'b=0 head 1 · query “I” → key “love”: 0.2500');
  // Braces that are not a slot stay text; a key no table has comes back as itself.
  assert.equal(en('import.example'), '{"B": 2, "C": 8, "H": 2, "tokens": ["I", "love", "attention"]}');
  assert.equal(en('no.such.key'), 'no.such.key');
  // A parameter's text is never read as a slot.
  assert.equal(en('hm.head', { h: '{h}' }), 'head {h}');
});

test('no module fills a placeholder by hand: every slot goes through t() or the engine\'s messages', () => {
  const byHand = /\.replace(All)?\(\s*['"`]\{|localizeMessage/;
  // Two fillers: render.js for words and messages, step-text.js for the catalogue's formulas.
  const fillers = ['text/render.js', 'catalogue/step-text.js'];
  const offenders = sources.filter((file) => !fillers.some((filler) => file.endsWith(filler)) && byHand.test(readFileSync(file, 'utf8')));
  assert.deepEqual(offenders, []);
});

test('an error of the page itself says itself in both languages, its cause\'s words included', () => {
  const refused = new MhaLoadError('load.bad_url', { url: 'javascript:alert(1)' });
  const load = new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause: refused });
  assert.equal(load.message, 'The WebAssembly engine did not load: The .wasm URL "javascript:alert(1)" is not an http(s), file or blob URL.');
  assert.equal(load.messageIn('zh'), 'WebAssembly 引擎没有加载成功：.wasm 地址 "javascript:alert(1)" 不是 http(s)、file 或 blob 地址。');
  const network = new PageError({ code: 'internal', field: 'engine', key: 'error.engine_load', cause: new TypeError('Failed to fetch') });
  assert.equal(network.messageIn('zh'), 'WebAssembly 引擎没有加载成功：Failed to fetch');
  assert.equal(new PageError({ code: 'missing', field: 'for', key: 'error.for_missing', params: { id: 'walk' } }).messageIn('en'), 'for="walk": there is no element with that id on this page.');
});

test('the engine\'s load failures say themselves in both languages, with the same placeholders and the fix', () => {
  const placeholders = (text) => (text.match(/\{@?\w+\}/g) ?? []).sort();
  for (const [key, { en, zh }] of Object.entries(MESSAGES).filter(([name]) => name.startsWith('load.'))) {
    assert.ok(en && zh, key);
    assert.deepEqual(placeholders(zh), placeholders(en), key);
    assert.match(zh, /[\u4e00-\u9fff]/, `${key} in Chinese`);
  }
  const missing = new MhaLoadError('load.http', { url: 'https://blog.example/assets/mha_engine.wasm', status: 404 });
  assert.equal(missing.url, 'https://blog.example/assets/mha_engine.wasm');
  assert.match(missing.message, /^mha_engine\.wasm is not at https:\/\/blog\.example\/assets\/mha_engine\.wasm \(HTTP 404\)\. Copy it there .*wasm-url.*mha-lens:wasm-url.*createEngine\(\{ wasmUrl \}\)\.$/);
  assert.match(missing.messageIn('zh'), /^https:\/\/blog\.example\/assets\/mha_engine\.wasm 处没有 mha_engine\.wasm（HTTP 404）。请把包里的/);
});

test('the language-model section\'s words: the same keys in both languages, none empty, the same slots, none shadowing the page\'s', () => {
  const en = Object.keys(LM_STRINGS.en).sort();
  const zh = Object.keys(LM_STRINGS.zh).sort();
  assert.deepEqual(zh.filter((k) => !en.includes(k)), [], 'keys only in lm-zh.js');
  assert.deepEqual(en.filter((k) => !zh.includes(k)), [], 'keys only in lm-en.js');
  assert.ok(en.length > 50, `only ${en.length} words: the tables are not the section's`);
  const placeholders = (text) => (text.match(/\{\w+\}/g) ?? []).sort();
  for (const key of en) {
    for (const lang of LANGUAGES) assert.ok(LM_STRINGS[lang][key].trim().length > 0, `${lang} ${key} is empty`);
    assert.deepEqual(placeholders(LM_STRINGS.zh[key]), placeholders(LM_STRINGS.en[key]), `placeholders of ${key}`);
    assert.notEqual(LM_STRINGS.zh[key], LM_STRINGS.en[key], `${key} is not translated`);
    assert.ok(!(key in STRINGS.en), `${key} is in both en.js and lm-en.js`);
  }
  // The section's t(): its own words in the reader's language, the page's for the rest.
  const t = withLmWords(translator('zh'));
  assert.equal(t('lm.gen.go'), '生成');
  assert.equal(t('lm.title'), STRINGS.zh['lm.title']);
  assert.equal(t('lm.head.name', { layer: 1, head: 2 }), '层1 头2');
});
