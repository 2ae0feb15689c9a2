import { StoreError } from '../../core/errors.js';
import type { DocumentStore, StoredDocument } from '../document-store.js';
import { assertExpectedVersion } from '../session-rules.js';

/** Map key of a document: NUL cannot occur in tenant or collection names, so keys never collide. */
const keyOf = (tenantId: string, collection: string) => `${tenantId}\u0000${collection}`;

const compareIds = (left: string, right: string) => (left < right ? -1 : left > right ? 1 : 0);

/**
 * The in-memory documents of the reference driver: one Map per (tenant, collection), so `get` is
 * O(1); `list` sorts the collection's ids (fine for the small collections documents are for).
 */
export function createMemoryDocumentStore(clock: () => Date, isClosed: () => boolean): DocumentStore {
  const collections = new Map<string, Map<string, StoredDocument>>();
  const ensureOpen = () => {
    if (isClosed()) throw new StoreError('The memory store is closed');
  };

  return {
    async getDocument(tenantId, collection, id) {
      ensureOpen();
      const document = collections.get(keyOf(tenantId, collection))?.get(id);
      return document ? structuredClone(document) : null;
    },

    async putDocument(tenantId, collection, id, value, options = {}) {
      ensureOpen();
      const key = keyOf(tenantId, collection);
      const documents = collections.get(key) ?? new Map<string, StoredDocument>();
      const existing = documents.get(id);
      assertExpectedVersion(options.expectedVersion, existing?.version ?? null, 'document');
      const now = clock().toISOString();
      const document: StoredDocument = {
        id,
        value: structuredClone(value),
        version: (existing?.version ?? 0) + 1,
        createdAt: existing?.createdAt ?? now,
        updatedAt: now,
      };
      documents.set(id, document);
      collections.set(key, documents);
      return structuredClone(document);
    },

    async writeDocuments(tenantId, collection, changes) {
      ensureOpen();
      const key = keyOf(tenantId, collection);
      const documents = collections.get(key) ?? new Map<string, StoredDocument>();
      const now = clock().toISOString();
      for (const { id, value } of changes.put) {
        const existing = documents.get(id);
        documents.set(id, {
          id,
          value: structuredClone(value),
          version: (existing?.version ?? 0) + 1,
          createdAt: existing?.createdAt ?? now,
          updatedAt: now,
        });
      }
      for (const id of changes.delete) documents.delete(id);
      collections.set(key, documents);
    },

    async deleteDocument(tenantId, collection, id) {
      ensureOpen();
      return collections.get(keyOf(tenantId, collection))?.delete(id) ?? false;
    },

    async listDocuments(tenantId, collection, query) {
      ensureOpen();
      const documents = collections.get(keyOf(tenantId, collection));
      const prefix = query.prefix ?? '';
      const ids = [...(documents?.keys() ?? [])].filter((id) => id.startsWith(prefix)).sort(compareIds);
      if (query.order === 'id-desc') ids.reverse();
      const { after } = query;
      const sign = query.order === 'id-desc' ? -1 : 1;
      const rest = after === undefined ? ids : ids.filter((id) => sign * compareIds(id, after) > 0);
      const offset = Math.max(0, query.offset);
      const page = rest.slice(offset, offset + Math.max(0, query.limit));
      return {
        documents: page.map((id) => structuredClone(documents?.get(id) as StoredDocument)),
        total: ids.length,
      };
    },

    async listStaleDocuments(collection, updatedBefore, limit) {
      ensureOpen();
      const before = Date.parse(updatedBefore);
      const stale: { tenantId: string; document: StoredDocument }[] = [];
      for (const [key, documents] of collections) {
        const [tenantId = '', name] = key.split('\u0000');
        if (name !== collection) continue;
        for (const document of documents.values()) {
          if (Date.parse(document.updatedAt) < before) stale.push({ tenantId, document });
        }
      }
      stale.sort((left, right) => Date.parse(left.document.updatedAt) - Date.parse(right.document.updatedAt));
      return stale.slice(0, Math.max(0, limit)).map((entry) => structuredClone(entry));
    },
  };
}
