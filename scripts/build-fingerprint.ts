/**
 * The build's inputs as one SHA-256: every file under src/ and bin/, the build scripts, the
 * manifest, lockfile and TypeScript configs (paths and contents, in a fixed order). postbuild
 * writes it to dist/.build-fingerprint; `prepare` skips the build when dist/ already matches, so
 * the first `npx engram` in a clone (npm links the checkout into its cache and reruns `prepare`)
 * answers at once instead of rebuilding for a minute.
 */
import { createHash } from 'node:crypto';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';

const INPUT_FOLDERS = ['src', 'bin'];
const INPUT_FILES = [
  'package.json',
  'package-lock.json',
  'tsconfig.json',
  'tsconfig.build.json',
  'scripts/build-ui.ts',
  'scripts/copy-build-assets.ts',
  'scripts/build-fingerprint.ts',
];
export const FINGERPRINT_FILE = 'dist/.build-fingerprint';

function filesUnder(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name));
}

/** The fingerprint of the build inputs under `root`. */
export function buildFingerprint(root: string): string {
  const files = [
    ...INPUT_FOLDERS.flatMap((folder) => filesUnder(join(root, folder))),
    ...INPUT_FILES.map((file) => join(root, file)).filter((file) => existsSync(file)),
  ]
    .map((file) => relative(root, file).split('\\').join('/'))
    .sort();
  const hash = createHash('sha256');
  for (const file of files)
    hash
      .update(`${file}\0`)
      .update(readFileSync(join(root, file)))
      .update('\0');
  return hash.digest('hex');
}

/** Whether dist/ was built from exactly the inputs that are there now. */
export function isBuildCurrent(root: string): boolean {
  const stamp = join(root, FINGERPRINT_FILE);
  return existsSync(stamp) && readFileSync(stamp, 'utf8').trim() === buildFingerprint(root);
}
