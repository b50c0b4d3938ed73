import { test } from 'node:test';
import assert from 'node:assert/strict';
import { SIZING_SCRIPT, configAttributes, embedRequest, embedSnippets } from '../../web/src/logic/page/embed-code.js';
import { DEFAULT_STATE } from '../../web/src/logic/page/page-state.js';

test('the snippet carries the view and escapes the reader\'s tokens', () => {
  const state = { ...DEFAULT_STATE, C: 12, H: 3, mask: 'causal', view: 'masked', head: 2 };
  const tokens = ['<img', 'src=x', 'onerror="alert(1)">', '&'];
  const { html, iframe } = embedSnippets(state, tokens, { bundleUrl: 'https://example.org/dist/mha-lens.js', embedUrl: 'https://example.org/embed.html', lang: 'zh' });
  assert.match(html, /^<script type="module" src="https:\/\/example.org\/dist\/mha-lens.js" blocking="render"><\/script>\n/);
  assert.match(html, /<mha-walkthrough id="mha-walkthrough" tokens="&lt;img src=x onerror=&quot;alert\(1\)&quot;&gt; &amp;" b="2" c="12" h="3" mask="causal" lang="zh">/);
  assert.match(html, /<mha-heatmap for="mha-walkthrough" step="masked" batch="0" head="2" lang="zh"><\/mha-heatmap>$/);
  assert.ok(!html.includes('<img'), 'no live tag from the tokens');
  assert.ok(!iframe.includes('<img') && !iframe.includes('"alert'), iframe);
  const [frame, script] = iframe.split('\n');
  assert.equal(script, SIZING_SCRIPT, 'two lines: the frame, then the script that sizes it');
  assert.match(frame, /^<iframe src="[^"]+" title="mha-lens" width="100%" height="\d+" loading="lazy"><\/iframe>$/);
  const src = frame.match(/src="([^"]+)"/)[1].replaceAll('&amp;', '&');
  const [walkthrough, heatmap] = embedRequest(new URL(src).search);
  assert.equal(walkthrough.tag, 'mha-walkthrough');
  assert.deepEqual(Object.fromEntries(walkthrough.attributes), { id: 'mha-frame-first', b: '2', c: '12', h: '3', mask: 'causal', tokens: tokens.join(' '), lang: 'zh' });
  assert.equal(heatmap.tag, 'mha-heatmap');
  assert.deepEqual(Object.fromEntries(heatmap.attributes), { for: 'mha-frame-first', lang: 'zh', step: 'masked', batch: '0', head: '2' });
});

test('defaults stay out, bias off is written', () => {
  const pairs = configAttributes({ ...DEFAULT_STATE, bias: false }, ['a']);
  assert.deepEqual(pairs, [['tokens', 'a'], ['b', 2], ['c', 8], ['h', 2], ['bias', 'false']]);
});

test('the iframe page only takes known elements and attributes', () => {
  assert.deepEqual(embedRequest('?el=script&onclick=x&c=8'), [{ tag: 'mha-walkthrough', attributes: [['c', '8']] }]);
  assert.deepEqual(embedRequest('?el=heatmap&view=scores'), [{ tag: 'mha-heatmap', attributes: [['step', 'scores']] }]);
  assert.deepEqual(embedRequest('?el=walkthrough,script,heatmap').map((e) => e.tag), ['mha-walkthrough', 'mha-heatmap']);
});
