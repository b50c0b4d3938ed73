#!/usr/bin/env node
// Serves the docs page (web/) on 127.0.0.1 as plain static files, with a strict
// Content-Security-Policy: the page runs everything client-side and loads nothing from elsewhere.
//   node scripts/serve.js            PORT (default 8080) from the environment
//   import { startServer } from './serve.js'   for tests: startServer({ port: 0 })
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../web/', import.meta.url)));

export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:";

const TYPES = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.wasm': 'application/wasm',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.woff2': 'font/woff2',
  '.woff': 'font/woff',
  '.ttf': 'font/ttf',
  '.map': 'application/json; charset=utf-8',
};

function send(response, status, text, csp = CONTENT_SECURITY_POLICY) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': csp });
  response.end(text);
}

async function handle(request, response, root, csp) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'Only GET and HEAD.\n');
  let path;
  try {
    path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  } catch {
    return send(response, 400, 'Bad URL.\n');
  }
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return send(response, 404, 'Not found.\n');
  let info;
  try {
    info = await stat(file);
  } catch {
    return send(response, 404, 'Not found.\n');
  }
  if (info.isDirectory()) {
    response.writeHead(301, { Location: `${path}/` });
    return response.end();
  }
  response.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Content-Security-Policy': csp,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
  });
  if (request.method === 'HEAD') return response.end();
  createReadStream(file).pipe(response);
}

/**
 * Starts the server; resolves to { server, url }. `csp` replaces the policy, e.g. to test the
 * widgets under a host page's own stricter one.
 */
export function startServer({ port = 8080, host = '127.0.0.1', root = ROOT, csp = CONTENT_SECURITY_POLICY } = {}) {
  return new Promise((resolvePromise, reject) => {
    const server = createServer((request, response) => {
      handle(request, response, root, csp).catch((error) => send(response, 500, `${error.message}\n`, csp));
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolvePromise({ server, url: `http://${host}:${bound}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const port = Number(process.env.PORT ?? 8080);
  const { url } = await startServer({ port });
  console.log(`mha-lens docs page: ${url}  (Ctrl+C to stop)`);
}
