// The elements' default colours follow the host page: its first opaque background behind them,
// the text colour over a background picture, else the page's canvas (web/src/logic/page/scheme.js).
import assert from 'node:assert/strict';
import { test } from 'node:test';

import { canvasIsDark, hostIsDark, isDarkBackground, luminance, parseColor } from '../../web/src/logic/page/scheme.js';

test('computed colours parse, whatever the browser writes', () => {
  assert.deepEqual(parseColor('rgb(22, 24, 29)'), { r: 22, g: 24, b: 29, a: 1 });
  assert.deepEqual(parseColor('rgba(0, 0, 0, 0)'), { r: 0, g: 0, b: 0, a: 0 });
  assert.deepEqual(parseColor('rgb(255 255 255 / 50%)'), { r: 255, g: 255, b: 255, a: 0.5 });
  assert.deepEqual(parseColor('#fff'), { r: 255, g: 255, b: 255, a: 1 });
  assert.deepEqual(parseColor('#16181d80'), { r: 22, g: 24, b: 29, a: 128 / 255 });
  assert.equal(parseColor('oklch(0.2 0 0)'), null);
  assert.equal(parseColor(''), null);
});

test('dark means light text reads better on it', () => {
  assert.equal(luminance({ r: 0, g: 0, b: 0 }), 0);
  assert.equal(luminance({ r: 255, g: 255, b: 255 }), 1);
  for (const dark of ['#000', '#16181d', '#1b1b1f', '#0d1117', '#333']) assert.ok(isDarkBackground(parseColor(dark)), dark);
  for (const light of ['#fff', '#f6f6f7', '#fdf6e3', '#ccc', '#999']) assert.ok(!isDarkBackground(parseColor(light)), light);
});

test('the page canvas is dark only when its color-scheme allows dark and the reader or the page chooses it', () => {
  assert.equal(canvasIsDark('normal', true), false);
  assert.equal(canvasIsDark('light', true), false);
  assert.equal(canvasIsDark('dark', false), true);
  assert.equal(canvasIsDark('light dark', false), false);
  assert.equal(canvasIsDark('light dark', true), true);
  assert.equal(canvasIsDark('only dark', false), true);
});

test('the nearest opaque background decides; a picture leaves it to the text colour; else the canvas', () => {
  const none = { backgroundColor: 'rgba(0, 0, 0, 0)', backgroundImage: 'none', color: 'rgb(0, 0, 0)' };
  const darkBody = { backgroundColor: 'rgb(27, 27, 31)', backgroundImage: 'none', color: 'rgb(223, 223, 214)' };
  const whiteCard = { backgroundColor: 'rgb(255, 255, 255)', backgroundImage: 'none', color: 'rgb(0, 0, 0)' };
  assert.equal(hostIsDark([none, none, darkBody], false), true, 'a dark blog');
  assert.equal(hostIsDark([whiteCard, darkBody], false), false, 'a white card on a dark page');
  assert.equal(hostIsDark([{ ...none, backgroundColor: 'rgba(255, 255, 255, 0.1)' }, darkBody], false), true, 'a faint tint is see-through');
  assert.equal(hostIsDark([{ ...none, backgroundImage: 'url(night.jpg)', color: 'rgb(240, 240, 240)' }], false), true, 'light text over a picture');
  assert.equal(hostIsDark([none, none], false), false, 'nothing painted: the light canvas');
  assert.equal(hostIsDark([none, none], true), true, 'nothing painted: a dark canvas');
});
