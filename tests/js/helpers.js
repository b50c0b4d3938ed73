// Shared by the node:test files: loading fixtures and comparing tensors with a useful message.
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
export const FIXTURES_DIR = fileURLToPath(new URL('../fixtures/', import.meta.url));

/** Every PyTorch golden file, parsed. */
export function loadFixtures() {
  return readdirSync(FIXTURES_DIR)
    .filter((name) => name.endsWith('.json'))
    .sort()
    .map((name) => JSON.parse(readFileSync(FIXTURES_DIR + name, 'utf8')));
}

/** Max |actual - expected| and the first index over `tolerance`; NaN counts as a mismatch. */
export function compare(actual, expected, tolerance) {
  if (actual.length !== expected.length) return { maxAbs: Infinity, firstBad: 0, reason: `length ${actual.length} vs ${expected.length}` };
  let maxAbs = 0;
  let firstBad = -1;
  for (let i = 0; i < actual.length; i++) {
    const diff = Math.abs(actual[i] - expected[i]);
    if (!(diff <= maxAbs)) maxAbs = diff;
    if (!(diff <= tolerance) && firstBad < 0) firstBad = i;
  }
  return { maxAbs, firstBad };
}

/** Fails with where and by how much, like the C++ tests. */
export function assertClose(assert, actual, expected, tolerance, what) {
  const { maxAbs, firstBad, reason } = compare(actual, expected, tolerance);
  assert.ok(firstBad < 0, `${what}: ${reason ?? `max |diff| ${maxAbs}, first index over ${tolerance}: ${firstBad} (${actual[firstBad]} vs ${expected[firstBad]})`}`);
}

/** FNV-1a over the float32 bit patterns, as tests/cpp/reference.cpp computes it. */
export function checksum(floats) {
  const bytes = new Uint8Array(floats.buffer, floats.byteOffset, floats.byteLength);
  let hash = 2166136261;
  for (const byte of bytes) hash = Math.imul(hash ^ byte, 16777619) >>> 0;
  return hash.toString(16).padStart(8, '0');
}

/** A step's title in `lang` as the catalogue has it, escaped for a RegExp (tests match output against it). */
export async function stepTitlePattern(id, lang = 'en') {
  const { STEPS } = await import('../../web/src/catalogue/catalogue.js');
  return STEPS.find((step) => step.id === id).title[lang].replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}
