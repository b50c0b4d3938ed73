#!/usr/bin/env node
// Serves the docs page (web/) on 127.0.0.1 as plain static files, with a strict
// Content-Security-Policy: the page runs everything client-side and loads nothing from elsewhere.
//   node scripts/serve.js            PORT (default 8080) from the environment
//   import { startServer } from './serve.js'   for tests: startServer({ port: 0 })
import { createReadStream } from 'node:fs';
import { realpath, stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, relative, resolve, sep } from 'node:path';
import { pipeline } from 'node:stream';
import { fileURLToPath } from 'node:url';

export const ROOT = resolve(fileURLToPath(new URL('../web/', import.meta.url)));

// The page may not be framed by another site, post a form or change its base URL. The iframe
// route (embed.html) is made to be framed by any tutorial site: see policyFor.
export const CONTENT_SECURITY_POLICY =
  "default-src 'self'; script-src 'self' 'wasm-unsafe-eval'; style-src 'self'; img-src 'self' data: blob:; " +
  "base-uri 'none'; form-action 'none'; frame-ancestors 'self'";

// A page URL holds the config, and a long token list makes a long URL: Node's default 16 KiB of
// headers refused the page's own links (431). 256 KiB holds tens of thousands of tokens.
const MAX_HEADER_BYTES = 256 * 1024;

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

// The iframe route may be framed from anywhere; everything else keeps the page's policy.
const policyFor = (file, csp) => (file.endsWith(`${sep}embed.html`) ? csp.replace(/frame-ancestors [^;]+/, 'frame-ancestors *') : csp);

function send(response, status, text, csp, headers = {}) {
  response.writeHead(status, { 'Content-Type': 'text/plain; charset=utf-8', 'Content-Security-Policy': csp, ...headers });
  response.end(text);
}

// The root with its own symlinks resolved, once per root.
const realRoots = new Map();
const realRootOf = (root) => {
  if (!realRoots.has(root)) realRoots.set(root, realpath(root));
  return realRoots.get(root);
};

async function handle(request, response, root, csp) {
  if (request.method !== 'GET' && request.method !== 'HEAD') return send(response, 405, 'Only GET and HEAD.\n', csp, { Allow: 'GET, HEAD' });
  let path;
  try {
    path = decodeURIComponent(new URL(request.url, 'http://localhost').pathname);
  } catch {
    return send(response, 400, 'Bad URL.\n', csp);
  }
  if (/[\0-\x1f]/.test(path)) return send(response, 400, 'Bad URL.\n', csp);
  if (path.endsWith('/')) path += 'index.html';
  const file = normalize(join(root, path));
  if (file !== root && !file.startsWith(root + sep)) return send(response, 404, 'Not found.\n', csp);
  let info;
  try {
    info = await stat(file);
    // A symlink under the root is followed only to a file under the root itself.
    const real = await realpath(file);
    const realRoot = await realRootOf(root);
    if (real !== realRoot && !real.startsWith(realRoot + sep)) return send(response, 404, 'Not found.\n', csp);
  } catch {
    return send(response, 404, 'Not found.\n', csp);
  }
  if (info.isDirectory()) {
    // To the folder the request resolved to, by its place under the root: never a location
    // built from the text of the request (which could name another host).
    const location = `/${relative(root, file).split(sep).filter(Boolean).map(encodeURIComponent).join('/')}/`.replace('//', '/');
    return send(response, 301, '', csp, { Location: location });
  }
  response.writeHead(200, {
    'Content-Type': TYPES[extname(file)] ?? 'application/octet-stream',
    'Content-Length': info.size,
    'Content-Security-Policy': policyFor(file, csp),
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-cache',
    'Accept-Ranges': 'none',  // a Range header is answered with the whole file, and says so
  });
  if (request.method === 'HEAD') return response.end();
  // pipeline closes the file when the client goes away mid-transfer (a reset), which pipe() did
  // not: each reset leaked a file descriptor until the server died of EMFILE.
  pipeline(createReadStream(file), response, () => {});
  return undefined;
}

/**
 * Starts the server; resolves to { server, url }. `csp` replaces the policy, e.g. to test the
 * widgets under a host page's own stricter one.
 */
export function startServer({ port = 8080, host = '127.0.0.1', root = ROOT, csp = CONTENT_SECURITY_POLICY } = {}) {
  return new Promise((resolvePromise, reject) => {
    const server = createServer({ maxHeaderSize: MAX_HEADER_BYTES }, (request, response) => {
      handle(request, response, root, csp).catch(() => {
        if (!response.headersSent) send(response, 500, 'Internal error.\n', csp);
        else response.destroy();
      });
    });
    // A client that resets its connection is not the server's problem.
    server.on('clientError', (error, socket) => {
      if (error.code === 'HPE_HEADER_OVERFLOW' && socket.writable) socket.end('HTTP/1.1 431 Request Header Fields Too Large\r\nConnection: close\r\n\r\n');
      // A method Node's parser does not know (BREW) gets the 405 the known ones get.
      else if (error.code === 'HPE_INVALID_METHOD' && socket.writable) socket.end('HTTP/1.1 405 Method Not Allowed\r\nAllow: GET, HEAD\r\nContent-Length: 0\r\nConnection: close\r\n\r\n');
      else socket.destroy();
    });
    server.once('error', reject);
    server.listen(port, host, () => {
      const { port: bound } = server.address();
      resolvePromise({ server, url: `http://${host}:${bound}/` });
    });
  });
}

if (process.argv[1] && resolve(process.argv[1]) === fileURLToPath(import.meta.url)) {
  const text = process.env.PORT ?? '8080';
  const port = Number(text);
  if (!/^\d+$/.test(text.trim()) || port > 65535) {
    console.error(`PORT=${JSON.stringify(text)} is not a port: use a whole number from 0 to 65535 (0 picks a free one).`);
    process.exit(2);
  }
  try {
    const { url } = await startServer({ port });
    console.log(`mha-lens docs page: ${url}  (Ctrl+C to stop)`);
  } catch (error) {
    console.error(`Cannot serve on 127.0.0.1:${port}: ${error.code === 'EADDRINUSE' ? 'the port is in use; set PORT to another.' : error.message}`);
    process.exit(2);
  }
}
