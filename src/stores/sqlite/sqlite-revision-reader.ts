import type { SessionKey } from '../../core/schemas/session.js';
import { isExpired, sessionKeyId } from '../session-rules.js';
import { toStoreFailure } from './open-database.js';
import type { RevisionTuple } from './statements.js';

/** What `sessionRevision` reads, from the session_key index alone: no row decoding. */
export const SELECT_REVISION_SQL =
  'SELECT incarnation, version, expires_at FROM sessions WHERE session_key = ?';

/** A session's revision (`incarnation.version`), or null when it is absent or expired at `nowMs`. */
export function sessionRevisionOf(row: RevisionTuple | undefined, nowMs: number): string | null {
  if (!row || isExpired(row[2], nowMs)) return null;
  return `${row[0]}.${row[1]}`;
}

/** `sessionRevision` on a connection of its own, in the thread that opened it. */
export interface SqliteRevisionReader {
  sessionRevision(key: SessionKey): Promise<string | null>;
  close(): void;
}

/**
 * Opens a read-only connection to a SQLite file that a store (usually in its own thread, see
 * `worker-store.ts`) has already opened and migrated, for the one read the server makes on nearly
 * every cached GET: one index lookup, about 13 µs here, where a round trip to the store thread
 * costs about 130 µs. WAL readers never wait for the writer, and a read sees every commit made
 * before it, so the answer is the store's own.
 */
export async function openSqliteRevisionReader(
  path: string,
  clock: () => Date,
): Promise<SqliteRevisionReader> {
  const { default: Database } = await import('better-sqlite3');
  const database = new Database(path, { readonly: true, fileMustExist: true });
  database.pragma('busy_timeout = 5000');
  const select = database.prepare<[string], RevisionTuple>(SELECT_REVISION_SQL).raw(true);
  return {
    sessionRevision: async (key) => {
      try {
        return sessionRevisionOf(select.get(sessionKeyId(key)), clock().getTime());
      } catch (error) {
        throw toStoreFailure(error);
      }
    },
    close: () => database.close(),
  };
}
