import type { SessionKey } from '../../core/schemas/session.js';

/** One cached GET working-memory answer: valid while the session's store revision is unchanged. */
export interface CachedResponse {
  /** The session the answer was read from (validated; the exact key, never the AMS fallback). */
  key: SessionKey;
  /** `store.sessionRevision(key)` read before the session was: a later write makes it stale. */
  revision: string;
  etag: string;
  /** The serialized JSON body in the chunks it was encoded in (`serializeInSlices`), sent as is. */
  body: readonly Buffer[];
}

/** Bounds of the cache: entries and bytes of body; bigger bodies are never cached. */
export interface ResponseCacheLimits {
  maxEntries: number;
  maxBytes: number;
  maxEntryBytes: number;
}

export const defaultResponseCacheLimits: ResponseCacheLimits = {
  maxEntries: 1_000,
  maxBytes: 32 * 1024 * 1024,
  maxEntryBytes: 1024 * 1024,
};

const sizeOf = (entry: CachedResponse) => entry.body.reduce((sum, chunk) => sum + chunk.length, 0);

/**
 * A bounded LRU of serialized GET working-memory answers, keyed by tenant and raw request URL (the
 * path and query determine the answer, so a hit needs no parsing or validation). The caller checks
 * an entry's revision against the store before using it, so the cache is never a source of truth:
 * another process's writes change the revision too.
 */
export function createResponseCache(limits: ResponseCacheLimits = defaultResponseCacheLimits) {
  // A Map iterates in insertion order: re-inserting on a hit keeps the least recent first.
  const entries = new Map<string, CachedResponse>();
  let bytes = 0;
  // The most recently used key: a client asking for the same URL again needs no re-insertion.
  let newest: string | undefined;
  const remove = (cacheKey: string) => {
    const entry = entries.get(cacheKey);
    if (!entry) return;
    entries.delete(cacheKey);
    bytes -= sizeOf(entry);
    if (cacheKey === newest) newest = undefined;
  };
  return {
    /** The injective cache key of a request: a tenant id may contain any character. */
    keyOf: (tenantId: string, url: string): string => `${tenantId.length}:${tenantId}${url}`,
    get(cacheKey: string): CachedResponse | undefined {
      const entry = entries.get(cacheKey);
      if (entry && cacheKey !== newest) {
        entries.delete(cacheKey);
        entries.set(cacheKey, entry);
        newest = cacheKey;
      }
      return entry;
    },
    set(cacheKey: string, entry: CachedResponse): void {
      remove(cacheKey);
      const size = sizeOf(entry);
      if (size > limits.maxEntryBytes) return;
      entries.set(cacheKey, entry);
      newest = cacheKey;
      bytes += size;
      for (const oldest of entries.keys()) {
        if (entries.size <= limits.maxEntries && bytes <= limits.maxBytes) break;
        remove(oldest);
      }
    },
    delete: remove,
    get size() {
      return { entries: entries.size, bytes };
    },
  };
}

export type ResponseCache = ReturnType<typeof createResponseCache>;
