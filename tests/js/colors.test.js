import { test } from 'node:test';
import assert from 'node:assert/strict';
import { axisColors, diverging, luminance, scaleFor, viridis } from '../../web/src/logic/colors.js';

test('viridis runs from dark purple to yellow and gets lighter all the way', () => {
  assert.equal(viridis(0), '#440154');
  assert.equal(viridis(1), '#fde725');
  let previous = -1;
  for (let i = 0; i <= 100; i++) {
    const l = luminance(viridis(i / 100));
    assert.ok(l > previous, `luminance must rise at t=${i / 100}`);
    previous = l;
  }
  assert.equal(viridis(-3), viridis(0));
  assert.equal(viridis(7), viridis(1));
});

test('the diverging map is light at 0, purple below, orange above, and darker as |t| grows', () => {
  assert.ok(luminance(diverging(0)) > 0.9);
  const [r0, , b0] = [1, 3, 5].map((i) => parseInt(diverging(-1).slice(i, i + 2), 16));
  const [r1, , b1] = [1, 3, 5].map((i) => parseInt(diverging(1).slice(i, i + 2), 16));
  assert.ok(b0 > r0, 'negative is purple-blue');
  assert.ok(r1 > b1, 'positive is orange');
  // Magnitude reads as darkness on both sides, so |value| survives a grey-scale print.
  for (const sign of [-1, 1]) {
    let previous = luminance(diverging(0));
    for (let i = 1; i <= 20; i++) {
      const l = luminance(diverging((sign * i) / 20));
      assert.ok(l < previous, `darker as |t| grows at ${(sign * i) / 20}`);
      previous = l;
    }
  }
});

test('a step gets a symmetric signed range that ignores −∞, and weights get [0, 1]', () => {
  const scale = scaleFor({ op: 'mask', data: Float32Array.from([-Infinity, -0.5, 2, 1]) });
  assert.equal(scale.kind, 'diverging');
  assert.deepEqual([scale.min, scale.max], [-2, 2]);
  assert.equal(scale.color(0), diverging(0));
  const weights = scaleFor({ op: 'softmax', data: Float32Array.from([0.2, 0.8]) });
  assert.deepEqual([weights.kind, weights.min, weights.max], ['sequential', 0, 1]);
  assert.equal(scaleFor({ op: 'scale', data: new Float32Array(3) }).max, 1, 'all zeros still gives a usable range');
});

test('rgbInto writes the bytes of the same colour as color(), for every kind of value', () => {
  const hexOf = (out, at) => `#${[0, 1, 2].map((k) => out[at + k].toString(16).padStart(2, '0')).join('')}`;
  const values = [-Infinity, Infinity, NaN, -3, -2, -1.2345, -0.5, -1e-7, 0, 1e-7, 0.1, 0.25, 0.33, 0.5, 0.9999, 1, 1.5, 2, 7];
  for (let i = 0; i < 500; i++) values.push(Math.sin(i * 12.9898) * 2.5);
  for (const scale of [scaleFor({ op: 'mask', data: Float32Array.from([-Infinity, -0.5, 2, 1]) }), scaleFor({ op: 'softmax', data: new Float32Array(1) })]) {
    const out = new Uint8ClampedArray(values.length * 4);
    values.forEach((v, i) => scale.rgbInto(v, out, i * 4));
    values.forEach((v, i) => {
      assert.equal(hexOf(out, i * 4), scale.color(v), `${scale.kind} at ${v}`);
      assert.equal(out[i * 4 + 3], 255, 'opaque');
    });
  }
});

test('every axis has one stable colour, T and Tq share one, merged axes show both parts', () => {
  const names = ['B', 'T', 'Tk', 'C', 'H', 'Hkv', 'D'];
  const colors = names.map((n) => axisColors(n)[0]);
  assert.equal(new Set(colors).size, names.length, 'distinct colours');
  assert.deepEqual(axisColors('Tq'), axisColors('T'));
  assert.deepEqual(axisColors('H·D'), [axisColors('H')[0], axisColors('D')[0]]);
});
