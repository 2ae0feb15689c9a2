import { VersionConflictError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { DocumentStore, StoredDocument } from '../document-store.js';
import type { PostgresDatabase } from './postgres-database.js';

interface DocumentRow {
  id: string;
  value: JsonObject;
  version: number;
  created_at: number;
  updated_at: number;
}

const toDocument = (row: DocumentRow): StoredDocument => ({
  id: row.id,
  value: row.value,
  version: row.version,
  createdAt: new Date(row.created_at).toISOString(),
  updatedAt: new Date(row.updated_at).toISOString(),
});

const COLUMNS = 'id, value, version, created_at, updated_at';
// starts_with, not LIKE: ids may contain % and _. The primary key bounds the scan to one collection.
const MATCH = 'tenant_id = $1 AND collection = $2 AND starts_with(id, $3)';

/**
 * Documents keyed by (tenant, collection, id): get is a primary-key lookup, and every write is one
 * statement (an upsert, or an update guarded by the expected version), so no transaction is held.
 */
export function createPostgresDocumentStore(database: PostgresDatabase, clock: () => Date): DocumentStore {
  /** The conflict of a guarded write that matched nothing, naming the version now stored. */
  const conflict = async (tenantId: string, collection: string, id: string, expected: number) => {
    const [row] = await database.query<{ version: number }>(
      'SELECT version FROM documents WHERE tenant_id = $1 AND collection = $2 AND id = $3',
      [tenantId, collection, id],
    );
    return new VersionConflictError(expected, row?.version ?? null, 'document');
  };

  return {
    async getDocument(tenantId, collection, id) {
      const [row] = await database.query<DocumentRow>(
        `SELECT ${COLUMNS} FROM documents WHERE tenant_id = $1 AND collection = $2 AND id = $3`,
        [tenantId, collection, id],
      );
      return row ? toDocument(row) : null;
    },

    async putDocument(tenantId, collection, id, value, options = {}) {
      const now = clock().getTime();
      const expected = options.expectedVersion;
      const parameters = [tenantId, collection, id, JSON.stringify(value), now];
      let rows: DocumentRow[];
      if (expected === undefined) {
        rows = await database.query<DocumentRow>(
          `INSERT INTO documents (tenant_id, collection, id, value, version, created_at, updated_at)
          VALUES ($1, $2, $3, $4, 1, $5, $5)
          ON CONFLICT (tenant_id, collection, id)
          DO UPDATE SET value = excluded.value, version = documents.version + 1, updated_at = excluded.updated_at
          RETURNING ${COLUMNS}`,
          parameters,
        );
      } else if (expected === 0) {
        rows = await database.query<DocumentRow>(
          `INSERT INTO documents (tenant_id, collection, id, value, version, created_at, updated_at)
          VALUES ($1, $2, $3, $4, 1, $5, $5) ON CONFLICT DO NOTHING RETURNING ${COLUMNS}`,
          parameters,
        );
      } else {
        rows = await database.query<DocumentRow>(
          `UPDATE documents SET value = $4, version = version + 1, updated_at = $5
          WHERE tenant_id = $1 AND collection = $2 AND id = $3 AND version = $6 RETURNING ${COLUMNS}`,
          [...parameters, expected],
        );
      }
      const [row] = rows;
      if (row) return toDocument(row);
      throw await conflict(tenantId, collection, id, expected ?? 0);
    },

    async deleteDocument(tenantId, collection, id) {
      const rows = await database.query(
        'DELETE FROM documents WHERE tenant_id = $1 AND collection = $2 AND id = $3 RETURNING id',
        [tenantId, collection, id],
      );
      return rows.length > 0;
    },

    async listDocuments(tenantId, collection, query) {
      const direction = query.order === 'id-desc' ? 'DESC' : 'ASC';
      const match = [tenantId, collection, query.prefix ?? ''];
      const [rows, [count]] = await Promise.all([
        database.query<DocumentRow>(
          `SELECT ${COLUMNS} FROM documents WHERE ${MATCH}
          AND ($6::text IS NULL OR id ${direction === 'ASC' ? '>' : '<'} $6) ORDER BY id ${direction} LIMIT $4 OFFSET $5`,
          [...match, Math.max(0, query.limit), Math.max(0, query.offset), query.after ?? null],
        ),
        database.query<{ total: number }>(
          `SELECT count(*)::bigint AS total FROM documents WHERE ${MATCH}`,
          match,
        ),
      ]);
      return { documents: rows.map(toDocument), total: count?.total ?? 0 };
    },

    async writeDocuments(tenantId, collection, changes) {
      if (changes.put.length === 0 && changes.delete.length === 0) return;
      const now = clock().getTime();
      // A batch may name an id twice: the last put wins, as one-at-a-time writes would leave it.
      const puts = new Map(changes.put.map((change) => [change.id, JSON.stringify(change.value)]));
      await database.transaction(async (client) => {
        if (puts.size > 0) {
          await client.query(
            `INSERT INTO documents (tenant_id, collection, id, value, version, created_at, updated_at)
            SELECT $1, $2, put.id, put.value::jsonb, 1, $5, $5 FROM unnest($3::text[], $4::text[]) AS put(id, value)
            ON CONFLICT (tenant_id, collection, id)
            DO UPDATE SET value = excluded.value, version = documents.version + 1, updated_at = excluded.updated_at`,
            [tenantId, collection, [...puts.keys()], [...puts.values()], now],
          );
        }
        if (changes.delete.length > 0) {
          await client.query(
            'DELETE FROM documents WHERE tenant_id = $1 AND collection = $2 AND id = ANY($3::text[])',
            [tenantId, collection, changes.delete],
          );
        }
      });
    },

    async listStaleDocuments(collection, updatedBefore, limit) {
      const rows = await database.query<DocumentRow & { tenant_id: string }>(
        `SELECT tenant_id, ${COLUMNS} FROM documents WHERE collection = $1 AND updated_at < $2
        ORDER BY updated_at LIMIT $3`,
        [collection, Date.parse(updatedBefore), Math.max(0, limit)],
      );
      return rows.map((row) => ({ tenantId: row.tenant_id, document: toDocument(row) }));
    },
  };
}
