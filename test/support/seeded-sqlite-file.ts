import { join } from 'node:path';
import type { Database } from 'better-sqlite3';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { openDatabase } from '../../src/stores/sqlite/open-database.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';

/**
 * A SQLite store file in `directory`, written by `seed`, and a second connection to the same file
 * for a cache under test (`use` gets both); both are closed when `use` settles.
 */
export async function withSeededSqliteFile(
  directory: string,
  seed: (writer: EngramStore) => Promise<void>,
  use: (database: Database, writer: EngramStore) => Promise<void> | void,
): Promise<void> {
  const writer = await createSqliteStore({ path: join(directory, 'engram.db') });
  try {
    await seed(writer);
    const database = await openDatabase(join(directory, 'engram.db'));
    try {
      await use(database, writer);
    } finally {
      database.close();
    }
  } finally {
    await writer.close();
  }
}
