import type { Database } from 'better-sqlite3';
import { EXACT_SEARCH_THRESHOLD } from '../../core/vectors/ivf-index.js';
import type { StableMemoryFields } from '../memory-filter.js';
import { VectorCollection } from '../vector-collection.js';
import { blobVector } from './memory-record-rows.js';
import {
  prepareVectorCacheStatements,
  toStableFields,
  type VectorCacheStatements,
} from './vector-cache-statements.js';

/** Change-log entries writers keep; a reader further behind reloads its collections instead. */
export const RETAINED_CHANGES = 50_000;
/** Vector bytes held across collections before the least recently searched are dropped. */
const CACHE_BYTES = 512 * 1024 * 1024;
/** Changed rows re-read per query while catching up. */
const RELOAD_CHUNK = 5_000;

type Collection = VectorCollection<StableMemoryFields>;

/**
 * In-process vector indexes over a SQLite file: per tenant and model, a `VectorCollection` of every
 * vector with the row fields filters read (all but `last_accessed`). Only tenants with more than
 * `EXACT_SEARCH_THRESHOLD` memories get one; smaller ones are scanned exactly in SQL.
 *
 * It follows the file, whoever writes it: each search first reads `PRAGMA data_version` (it changes
 * when another connection commits) and, when it moved, re-reads the rows that the change log
 * (`memory_vector_changes`, filled by triggers) lists since the last entry applied. This
 * connection's own writes, which data_version does not count, are applied the same way right after
 * they commit. A collection is loaded, and the others caught up, in one read transaction, so all
 * reflect the same snapshot. If writers pruned entries this process had not applied, its
 * collections are dropped and reloaded on their next search.
 */
export class SqliteVectorCache {
  private readonly statements: VectorCacheStatements;
  /** By `JSON.stringify([tenant, model])`, least recently searched first. */
  private readonly collections = new Map<string, Collection>();
  private dataVersion: number;
  /** Every change-log entry up to this seq is reflected in the collections held. */
  private appliedSeq = 0;

  constructor(private readonly database: Database) {
    this.statements = prepareVectorCacheStatements(database);
    this.dataVersion = this.statements.dataVersion.get() as number;
  }

  /**
   * The tenant's collection for `model`, current with every commit; undefined when the tenant holds
   * at most `EXACT_SEARCH_THRESHOLD` memories, so that an exact scan in SQL is cheap.
   */
  collection(tenantId: string, model: string, dimensions: number): Collection | undefined {
    const version = this.statements.dataVersion.get() as number;
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.catchUp();
    }
    const key = JSON.stringify([tenantId, model]);
    const held = this.collections.get(key);
    if (held) {
      // Re-inserting keeps the map in least-recently-used order.
      this.collections.delete(key);
      this.collections.set(key, held);
      return held;
    }
    const memories = this.statements.countTenant.get(tenantId, EXACT_SEARCH_THRESHOLD + 1) as number;
    return memories > EXACT_SEARCH_THRESHOLD ? this.load(key, tenantId, model, dimensions) : undefined;
  }

  /** Resolves once no collection's index trains in the background. */
  async settled(): Promise<void> {
    for (const collection of this.collections.values()) await collection.settled();
  }

  /** Inside each write transaction: keeps the change log to its newest entries. */
  pruneChanges(): void {
    this.statements.pruneChanges.run(RETAINED_CHANGES);
  }

  /** After this connection committed a write: applies it to the collections held. */
  afterWrite(): void {
    try {
      this.catchUp();
    } catch {
      // The write is committed either way; a collection that could not follow it is reloaded.
      this.collections.clear();
    }
  }

  private catchUp(): void {
    if (this.collections.size > 0) this.database.transaction(() => this.applyChanges())();
  }

  /** Re-reads the rows changed since `appliedSeq` into the collections; inside a read transaction. */
  private applyChanges(): void {
    const { oldest, latest } = this.statements.changeBounds.get() ?? { oldest: null, latest: null };
    if (latest === null || latest <= this.appliedSeq) return;
    if (oldest !== null && oldest > this.appliedSeq + 1) {
      this.collections.clear(); // entries this process needed were pruned
    } else {
      const changed = this.statements.changedSince.all(this.appliedSeq);
      for (let start = 0; start < changed.length; start += RELOAD_CHUNK) {
        this.reload(changed.slice(start, start + RELOAD_CHUNK));
      }
    }
    this.appliedSeq = latest;
  }

  /** Replaces what the collections hold for `pks` by the rows as they are now (or nothing). */
  private reload(pks: number[]): void {
    const rows = new Map(this.statements.selectByPks.all(JSON.stringify(pks)).map((row) => [row.pk, row]));
    for (const pk of pks) {
      for (const collection of this.collections.values()) collection.delete(pk);
      const row = rows.get(pk);
      const target = row && this.collections.get(JSON.stringify([row.tenant_id, row.model]));
      if (row && target) target.set(pk, toStableFields(row), blobVector(row.vector));
    }
  }

  private load(key: string, tenantId: string, model: string, dimensions: number): Collection {
    return this.database.transaction(() => {
      // One snapshot: the collections held catch up to it, and the new one is read from it.
      if (this.collections.size > 0) this.applyChanges();
      else this.appliedSeq = this.statements.changeBounds.get()?.latest ?? 0;
      const collection: Collection = new VectorCollection(dimensions);
      for (const row of this.statements.selectCollection.iterate(tenantId, model)) {
        collection.set(row.pk, toStableFields(row), blobVector(row.vector));
      }
      this.collections.set(key, collection);
      this.evictBeyondCapacity(key);
      return collection;
    })();
  }

  /** Drops the least recently searched collections (never `keep`) while over the byte budget. */
  private evictBeyondCapacity(keep: string): void {
    let bytes = 0;
    for (const collection of this.collections.values()) bytes += collection.size * collection.dimensions * 4;
    for (const [key, collection] of this.collections) {
      if (bytes <= CACHE_BYTES) return;
      if (key === keep) continue;
      this.collections.delete(key);
      bytes -= collection.size * collection.dimensions * 4;
    }
  }
}
