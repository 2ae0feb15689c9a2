import type { JsonObject } from '../core/schemas/json.js';

/**
 * Small keyed JSON documents per tenant and collection: agents, API keys, inspector traces and
 * other records that need get/put/list by id but no search. Collections are plain names chosen by
 * the engine (`agents`, `api-keys`, `traces`); ids are opaque strings, compared by code point.
 *
 * Rules every driver follows:
 * - `get` by (tenant, collection, id) costs O(1) or O(log n) in the collection size, never a scan.
 * - Every write increments `version` by one; a new document starts at version 1.
 * - `expectedVersion` (when given) must equal the stored version, else VersionConflictError and
 *   nothing changes; `expectedVersion: 0` means "must not exist yet".
 * - `list` orders by id (ascending, or descending for `newest-first` use with sortable ids),
 *   filters by an id prefix, and its `total` counts every match, not just the page.
 * - Tenants and collections never see each other's documents.
 * - Results are copies; timestamps are UTC ISO text. After `close()` every call rejects with StoreError.
 */
export interface DocumentStore {
  getDocument(tenantId: string, collection: string, id: string): Promise<StoredDocument | null>;
  /** Creates or replaces the document, atomically. */
  putDocument(
    tenantId: string,
    collection: string,
    id: string,
    value: JsonObject,
    options?: { expectedVersion?: number },
  ): Promise<StoredDocument>;
  /**
   * Creates or replaces the `put` documents and deletes the `delete` ids (absent ones are no
   * error), all in one atomic write: for batches written off the request path (traces), one commit
   * instead of one per document. Optional: without it, callers write one document at a time.
   */
  writeDocuments?(
    tenantId: string,
    collection: string,
    changes: { put: { id: string; value: JsonObject }[]; delete: string[] },
  ): Promise<void>;
  /** Resolves true when a document was deleted. */
  deleteDocument(tenantId: string, collection: string, id: string): Promise<boolean>;
  listDocuments(
    tenantId: string,
    collection: string,
    query: DocumentListQuery,
  ): Promise<{ documents: StoredDocument[]; total: number }>;
  /**
   * Documents of `collection` in every tenant last written before `updatedBefore` (ISO), least
   * recently written first, at most `limit`: for retention sweeps (cursors, marks), never requests.
   */
  listStaleDocuments(
    collection: string,
    updatedBefore: string,
    limit: number,
  ): Promise<{ tenantId: string; document: StoredDocument }[]>;
}

export interface StoredDocument {
  id: string;
  value: JsonObject;
  version: number;
  createdAt: string;
  updatedAt: string;
}

export interface DocumentListQuery {
  /** Only ids starting with this text. */
  prefix?: string;
  order?: 'id-asc' | 'id-desc';
  /**
   * Only ids after this one in `order` (keyset paging: a document deleted meanwhile shifts no
   * other out of the next page, as it would with `offset`). `total` still counts every match.
   */
  after?: string;
  limit: number;
  offset: number;
}
