// Scratch folders for the consumer sites: one per site and set of pinned packages, installed from
// the npm registry through npm's own cache and kept between runs (a second run installs nothing),
// with everything but node_modules laid anew each run and the package tarball extracted fresh
// into node_modules/mha-lens, as `npm install mha-lens` would put it. Each run also drops the
// bundlers' caches (.vite, .astro, .cache), which would otherwise keep a stale copy of the package.
import { spawn } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync } from 'node:fs';
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';

/** Where the scratch folders live: MHA_LENS_SITES_DIR, else the system's temporary folder. */
export const SCRATCH = process.env.MHA_LENS_SITES_DIR ?? join(tmpdir(), 'mha-lens-sites');

const MARK = '.mha-lens-installed';

/**
 * Runs `command` in `cwd`; resolves { code, output, ms } (stdout and stderr together), never
 * rejects. Killed (with its children) after `timeout` ms.
 */
export function exec(command, args, { cwd, env = {}, timeout = 300_000 } = {}) {
  const started = Date.now();
  return new Promise((resolve) => {
    const child = spawn(command, args, { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout.on('data', (d) => { output += d; });
    child.stderr.on('data', (d) => { output += d; });
    const timer = setTimeout(() => { output += `\n[killed after ${timeout} ms]`; try { process.kill(-child.pid, 'SIGKILL'); } catch {} }, timeout);
    child.on('error', (error) => { clearTimeout(timer); resolve({ code: -1, output: `${output}${error.message}`, ms: Date.now() - started }); });
    // Some tools colour their output whatever NO_COLOR says.
    child.on('close', (code) => { clearTimeout(timer); resolve({ code, output: output.replace(/\x1b\[[0-9;]*m/g, ''), ms: Date.now() - started }); });
  });
}

/**
 * Starts a long-running command (a dev server); resolves once its output matches `ready` (or
 * rejects after `timeout` ms): { child, output(), stop() }.
 */
export function startProcess(command, args, { cwd, env = {}, ready, timeout = 120_000 }) {
  const child = spawn(command, args, { cwd, env: { ...process.env, CI: 'true', NO_COLOR: '1', FORCE_COLOR: '0', BROWSER: 'none', ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let text = '';
  const output = () => text.replace(/\x1b\[[0-9;]*m/g, '');
  const stop = () => new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('close', () => resolve());
    try { process.kill(-child.pid, 'SIGTERM'); } catch { resolve(); }
    setTimeout(() => { try { process.kill(-child.pid, 'SIGKILL'); } catch {} }, 5000).unref();
  });
  return new Promise((resolve, reject) => {
    const timer = setTimeout(async () => { await stop(); reject(new Error(`not ready after ${timeout} ms:\n${output().slice(-2000)}`)); }, timeout);
    const onData = (d) => {
      text += d;
      if (ready.test(output())) {
        clearTimeout(timer);
        resolve({ child, output, stop });
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('close', (code) => { clearTimeout(timer); reject(new Error(`exited with ${code} before it was ready:\n${output().slice(-2000)}`)); });
  });
}

// The site's package.json: its pinned packages, and its module type (none for Docusaurus, as its
// own template has it: its generated routes call webpack's require.resolveWeak, which webpack
// does not give an ES module, and mix import with require, which it refuses in CommonJS).
const manifest = (name, packages, type) => `${JSON.stringify({ name: `mha-lens-site-${name}`, private: true, ...(type ? { type } : {}), dependencies: packages }, null, 2)}\n`;

const hashOf = (packages) => createHash('sha256').update(JSON.stringify(Object.entries(packages).sort())).digest('hex').slice(0, 10);

/**
 * The scratch folder of `name` with `packages` ({ name: exact version }) installed (`type`: the
 * package.json's module type, null for none): installs only
 * when the folder has not got exactly these yet. Returns { dir, installed (true if it installed
 * now), ms, output } or throws with npm's output.
 */
export async function prepare(name, packages, { tarball, type = 'module' }) {
  const dir = join(SCRATCH, `${name}-${hashOf(packages)}`);
  const started = Date.now();
  let installed = false;
  let output = '';
  await mkdir(dir, { recursive: true });
  const mark = join(dir, 'node_modules', MARK);
  if (!existsSync(mark) || (await readFile(mark, 'utf8')) !== JSON.stringify(packages)) {
    await rm(join(dir, 'node_modules'), { recursive: true, force: true });
    await rm(join(dir, 'package-lock.json'), { force: true });
    await writeFile(join(dir, 'package.json'), manifest(name, packages, type));
    const result = await exec('npm', ['install', '--prefer-offline', '--no-audit', '--no-fund', '--loglevel=error'], { cwd: dir, timeout: 900_000 });
    output = result.output;
    if (result.code !== 0) throw new Error(`npm install failed (${result.code}):\n${result.output.slice(-3000)}`);
    await writeFile(mark, JSON.stringify(packages));
    installed = true;
  }
  await writeFile(join(dir, 'package.json'), manifest(name, packages, type));
  // A fresh site: nothing left from the last run but the installed packages.
  for (const entry of await readdir(dir)) if (!['node_modules', 'package.json', 'package-lock.json'].includes(entry)) await rm(join(dir, entry), { recursive: true, force: true });
  for (const cache of ['.vite', '.cache', '.astro', 'mha-lens']) await rm(join(dir, 'node_modules', cache), { recursive: true, force: true });
  const target = join(dir, 'node_modules', 'mha-lens');
  await mkdir(target, { recursive: true });
  const untar = await exec('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  if (untar.code !== 0) throw new Error(`tar: ${untar.output}`);
  return { dir, installed, ms: Date.now() - started, output };
}

/** Writes `files` ({ relative path: text }) under `dir`. */
export async function writeFiles(dir, files) {
  for (const [path, text] of Object.entries(files)) {
    await mkdir(dirname(join(dir, path)), { recursive: true });
    await writeFile(join(dir, path), text);
  }
}
