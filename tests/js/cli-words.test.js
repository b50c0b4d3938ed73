// The CLI's walk in Chinese: every shape formula in Chinese words (the engine's own shapeFormula
// is English: "[2,2,4,4] with no mask → [2,2,4,4]"), and in English exactly the engine's.
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { ROOT } from './helpers.js';
import { getTestEngine } from './engine-helper.js';

const walk = (...args) => execFileSync(process.execPath, [`${ROOT}web/cli.js`, 'walk', ...args], { encoding: 'utf8' });

test('walk --lang zh writes no English words in its formulas', () => {
  const zh = walk('--B', '2', '--T', '4', '--C', '8', '--H', '2', '--lang', 'zh');
  assert.doesNotMatch(zh, /with no mask|softmax over/);
  assert.match(zh, /（无掩码）/);
  const causal = walk('--B', '2', '--T', '4', '--C', '8', '--H', '2', '--mask', 'causal', '--lang', 'zh');
  assert.match(causal, /因果掩码 \[4,4\]/);
});

test('walk in English prints the engine\'s own shape formulas', async () => {
  const run = (await getTestEngine()).run({ B: 2, T: 4, C: 8, H: 2 });
  const en = walk('--B', '2', '--T', '4', '--C', '8', '--H', '2');
  for (const step of run.steps) assert.ok(en.includes(step.shapeFormula), step.shapeFormula);
});
