import { accessSync, constants, existsSync, statSync } from 'node:fs';
import { dirname, resolve } from 'node:path';

/**
 * Why a SQLite file that does not exist yet could not be created at `path`, or null when it can:
 * the store creates missing directories on its first write, so what decides is the nearest
 * ancestor that exists: it must be a directory this process may write to.
 */
export function databasePathProblem(path: string): string | null {
  let ancestor = dirname(resolve(path));
  while (!existsSync(ancestor)) {
    const parent = dirname(ancestor);
    if (parent === ancestor) break;
    ancestor = parent;
  }
  if (!statSync(ancestor).isDirectory()) return `cannot be created: ${ancestor} is not a directory`;
  try {
    accessSync(ancestor, constants.W_OK);
  } catch {
    return `cannot be created: ${ancestor} is not writable`;
  }
  return null;
}
