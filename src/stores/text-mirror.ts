import { Bm25Index } from '../core/text/bm25-index.js';
import { FilterPartitions } from './filter-partitions.js';
import type { StableMemoryFields } from './memory-filter.js';

/**
 * Documents held across all tenants' text mirrors of one cache (about 700 bytes each with their
 * filter fields and postings): past it, the least recently searched tenants' mirrors are dropped
 * (the driver's SQL text search serves them until they are searched, and so built, again).
 */
export const MAX_MIRRORED_DOCUMENTS = 500_000;
/** Mirrors held at most by one cache, whatever their size (a small tenant's costs little but not nothing). */
export const MAX_HELD_MIRRORS = 10_000;

/**
 * One tenant's text as a database driver mirrors it in process: BM25 over every version (as the
 * memory driver indexes them), with the fields a filter reads, so that text search costs what it
 * costs in the memory driver and ranks by the tenant's own statistics.
 */
export interface TextMirror {
  index: Bm25Index<StableMemoryFields>;
  /** Ids by user, agent, memory type and document presence: the candidates a narrow filter scores. */
  partitions: FilterPartitions<string>;
  /** The memory id of each row held, to remove a row that is gone. */
  idByPk: Map<number, string>;
  /** Every change up to this position of the driver's change log is reflected in the mirror. */
  applied: number;
}

export function newTextMirror(applied: number): TextMirror {
  return { index: new Bm25Index(), partitions: new FilterPartitions(), idByPk: new Map(), applied };
}

/** Adds (or replaces) the row `pk` in the mirror. */
export function mirrorRow(mirror: TextMirror, pk: number, text: string, fields: StableMemoryFields): void {
  const previous = mirror.index.item(fields.id);
  if (previous) mirror.partitions.remove(fields.id, previous);
  mirror.index.add(fields.id, text, fields);
  mirror.partitions.add(fields.id, fields);
  mirror.idByPk.set(pk, fields.id);
}

/**
 * Applies a re-read of the row `pk` after the change log named it: `row` is its state now, or
 * undefined when it is gone (deleted, or moved to another id).
 */
export function applyRowChange(
  mirror: TextMirror,
  pk: number,
  row: { text: string; fields: StableMemoryFields } | undefined,
): void {
  const id = mirror.idByPk.get(pk);
  if (id !== undefined && id !== row?.fields.id) {
    const fields = mirror.index.item(id);
    if (fields) mirror.partitions.remove(id, fields);
    mirror.index.remove(id);
    mirror.idByPk.delete(pk);
  }
  if (row) mirrorRow(mirror, pk, row.text, row.fields);
}

/**
 * Publishes `tenantId`'s mirror as the most recently searched, then drops the least recently
 * searched others until the cache holds at most `MAX_MIRRORED_DOCUMENTS` documents and `maxHeld`
 * mirrors (the new one is kept whatever its size).
 */
export function publishMirror(
  mirrors: Map<string, TextMirror>,
  tenantId: string,
  mirror: TextMirror,
  maxHeld: number,
): void {
  mirrors.delete(tenantId);
  mirrors.set(tenantId, mirror);
  let documents = 0;
  for (const held of mirrors.values()) documents += held.index.size;
  for (const [key, held] of mirrors) {
    if (documents <= MAX_MIRRORED_DOCUMENTS && mirrors.size <= maxHeld) break;
    if (key === tenantId) continue;
    mirrors.delete(key);
    documents -= held.index.size;
  }
}
