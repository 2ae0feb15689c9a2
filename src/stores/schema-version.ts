import { StoreError } from '../core/errors.js';

/**
 * Refuses a database a newer engram has migrated: this one would read and write a schema it does
 * not know (a column it never fills, a table it never updates), so it says to upgrade instead.
 */
export function assertKnownSchema(version: number, all: readonly { version: number }[]): void {
  const newest = Math.max(0, ...all.map((migration) => migration.version));
  if (version > newest) {
    throw new StoreError(
      `The database's schema is at version ${version}, newer than this engram's ${newest}: a newer engram migrated it; upgrade engram to open it`,
    );
  }
}
