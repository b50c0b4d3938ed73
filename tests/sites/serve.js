// A plain static server for a built site on 127.0.0.1, as a static host serves one: `/lesson`
// finds lesson.html or lesson/index.html (the clean URLs Docusaurus and Astro link to), a .wasm
// goes out as application/wasm, an unknown path gets the site's 404.html. No CSP: the sites'
// own inline scripts (VitePress, Docusaurus) must run.
import { createReadStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { createServer } from 'node:http';
import { extname, join, normalize, sep } from 'node:path';

const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.json': 'application/json; charset=utf-8', '.wasm': 'application/wasm', '.svg': 'image/svg+xml',
  '.png': 'image/png', '.ico': 'image/x-icon', '.woff2': 'font/woff2', '.txt': 'text/plain; charset=utf-8', '.xml': 'application/xml',
  '.mhat': 'application/octet-stream', '.map': 'application/json',
};

const isFile = async (path) => { try { return (await stat(path)).isFile(); } catch { return false; } };

/** Serves `root`; resolves { url (with a trailing slash), close() }. */
export async function serveStatic(root) {
  const base = normalize(root);
  const server = createServer(async (request, response) => {
    let path;
    try { path = decodeURIComponent(new URL(request.url, 'http://x').pathname); } catch { response.writeHead(400).end(); return; }
    const file = normalize(join(base, path));
    if (file !== base && !file.startsWith(base + sep)) { response.writeHead(404).end(); return; }
    const candidates = path.endsWith('/') ? [join(file, 'index.html')] : [file, `${file}.html`, join(file, 'index.html')];
    let found = null;
    for (const candidate of candidates) if (await isFile(candidate)) { found = candidate; break; }
    let status = 200;
    if (!found && await isFile(join(base, '404.html'))) { found = join(base, '404.html'); status = 404; }
    if (!found) { response.writeHead(404, { 'Content-Type': 'text/plain' }).end('Not found'); return; }
    response.writeHead(status, { 'Content-Type': TYPES[extname(found)] ?? 'application/octet-stream', 'Cache-Control': 'no-cache' });
    createReadStream(found).pipe(response);
  });
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${server.address().port}/`, close: () => new Promise((resolve) => { server.closeAllConnections?.(); server.close(resolve); }) };
}

/** A free port on 127.0.0.1 (for a dev server that wants one named). */
export async function freePort() {
  const server = createServer();
  await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address();
  await new Promise((resolve) => server.close(resolve));
  return port;
}
