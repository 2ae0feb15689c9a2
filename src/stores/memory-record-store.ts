import type { MemoryFilter, MemoryRecord, MemoryVersion } from '../core/schemas/memory-record.js';

/**
 * What hybrid search needs to know of a hit before it reads the record: whether it belongs to a
 * conversation (it may lend context to its neighbours) and which entities it names. With both
 * known for every hit, search reads only the records that can still reach the page instead of the
 * whole candidate pool (`hybrid-search.ts`). A driver that holds these fields at hand returns them;
 * one that would need another read leaves them out (search then reads the whole pool).
 */
export interface HitTraits {
  sessionId: string | null;
  entities: readonly string[];
}

/** A text search hit: BM25 score, higher is better. */
export interface TextHit {
  id: string;
  score: number;
  traits?: HitTraits;
}

/** A vector search hit: cosine distance, lower is better. */
export interface VectorHit {
  id: string;
  distance: number;
  traits?: HitTraits;
}

/** A hit's traits, copied out of a record or row (the copy keeps results independent of the store). */
export function hitTraits(row: { sessionId: string | null; entities: readonly string[] }): HitTraits {
  return { sessionId: row.sessionId, entities: [...row.entities] };
}

/**
 * The long-term memory part of the store contract. Drivers store records, their embeddings and a
 * text index; ranking, fusion and embedding happen above them (src/retrieval). Every call is
 * scoped to one tenant: an id from another tenant behaves as absent.
 *
 * Rules every driver follows:
 * - `insertMemories` is atomic: all records are written or none (a failure leaves nothing).
 * - A record whose `memoryHash` equals that of a current record of the same tenant is not inserted
 *   again; the existing record is returned in `duplicates` (documented deduplication). This check
 *   comes first, so retrying an already stored record is a duplicate, not an error. Within one
 *   batch, a later record with the hash of an earlier one is a duplicate of it. A closed (merged
 *   away) record is no longer current, so it blocks nothing. The hash's scope (which owner fields
 *   it covers) is the engine's choice (`memory-hash.ts`); the store only compares hashes.
 *   `{ deduplicate: false }` skips this check: every record is inserted.
 * - An id the tenant already holds (current or closed), or that repeats within a batch, is a
 *   ValidationError. Ids are unique per tenant; two tenants may use the same id.
 * - A memory's id is stable: `updateMemory` writes its next version in place (version + 1) and
 *   keeps the prior version in the memory's history, in the same transaction. Searches, listings
 *   and the indexes only ever see current versions; history is read by `memoryHistory`.
 * - Merges are the one use of `supersede`: it inserts a new memory and closes the old one
 *   (`supersededBy`, `validTo`) in the same transaction; the closed one stays readable by id.
 * - Filters are applied before ranking and limits, so `total` counts every match (the filter
 *   rules are spelled out in `memory-filter.ts`).
 * - Timestamps come back in UTC `toISOString` form (an offset given on write is normalized).
 * - A model identity names one vector space: within a tenant, the first vector stored for a model
 *   fixes its dimensions, and a vector of another length for that model is a ValidationError.
 * - Results are copies: mutating one (or an input after the call) never changes the store.
 * - After the store that owns the backend is closed, every call rejects with StoreError.
 */
export interface MemoryRecordStore {
  readonly capabilities: MemoryRecordCapabilities;

  /** Inserts new memories (version 1 each); see the deduplication rule above. */
  insertMemories(
    tenantId: string,
    records: NewMemoryRecord[],
    options?: InsertOptions,
  ): Promise<InsertResult>;
  /** The records among `ids` that exist, in the order of `ids` (repeats once); absent ids are skipped. */
  getMemories(tenantId: string, ids: string[]): Promise<MemoryRecord[]>;
  /**
   * Writes the next version of the memory `id`, keeping its id. The prior version goes to the
   * memory's history with `validTo` = the new `validFrom` (raised to the prior `validFrom` if the
   * caller's clock is behind, so versions never overlap). The record keeps `id`, `createdAt`,
   * `accessCount`, `lastAccessed`, `persistedAt` and `supersedes`; takes every field of `next`;
   * `version` becomes the prior one + 1. `next.embedding` replaces the stored vector (null: none,
   * and `findUnembedded` lists it). No deduplication applies. NotFoundError if `id` is absent;
   * conflict `already_superseded` if it was merged away (closed); VersionConflictError
   * (`version_conflict`) if `options.expectedVersion` is given and is not the current version.
   */
  updateMemory(
    tenantId: string,
    id: string,
    next: MemoryUpdate,
    options?: UpdateOptions,
  ): Promise<MemoryRecord>;
  /**
   * A page of the versions of the memory `id`, newest first: the current one (`validTo` null,
   * unless the memory was merged away) and then its history, from below `range.before` when given,
   * at most `range.limit` (default 100) and, past the first version, only while their texts total at
   * most `range.maxChars` (no bound when absent). `nextBefore` is the `before` of the next page,
   * null once the page reaches the oldest version. No versions when the memory is absent.
   */
  memoryHistory(tenantId: string, id: string, range?: HistoryRange): Promise<MemoryHistory>;
  /**
   * Merges: inserts `replacement` as a new memory (its `supersedes` is set to `id`, version 1),
   * and closes `id`: `supersededBy` = the replacement's id, `validTo` = its `validFrom`.
   * NotFoundError if `id` is absent; conflict `already_superseded` if it is not current. No
   * deduplication applies.
   */
  supersede(tenantId: string, id: string, replacement: NewMemoryRecord): Promise<MemoryRecord>;
  /**
   * Deletes records with their history (and their embeddings and index entries); resolves how
   * many were deleted. Memories merged into a deleted one, or it into them, stay as they are.
   */
  deleteMemories(tenantId: string, ids: string[]): Promise<number>;
  /** How many records match `filter`: `listMemories`' total without ordering or fetching any. */
  countMemories(tenantId: string, filter: MemoryFilter): Promise<number>;
  listMemories(
    tenantId: string,
    filter: MemoryFilter,
    page: MemoryPage,
  ): Promise<{ memories: MemoryRecord[]; total: number }>;
  /**
   * BM25 over record text, best first; scores are higher-is-better. The query is analyzed into
   * words (stopwords dropped) and never interpreted as query syntax; no words or no match gives [].
   * Hits may carry their `traits` (the record's session and entities); a driver returns them for
   * every hit of a call or for none.
   */
  searchText(tenantId: string, query: string, filter: MemoryFilter, limit: number): Promise<TextHit[]>;
  /**
   * Nearest neighbours by cosine distance (0 = same direction, 2 = opposite) among records whose
   * embedding was made by `model`. Nearest first, ties by id. [] when the tenant has no vector of
   * `model`; a vector whose length is not the model's dimensions is a ValidationError. A zero vector
   * is at distance 1 from anything. Hits may carry their `traits`, as `searchText`'s do.
   *
   * Exact or approximate, by one rule in every driver (`vector-collection.ts`):
   * - Exact when at most 5,000 records of the model pass the filter (a small tenant, or a narrow
   *   filter such as a few ids), and for a zero query: the true nearest, as brute force gives them.
   * - Otherwise from an IVF index (`src/core/vectors/ivf-index.ts`): only records the filter accepts
   *   are candidates (it is never applied after the limit), every distance is exact, and `limit`
   *   results come back whenever that many records match; a true near neighbour can be missed
   *   (recall@10 ≈ 0.99 on topical embeddings at 100,000 records: see bench/memory-search.ts).
   *   A driver may answer exactly instead where that is cheaper (a filter naming a small partition).
   * - The SQLite driver also searches exactly, in SQL, filters on `lastAccessed` (which its
   *   in-process index does not follow) and a tenant whose index is still loading.
   */
  searchVector(
    tenantId: string,
    vector: Float32Array,
    model: string,
    filter: MemoryFilter,
    limit: number,
  ): Promise<VectorHit[]>;
  /**
   * Conversational adjacency. For each of `ids` that names a record of the tenant with a
   * `sessionId`, the records next to it in that session among those `filter` accepts: up to `window`
   * before it and up to `window` after it, each side nearest first. A session's order is creation
   * time, then id by code point (the `created_asc` listing order). The record itself never counts
   * as its own neighbour and need not pass the filter: its place is where it would sort. Absent
   * ids and records without a session get no entry; entries follow `ids` (repeats once).
   */
  sessionNeighbors(
    tenantId: string,
    ids: string[],
    filter: MemoryFilter,
    window: number,
  ): Promise<SessionNeighbors[]>;
  /**
   * An opaque token that changes whenever a record of the tenant is inserted, superseded, deleted
   * or re-embedded (access statistics do not count); it may also change for other reasons (a
   * write to another tenant). What a caller derived from the records stays valid while it is
   * unchanged, so per-turn readers cache on it. Optional: a driver without it gets no caching.
   */
  memoryRevision?(tenantId: string): Promise<string>;
  /**
   * Bumps access counts by `times` (a positive integer; default 1) and sets `lastAccessed` to `at`
   * (search hits, working-set use); unknown ids are ignored and an id listed twice counts once.
   * `times` lets a batch of uses be written in one call per distinct count, not one per use.
   */
  recordAccess(tenantId: string, ids: string[], at: string, times?: number): Promise<void>;
  /** Ids (oldest first) of current records with no embedding from `model`: what to re-embed. */
  findUnembedded(tenantId: string, model: string, limit: number): Promise<{ id: string; text: string }[]>;
  /** Replaces each record's embedding (one per record) with this model's; unknown ids are ignored. */
  setEmbeddings(
    tenantId: string,
    model: string,
    embeddings: { id: string; vector: Float32Array }[],
  ): Promise<void>;
}

export interface MemoryRecordCapabilities {
  /**
   * How searchVector is computed: `brute-force` scans every filtered record (exact); `index` is
   * exact for small candidate sets and an approximate index above them (see `searchVector`).
   */
  vectorSearch: 'brute-force' | 'index';
  /** Where exact scans compute cosine distances: in JavaScript, or by SQLite's sqlite-vec extension. */
  vectorDistance?: 'javascript' | 'sqlite-vec';
}

/** A record ready to store: the engine fills ids, hashes, timestamps and the embedding. */
export type NewMemoryRecord = Omit<
  MemoryRecord,
  'tenantId' | 'supersededBy' | 'validTo' | 'embeddingModel' | 'version'
> & {
  embedding: { model: string; vector: Float32Array } | null;
};

/** The next version of a memory (see `updateMemory`): everything that a version changes. */
export type MemoryUpdate = Omit<
  NewMemoryRecord,
  'id' | 'createdAt' | 'lastAccessed' | 'accessCount' | 'persistedAt' | 'supersedes'
>;

export interface InsertOptions {
  /** Default true: a record with the hash of a current record is not inserted (see above). */
  deduplicate?: boolean;
}

export interface UpdateOptions {
  /** Optimistic concurrency: the version the caller read; another is a VersionConflictError. */
  expectedVersion?: number;
}

export interface InsertResult {
  inserted: MemoryRecord[];
  /** Inputs not inserted because an identical current record exists: that record. */
  duplicates: { requestedId: string; existing: MemoryRecord }[];
}

/** A record's neighbours in its session (see `sessionNeighbors`). */
export interface SessionNeighbors {
  id: string;
  sessionId: string;
  /** Ids of the records before it, nearest first. */
  before: string[];
  /** Ids of the records after it, nearest first. */
  after: string[];
}

/** Which versions one `memoryHistory` call reads. */
export interface HistoryRange {
  /** At most this many versions (default 100, at most `HISTORY_LIMIT.max`). */
  limit?: number;
  /** Only versions numbered below this one: the previous page's `nextBefore`. */
  before?: number;
  /**
   * Past the first version, stop before a version whose text would take the page's texts past this
   * many characters: bounds a page's size when every version is long (20,000 characters each).
   */
  maxChars?: number;
}

/** A page of a memory's versions (see `memoryHistory`). */
export interface MemoryHistory {
  versions: MemoryVersion[];
  /** The `before` of the next page; null when these versions reach the oldest one. */
  nextBefore: number | null;
}

export interface MemoryPage {
  limit: number;
  offset: number;
  /** Default `created_desc`. */
  order?: 'created_desc' | 'created_asc' | 'last_accessed_desc';
}
