// The package as npm publishes it, for the tests that use it the way an author would: `npm pack`
// into a temporary folder (scripts/build.sh has already built web/dist, which `prepack` would
// otherwise build), and installs of the tarball into temporary apps. Not a test file itself.
import { execFile } from 'node:child_process';
import { mkdir, mkdtemp, rm, symlink } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

export const ROOT = new URL('../../', import.meta.url).pathname;
const run = promisify(execFile);

/** Packs the package: { tarball, files (paths in it), dir (remove it when done) }. */
export async function pack() {
  const dir = await mkdtemp(join(tmpdir(), 'mha-lens-pack-'));
  // --ignore-scripts: prepack is scripts/build.sh, which npm test ran just before the tests.
  const { stdout } = await run('npm', ['pack', '--ignore-scripts', '--json', '--pack-destination', dir], { cwd: ROOT, maxBuffer: 16 * 2 ** 20 });
  const [info] = JSON.parse(stdout);
  return { tarball: join(dir, info.filename), files: info.files.map((file) => file.path), dir };
}

/**
 * A new app folder with the tarball installed as node_modules/mha-lens (extracted as npm would:
 * the package has no dependencies), and `links` (names of the repository's node_modules, such as
 * @types/react) linked in beside it.
 */
export async function appWith(tarball, { prefix = 'mha-lens-app-', links = [] } = {}) {
  const app = await mkdtemp(join(tmpdir(), prefix));
  const target = join(app, 'node_modules', 'mha-lens');
  await mkdir(target, { recursive: true });
  await run('tar', ['-xzf', tarball, '-C', target, '--strip-components=1']);
  for (const name of links) {
    await mkdir(join(app, 'node_modules', name, '..'), { recursive: true });
    await symlink(join(ROOT, 'node_modules', name), join(app, 'node_modules', name));
  }
  return app;
}

export const remove = (path) => rm(path, { recursive: true, force: true });
