// The dev server (`npm start`, scripts/serve.js) against hostile and careless clients: resets
// mid-transfer with few file descriptors, redirects built from the request, control characters,
// long URLs, other methods, and a bad PORT.
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { request } from 'node:http';
import net from 'node:net';
import { after, before, test } from 'node:test';
import { fileURLToPath } from 'node:url';

import { startServer } from '../../scripts/serve.js';

const serveScript = fileURLToPath(new URL('../../scripts/serve.js', import.meta.url));

let server;
let port;
before(async () => {
  ({ server } = await startServer({ port: 0 }));
  port = server.address().port;
});
after(() => server.close());

// A raw request, so that the path reaches the server exactly as written.
function get(path, { method = 'GET', port: to = port } = {}) {
  return new Promise((resolve, reject) => {
    const socket = net.connect(to, '127.0.0.1', () => socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    let text = '';
    socket.setEncoding('latin1');
    socket.on('data', (chunk) => (text += chunk));
    socket.on('end', () => {
      const [head, ...body] = text.split('\r\n\r\n');
      const [statusLine, ...lines] = head.split('\r\n');
      const headers = Object.fromEntries(lines.map((line) => [line.slice(0, line.indexOf(':')).toLowerCase(), line.slice(line.indexOf(':') + 1).trim()]));
      resolve({ status: Number(statusLine.split(' ')[1]), headers, body: body.join('\r\n\r\n') });
    });
    socket.on('error', reject);
  });
}

test('a folder redirects to its own place under the root, never to a host named in the request', async () => {
  const plain = await get('/examples');
  assert.equal(plain.status, 301);
  assert.equal(plain.headers.location, '/examples/');
  for (const path of ['/%2F%2Fevil.example%2F..%2Fexamples', '//evil.example/../examples', '/%5C%5Cevil.example/../examples']) {
    const response = await get(path);
    assert.ok([301, 404].includes(response.status), `${path}: ${response.status}`);
    if (response.status === 301) {
      assert.equal(response.headers.location, '/examples/', path);
      assert.match(response.headers['content-security-policy'], /default-src 'self'/, 'a redirect carries the policy too');
    }
  }
});

test('control characters in the path are a bad request, and no error text is echoed', async () => {
  for (const path of ['/a%0D%0ASet-Cookie:%20x=1', '/%00', '/index.html%0A']) {
    const response = await get(path);
    assert.equal(response.status, 400, path);
    assert.match(response.body, /Bad URL\.\n/);
    assert.doesNotMatch(response.body, /Error|ERR_/);
    assert.equal(response.headers['set-cookie'], undefined);
  }
});

test('other methods get 405 with Allow; every response has the full policy', async () => {
  const response = await get('/', { method: 'POST' });
  assert.equal(response.status, 405);
  assert.equal(response.headers.allow, 'GET, HEAD');
  const page = await get('/');
  assert.equal(page.status, 200);
  for (const directive of ["base-uri 'none'", "form-action 'none'", "frame-ancestors 'self'", "default-src 'self'"]) {
    assert.ok(page.headers['content-security-policy'].includes(directive), directive);
  }
  // The iframe route is made to be framed by other sites.
  assert.match((await get('/embed.html')).headers['content-security-policy'], /frame-ancestors \*/);
  assert.match((await get('/nope')).headers['content-security-policy'], /default-src 'self'/);
});

test('a page URL with a long token list (about 28,000 characters of query) is served', async () => {
  const tokens = Array.from({ length: 3000 }, (_, i) => `tok${i}`).join('+');
  const response = await get(`/?tokens=${tokens}`);
  assert.equal(response.status, 200);
});

test('a bad PORT gets one line, not a stack trace', () => {
  for (const bad of ['abc', '-1', '70000', '8080x']) {
    const result = spawnSync(process.execPath, [serveScript], { env: { ...process.env, PORT: bad }, encoding: 'utf8', timeout: 10_000 });
    assert.equal(result.status, 2, bad);
    assert.equal(result.stderr.trim().split('\n').length, 1, result.stderr);
    assert.match(result.stderr, /is not a port/);
  }
});

test('50,000 clients that reset mid-transfer, with 256 file descriptors: the server keeps serving', async () => {
  // The server in its own process, under `ulimit -n 256`, as `npm start` runs it.
  const child = spawn('bash', ['-c', `ulimit -n 256 && exec "${process.execPath}" "${serveScript}"`], { env: { ...process.env, PORT: '0' } });
  const url = await new Promise((resolve, reject) => {
    child.stdout.on('data', (chunk) => {
      const match = /http:\/\/127\.0\.0\.1:(\d+)\//.exec(String(chunk));
      if (match) resolve(match[0]);
    });
    child.once('exit', (code) => reject(new Error(`the server exited with ${code}`)));
  });
  const childPort = Number(new URL(url).port);
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  try {
    // Ask for the largest file and reset the connection as soon as its first bytes arrive.
    const reset = () => new Promise((resolve) => {
      const socket = net.connect(childPort, '127.0.0.1', () => socket.write('GET /dist/mha_engine.wasm HTTP/1.1\r\nHost: x\r\n\r\n'));
      socket.once('data', () => socket.resetAndDestroy());
      socket.once('close', resolve);
      socket.once('error', resolve);
    });
    const total = 50_000, parallel = 64;
    let started = 0;
    await Promise.all(Array.from({ length: parallel }, async () => {
      while (started < total) {
        started++;
        await reset();
      }
    }));
    // The last resets' streams close within moments: wait for the count to settle, as it
    // cannot if each reset leaked a descriptor.
    const openFiles = () => readdirSync(`/proc/${child.pid}/fd`).length;
    for (let waited = 0; openFiles() >= 32 && waited < 5000; waited += 100) await new Promise((resolve) => setTimeout(resolve, 100));
    assert.ok(openFiles() < 32, `${openFiles()} file descriptors open after the resets`);
    const response = await new Promise((resolve, reject) => {
      request(`${url}dist/mha_engine.wasm`, (res) => {
        let bytes = 0;
        res.on('data', (chunk) => (bytes += chunk.length));
        res.on('end', () => resolve({ status: res.statusCode, bytes }));
      }).on('error', reject).end();
    });
    assert.equal(response.status, 200);
    assert.ok(response.bytes > 10_000);
    assert.equal(child.exitCode, null, 'still running');
    assert.equal(stderr, '');
  } finally {
    child.kill();
  }
});

test('a symlink out of the root is not followed, an unknown method gets 405, and Range is declined openly', async () => {
  const { mkdtemp, mkdir, symlink, writeFile, rm } = await import('node:fs/promises');
  const { tmpdir } = await import('node:os');
  const { join } = await import('node:path');
  const base = await mkdtemp(join(tmpdir(), 'mha-serve-'));
  const root = join(base, 'root');
  await mkdir(root);
  await writeFile(join(base, 'secret.txt'), 'secret');
  await writeFile(join(root, 'inside.txt'), 'inside');
  await symlink(join(base, 'secret.txt'), join(root, 'out.txt'));
  await symlink(join(root, 'inside.txt'), join(root, 'in.txt'));
  const { server: own } = await startServer({ port: 0, root });
  const ownPort = own.address().port;
  try {
    const out = await get('/out.txt', { port: ownPort });
    assert.equal(out.status, 404);
    assert.doesNotMatch(out.body, /secret/);
    assert.equal((await get('/in.txt', { port: ownPort })).body, 'inside');
    const raw = await new Promise((resolve) => {
      const socket = net.connect(ownPort, '127.0.0.1', () => socket.write('BREW /inside.txt HTTP/1.1\r\nHost: x\r\n\r\n'));
      let text = '';
      socket.on('data', (chunk) => { text += chunk; });
      socket.on('close', () => resolve(text));
    });
    assert.match(raw, /^HTTP\/1\.1 405 /);
    assert.equal((await get('/inside.txt', { port: ownPort })).headers['accept-ranges'], 'none');
  } finally {
    own.close();
    await rm(base, { recursive: true, force: true });
  }
});
