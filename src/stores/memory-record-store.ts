import type { MemoryFilter, MemoryRecord } from '../core/schemas/memory-record.js';

/**
 * The long-term memory part of the store contract. Drivers store records, their embeddings and a
 * text index; ranking, fusion and embedding happen above them (src/retrieval). Every call is
 * scoped to one tenant: an id from another tenant behaves as absent.
 *
 * Rules every driver follows:
 * - `insertMemories` is atomic: all records are written or none (a failure leaves nothing).
 * - A record whose `memoryHash` equals that of a current record of the same tenant is not inserted
 *   again; the existing record is returned in `duplicates` (documented deduplication).
 * - Nothing is deleted by versioning: `supersede` inserts the new version, and closes the old one
 *   (`supersededBy`, `validTo`) in the same transaction.
 * - Filters are applied before ranking and limits, so `total` counts every match.
 */
export interface MemoryRecordStore {
  readonly capabilities: MemoryRecordCapabilities;

  insertMemories(tenantId: string, records: NewMemoryRecord[]): Promise<InsertResult>;
  getMemories(tenantId: string, ids: string[]): Promise<MemoryRecord[]>;
  /** Inserts `replacement` as the new version of `id`. NotFoundError if `id` is absent; conflict if already superseded. */
  supersede(tenantId: string, id: string, replacement: NewMemoryRecord): Promise<MemoryRecord>;
  /** Deletes records (and their embeddings and index entries); resolves how many were deleted. */
  deleteMemories(tenantId: string, ids: string[]): Promise<number>;
  listMemories(
    tenantId: string,
    filter: MemoryFilter,
    page: MemoryPage,
  ): Promise<{ memories: MemoryRecord[]; total: number }>;
  /** BM25 over record text, best first; scores are higher-is-better. */
  searchText(tenantId: string, query: string, filter: MemoryFilter, limit: number): Promise<ScoredId[]>;
  /**
   * Nearest neighbours by cosine distance (0 = same direction, 2 = opposite) among records whose
   * embedding was made by `model`. Exact (brute force over the filtered records) in both drivers.
   */
  searchVector(
    tenantId: string,
    vector: Float32Array,
    model: string,
    filter: MemoryFilter,
    limit: number,
  ): Promise<{ id: string; distance: number }[]>;
  /** Bumps access counts and `lastAccessed` (search hits, working-set use). */
  recordAccess(tenantId: string, ids: string[], at: string): Promise<void>;
  /** Ids (oldest first) of current records with no embedding from `model`: what to re-embed. */
  findUnembedded(tenantId: string, model: string, limit: number): Promise<{ id: string; text: string }[]>;
  setEmbeddings(
    tenantId: string,
    model: string,
    embeddings: { id: string; vector: Float32Array }[],
  ): Promise<void>;
}

export interface MemoryRecordCapabilities {
  /** How searchVector is computed, for docs and planning: all drivers are exact today. */
  vectorSearch: 'brute-force' | 'index';
}

/** A record ready to store: the engine fills ids, hashes, timestamps and the embedding. */
export type NewMemoryRecord = Omit<
  MemoryRecord,
  'tenantId' | 'supersededBy' | 'validTo' | 'embeddingModel'
> & {
  embedding: { model: string; vector: Float32Array } | null;
};

export interface InsertResult {
  inserted: MemoryRecord[];
  /** Inputs not inserted because an identical current record exists: that record. */
  duplicates: { requestedId: string; existing: MemoryRecord }[];
}

export interface ScoredId {
  id: string;
  score: number;
}

export interface MemoryPage {
  limit: number;
  offset: number;
  /** Default `created_desc`. */
  order?: 'created_desc' | 'created_asc' | 'last_accessed_desc';
}
