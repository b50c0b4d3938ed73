#!/usr/bin/env node
// Trains the shipped character language models with the engine's own trainer (natively:
// build/native/mha_lm_train, the wasm trainer's training step bit for bit) and writes
//   web/checkpoints/<corpus>.mhat           parameters only, float16 (lm.save({ parametersOnly, float16 }))
//   web/checkpoints/language-models.json    for each: the recipe, the checksum of the whole
//                                            trainer after DIGEST_STEP steps (which
//                                            tests/js/language-model.test.js reproduces in wasm),
//                                            the shipped file's size and checksum, and the
//                                            held-out curve the run printed
// A full run is long (English ≈ 25–45 min on one core), so the test reproduces its first
// DIGEST_STEP steps and checks the recorded digest, and the shipped file's own checksum.
//   node scripts/lm/make_checkpoints.js [corpus …]            (default: both)
//   node scripts/lm/make_checkpoints.js --from-log DIR        record runs already made (DIR/<corpus>.jsonl, .mhat)
import { execFileSync, spawn } from 'node:child_process';
import { copyFileSync, existsSync, readFileSync, writeFileSync } from 'node:fs';

const ROOT = new URL('../../', import.meta.url);
const MANIFEST = new URL('web/checkpoints/language-models.json', ROOT);
const TOOL = new URL('build/native/mha_lm_train', ROOT);
export const DIGEST_STEP = 20;

/** The recipes (scripts/lm/FINDINGS.md §5): what the engine's options are for each corpus. */
export const RECIPES = {
  'moby-dick': {
    // 75 % repeat rows: with the PyTorch prototype's 50 % no induction head formed in the engine's
    // 3,000 steps (seed 0: 0.02 at step 3,000); with 75 % it formed by step 1,500 (FINDINGS.md §7).
    options: { seed: 0, T: 128, layers: 2, heads: 4, width: 128, batch: 32, lr: 0.003, weightDecay: 0.01, clip: 1, mlp: true, layernorm: true, repeatShare: 0.75, repeatMin: 16, repeatMax: 48 },
    steps: 4000,
  },
  'tang-poems': {
    options: { seed: 0, T: 64, layers: 2, heads: 4, width: 96, batch: 32, lr: 0.003, weightDecay: 0.01, clip: 1, mlp: true, layernorm: true, repeatShare: 0 },
    steps: 3500,
  },
};

const FILES = { 'moby-dick': ['u8', 1], 'tang-poems': ['u16', 2] };

function toolArgs(corpus, out) {
  const [extension, bytes] = FILES[corpus];
  const folder = new URL(`web/corpora/${corpus}/`, ROOT).pathname;
  const vocab = JSON.parse(readFileSync(`${folder}vocab.json`, 'utf8')).chars;
  const { options, steps } = RECIPES[corpus];
  return ['--train', `${folder}train.${extension}`, '--heldout', `${folder}heldout.${extension}`, '--bytes', String(bytes),
    '--vocab', String(vocab.length), '--newline', String(vocab.indexOf('\n')), '--corpus', corpus, '--out', out,
    '--digest-at', String(DIGEST_STEP), '--eval-every', '250', '--eval-windows', '256',
    ...Object.entries(options).map(([key, value]) => `${key}=${value}`), `steps=${steps}`];
}

function record(corpus, lines, mhat) {
  const events = lines.filter(Boolean).map((line) => JSON.parse(line));
  const digest = events.find((event) => event.digestStep);
  const written = events.find((event) => event.out);
  const curve = events.filter((event) => event.step !== undefined);
  if (!digest || !written) throw new Error(`${corpus}: the run did not finish (no digest or no checkpoint line)`);
  const file = `${corpus}.mhat`;
  copyFileSync(mhat, new URL(`web/checkpoints/${file}`, ROOT));
  return {
    file,
    ...RECIPES[corpus],
    storage: { parametersOnly: true, float16: true },
    bytes: written.bytes,
    checksum: written.checksum,
    digest: { step: digest.digestStep, checksum: digest.checksum },
    curve: curve.map(({ step, loss, bits, previousChar, induction, halfLine, line }) => ({ step, loss, bits, previousChar, induction, halfLine, line })),
  };
}

async function main() {
  const args = process.argv.slice(2);
  const fromLog = args[0] === '--from-log' ? args[1] : null;
  const corpora = (fromLog ? args.slice(2) : args).length ? (fromLog ? args.slice(2) : args) : Object.keys(RECIPES);
  const manifest = existsSync(MANIFEST) ? JSON.parse(readFileSync(MANIFEST, 'utf8')) : { about: '', models: {} };
  manifest.about = 'The language models the docs page opens with (made by scripts/lm/make_checkpoints.js with the engine\'s trainer; copied beside the trainer\'s .wasm by scripts/build.sh). tests/js/language-model.test.js trains each recipe for digest.step steps in wasm and compares the whole trainer\'s checksum, and checks each file\'s own.';
  if (!fromLog) execFileSync('cmake', ['--build', new URL('build/native', ROOT).pathname, '--target', 'mha_lm_train'], { stdio: 'inherit' });
  for (const corpus of corpora) {
    if (!RECIPES[corpus]) throw new Error(`unknown corpus ${corpus}: ${Object.keys(RECIPES).join(', ')}`);
    let lines;
    let mhat;
    if (fromLog) {
      lines = readFileSync(`${fromLog}/${corpus}.jsonl`, 'utf8').split('\n');
      mhat = `${fromLog}/${corpus}.mhat`;
    } else {
      mhat = `/tmp/mha-lens-${corpus}.mhat`;
      const child = spawn(TOOL.pathname, toolArgs(corpus, mhat), { stdio: ['ignore', 'pipe', 'inherit'] });
      let text = '';
      child.stdout.on('data', (chunk) => {
        text += chunk;
        process.stdout.write(`${corpus}: ${chunk}`);
      });
      const code = await new Promise((resolve) => child.on('close', resolve));
      if (code !== 0) throw new Error(`${corpus}: mha_lm_train exited with ${code}`);
      lines = text.split('\n');
    }
    manifest.models[corpus] = record(corpus, lines, mhat);
  }
  writeFileSync(MANIFEST, `${JSON.stringify(manifest, null, 1)}\n`);
  console.log(`wrote ${MANIFEST.pathname}`);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();

export { toolArgs };
