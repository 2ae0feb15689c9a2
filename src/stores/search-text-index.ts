import type { MemoryFilter } from '../core/schemas/memory-record.js';
import type { Bm25Index } from '../core/text/bm25-index.js';
import type { FilterPartitions } from './filter-partitions.js';
import { type HitTraits, hitTraits, type TextHit } from './memory-record-store.js';

/**
 * `searchText` over an in-process BM25 index whose items are the records (or their filter fields),
 * as the memory driver and SQLite's text mirror hold them: the filter runs inside the index's
 * scoring loop, before the limit (never a truncated list), only the smallest partition the filter
 * names is scored when it holds fewer ids than the query terms' postings, the filter's answer
 * for each document is kept by the index until the document changes (owners report in-place
 * changes with `changed`), and each hit carries its traits from its item.
 */
export function searchTextIndex<Item extends HitTraits>(
  index: Bm25Index<Item>,
  partitions: FilterPartitions<string>,
  accept: (item: Item) => boolean,
  query: string,
  filter: MemoryFilter,
  limit: number,
): TextHit[] {
  const narrowed = partitions.narrowest(filter);
  const hits = index.search(query, limit, (_id, item) => accept(item), {
    candidates: narrowed ? { size: narrowed.size, ids: narrowed.keys, source: narrowed.source } : undefined,
    // Access times change without the index seeing it: such a filter's answers are never kept.
    filterKey: filter.lastAccessed === undefined ? JSON.stringify(filter) : undefined,
  });
  return hits.map(({ id, score, item }) => ({ id, score, traits: hitTraits(item) }));
}
