import type { Database } from 'better-sqlite3';
import type { JsonObject } from '../../core/schemas/json.js';
import type { DocumentStore, StoredDocument } from '../document-store.js';
import { assertExpectedVersion } from '../session-rules.js';

interface DocumentRow {
  id: string;
  value: string;
  version: number;
  created_at: number;
  updated_at: number;
}

const toDocument = (row: DocumentRow): StoredDocument => ({
  id: row.id,
  value: JSON.parse(row.value) as JsonObject,
  version: row.version,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const COLUMNS = 'id, value, version, created_at, updated_at';
// Prefix match by substr, not LIKE: ids may contain % and _. The primary key bounds the scan to
// one (tenant, collection).
const MATCH = 'tenant_id = :tenant AND collection = :collection AND substr(id, 1, length(:prefix)) = :prefix';

/**
 * Documents in the `documents` table (migration 5), keyed by (tenant, collection, id): get is a
 * primary-key lookup. `guarded` runs work unless the store is closed and maps SQLite failures.
 */
export function createSqliteDocumentStore(
  database: Database,
  clock: () => Date,
  guarded: <T>(work: () => T) => Promise<T>,
): DocumentStore {
  const select = database.prepare<[string, string, string], DocumentRow>(
    `SELECT ${COLUMNS} FROM documents WHERE tenant_id = ? AND collection = ? AND id = ?`,
  );
  const upsert = database.prepare<[string, string, string, string, number, number, number], DocumentRow>(
    `INSERT INTO documents (tenant_id, collection, id, value, version, created_at, updated_at)
     VALUES (?, ?, ?, ?, ?, ?, ?)
     ON CONFLICT (tenant_id, collection, id)
     DO UPDATE SET value = excluded.value, version = excluded.version, updated_at = excluded.updated_at
     RETURNING ${COLUMNS}`,
  );
  const remove = database.prepare<[string, string, string]>(
    'DELETE FROM documents WHERE tenant_id = ? AND collection = ? AND id = ?',
  );
  const pageStatement = (direction: 'ASC' | 'DESC') =>
    database.prepare<Record<string, unknown>, DocumentRow>(
      `SELECT ${COLUMNS} FROM documents WHERE ${MATCH}
       AND (:after IS NULL OR id ${direction === 'ASC' ? '>' : '<'} :after)
       ORDER BY id ${direction} LIMIT :limit OFFSET :offset`,
    );
  const pages = { 'id-asc': pageStatement('ASC'), 'id-desc': pageStatement('DESC') };
  const count = database.prepare<Record<string, unknown>, { total: number }>(
    `SELECT count(*) AS total FROM documents WHERE ${MATCH}`,
  );

  const stale = database.prepare<Record<string, unknown>, DocumentRow & { tenant_id: string }>(
    `SELECT tenant_id, ${COLUMNS} FROM documents INDEXED BY documents_by_update
     WHERE collection = :collection AND updated_at < :before ORDER BY updated_at LIMIT :limit`,
  );

  const put = database.transaction(
    (tenantId: string, collection: string, id: string, value: JsonObject, expected?: number) => {
      const existing = select.get(tenantId, collection, id);
      assertExpectedVersion(expected, existing?.version ?? null, 'document');
      const now = clock().getTime();
      const row = upsert.get(
        tenantId,
        collection,
        id,
        JSON.stringify(value),
        (existing?.version ?? 0) + 1,
        now,
        now,
      );
      return toDocument(row as DocumentRow);
    },
  );

  const write = database.transaction(
    (
      tenantId: string,
      collection: string,
      changes: { put: { id: string; value: JsonObject }[]; delete: string[] },
    ) => {
      for (const { id, value } of changes.put) put(tenantId, collection, id, value);
      for (const id of changes.delete) remove.run(tenantId, collection, id);
    },
  );

  return {
    getDocument: (tenantId, collection, id) =>
      guarded(() => {
        const row = select.get(tenantId, collection, id);
        return row ? toDocument(row) : null;
      }),
    putDocument: (tenantId, collection, id, value, options = {}) =>
      guarded(() => put.immediate(tenantId, collection, id, value, options.expectedVersion)),
    writeDocuments: (tenantId, collection, changes) =>
      guarded(() => write.immediate(tenantId, collection, changes)),
    deleteDocument: (tenantId, collection, id) =>
      guarded(() => remove.run(tenantId, collection, id).changes > 0),
    listDocuments: (tenantId, collection, query) =>
      guarded(() => {
        const match = { tenant: tenantId, collection, prefix: query.prefix ?? '' };
        const rows = pages[query.order ?? 'id-asc'].all({
          ...match,
          after: query.after ?? null,
          limit: Math.max(0, query.limit),
          offset: Math.max(0, query.offset),
        });
        return { documents: rows.map(toDocument), total: count.get(match)?.total ?? 0 };
      }),
    listStaleDocuments: (collection, updatedBefore, limit) =>
      guarded(() =>
        stale
          .all({ collection, before: Date.parse(updatedBefore), limit: Math.max(0, limit) })
          .map((row) => ({ tenantId: row.tenant_id, document: toDocument(row) })),
      ),
  };
}
