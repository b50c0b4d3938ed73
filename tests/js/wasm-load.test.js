// Finding and loading the .wasm (web/src/engine/engine.js): the rule's default is beside the
// engine's JS, a URL is fetched once however many engines use it, and a failure is an
// MhaLoadError naming the URL tried, what went wrong and the fix. Over HTTP from a local server,
// as a browser loads it, and from the file system as Node does.
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { after, before, test } from 'node:test';

import { MhaLoadError, createEngine, env, getEngine } from '../../web/src/engine/engine.js';

const WASM = readFileSync(new URL('../../web/dist/mha_engine.wasm', import.meta.url));
let server;
let base;
const requests = [];
before(async () => {
  server = createServer((request, response) => {
    requests.push(request.url);
    if (request.url === '/engine.wasm' || request.url === '/octet.wasm') {
      response.writeHead(200, { 'Content-Type': request.url === '/engine.wasm' ? 'application/wasm' : 'application/octet-stream' });
      response.end(WASM);
    } else if (request.url === '/spa.wasm') {
      response.writeHead(200, { 'Content-Type': 'text/html; charset=utf-8' });
      response.end('<!doctype html><title>app</title>');
    } else {
      response.writeHead(404);
      response.end();
    }
  });
  await new Promise((done) => server.listen(0, '127.0.0.1', done));
  base = `http://127.0.0.1:${server.address().port}`;
});
after(() => server?.close());

const failure = async (options) => {
  try {
    await createEngine(options);
  } catch (error) {
    return error;
  }
  assert.fail(`${JSON.stringify(options)} loaded`);
};

test('by default the .wasm beside the engine\'s JS; every engine of one URL shares one fetch', async () => {
  const engine = await createEngine();
  assert.equal(engine.run({ B: 1, T: 2, C: 4, H: 2 }).output.length, 8);
  requests.length = 0;
  const [a, b] = await Promise.all([createEngine({ wasmUrl: `${base}/engine.wasm` }), createEngine({ wasmUrl: `${base}/engine.wasm` })]);
  const c = await createEngine({ wasmUrl: `${base}/engine.wasm` });
  assert.notEqual(a, b);
  assert.deepEqual(a.run({ B: 1, T: 2, C: 4, H: 2 }).output, c.run({ B: 1, T: 2, C: 4, H: 2 }).output);
  assert.deepEqual(requests, ['/engine.wasm'], 'fetched once');
  // A server that does not say application/wasm still works (compiled from the bytes).
  assert.ok(await createEngine({ wasmUrl: `${base}/octet.wasm` }));
  assert.equal(await getEngine(), await getEngine(), 'getEngine() is one engine');
});

test('a failure names the URL, the reason and the fix', async () => {
  const missing = await failure({ wasmUrl: `${base}/assets/mha_engine.wasm` });
  assert.ok(missing instanceof MhaLoadError);
  assert.deepEqual([missing.key, missing.url, missing.params.status, missing.code, missing.field], ['load.http', `${base}/assets/mha_engine.wasm`, 404, 'engine_load', 'wasmUrl']);
  assert.match(missing.message, /^mha_engine\.wasm is not at http:\/\/127\.0\.0\.1:\d+\/assets\/mha_engine\.wasm \(HTTP 404\)\. Copy it there .*wasm-url.*<meta name="mha-lens:wasm-url".*createEngine\(\{ wasmUrl \}\)/);
  const page = await failure({ wasmUrl: `${base}/spa.wasm` });
  assert.equal(page.key, 'load.not_wasm');
  assert.match(page.message, /sent is not a \.wasm file but text\/html/);
  const refused = await failure({ wasmUrl: 'javascript:alert(1)' });
  assert.equal(refused.key, 'load.bad_url');
  const file = await failure({ wasmUrl: '/nonexistent/mha_engine.wasm' });
  assert.deepEqual([file.key, file.url], ['load.file', 'file:///nonexistent/mha_engine.wasm']);
  const network = await failure({ wasmUrl: 'http://127.0.0.1:9/mha_engine.wasm' });
  assert.equal(network.key, 'load.network');
  const bytes = await failure({ wasmBinary: new Uint8Array([1, 2, 3, 4]) });
  assert.equal(bytes.key, 'load.not_wasm_file');
  assert.match(missing.messageIn('zh'), /处没有 mha_engine\.wasm（HTTP 404）/);
  // The trainer's .wasm names itself, its meta tag and its files, not the engine's.
  const trainer = await failure({ trainer: true, wasmUrl: `${base}/assets/mha_trainer.wasm` });
  assert.equal(trainer.key, 'load.http');
  assert.match(trainer.message, /^mha_trainer\.wasm is not at http:\/\/127\.0\.0\.1:\d+\/assets\/mha_trainer\.wasm \(HTTP 404\)\. .*mha_trainer\.mjs and checkpoints\/.*<meta name="mha-lens:trainer-wasm-url"/);
  assert.doesNotMatch(trainer.message, /mha_engine\.wasm|"mha-lens:wasm-url"/);
  assert.match(trainer.messageIn('zh'), /处没有 mha_trainer\.wasm（HTTP 404）.*mha-lens:trainer-wasm-url/);
  // A failed URL is not remembered: it loads once it is there.
  requests.length = 0;
  await failure({ wasmUrl: `${base}/spa.wasm` });
  assert.deepEqual(requests, ['/spa.wasm']);
});

test('env.assetPath says where every file is: the .wasm of each engine is looked for there', async () => {
  try {
    env.assetPath = `${base}/static/mha-lens`;
    const engine = await failure({});
    assert.deepEqual([engine.key, engine.url], ['load.http', `${base}/static/mha-lens/mha_engine.wasm`]);
    const trainer = await failure({ trainer: true });
    assert.deepEqual([trainer.key, trainer.url], ['load.http', `${base}/static/mha-lens/mha_trainer.wasm`]);
    // An explicit wasmUrl still wins.
    const given = await failure({ wasmUrl: `${base}/elsewhere/mha_engine.wasm` });
    assert.equal(given.url, `${base}/elsewhere/mha_engine.wasm`);
    env.assetPath = 'javascript:alert(1)';
    assert.equal((await failure({})).key, 'load.bad_url');
  } finally {
    env.assetPath = null;
  }
});
