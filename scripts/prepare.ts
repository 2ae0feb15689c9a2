/**
 * `npm install`'s `prepare`: builds the package (`npm run build`) unless dist/ already matches the
 * sources (scripts/build-fingerprint.ts).
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { isBuildCurrent } from './build-fingerprint.js';

const root = fileURLToPath(new URL('..', import.meta.url));
if (isBuildCurrent(root)) {
  console.log('dist/ is up to date with the sources: nothing to build');
} else {
  const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'inherit' });
  process.exit(build.status ?? 1);
}
