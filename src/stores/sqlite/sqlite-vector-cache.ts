import type { Database } from 'better-sqlite3';
import { nextTurn } from '../../core/event-loop-slicer.js';
import type { StableMemoryFields } from '../memory-filter.js';
import { VectorCollection } from '../vector-collection.js';
import { blobVector } from './memory-record-rows.js';
import {
  prepareVectorCacheStatements,
  sqliteStableFields,
  type VectorCacheStatements,
} from './vector-cache-statements.js';

/** Change-log entries writers keep; a reader further behind reloads its collections instead. */
export const RETAINED_CHANGES = 50_000;
/** Vector bytes held across collections before the least recently searched are dropped. */
const CACHE_BYTES = 512 * 1024 * 1024;
/** Collections held at most, whatever their size (a small tenant's costs little but not nothing). */
const MAX_HELD = 10_000;
/** Changed rows re-read per query while catching up. */
const RELOAD_CHUNK = 5_000;
/**
 * Rows read per step of a background load (about 10 ms of work at 100 dimensions); between steps,
 * the event loop serves requests.
 */
const LOAD_CHUNK = 1_000;

type Collection = VectorCollection<StableMemoryFields>;

/** A collection being read in the background. */
interface Load {
  collection: Collection;
  /** The change log's last entry before the first chunk was read: later entries are re-read at the end. */
  fromSeq: number;
  /** The last memory id read, in id order. */
  after: string;
}

/**
 * In-process vector indexes over a SQLite file: per tenant and model, a `VectorCollection` of every
 * vector with the row fields filters read (all but `last_accessed`). Every tenant searched gets one,
 * small ones too: an exact scan of a small tenant's vectors in SQL cost a turn more than all of its
 * in-process searches together (docs/stores/sqlite.md, "Vector search").
 *
 * A collection is loaded `LOAD_CHUNK` rows per event-loop turn, which the first search of the
 * tenant and model starts: the first chunk in that search's call (a small tenant is thus loaded at
 * once), the rest in the background (1–3 s at 100,000 vectors), no search waiting for more than a
 * chunk; until it is published, searches are answered exactly in SQL. The
 * chunks are separate reads, so rows may change between them: when the last chunk is read, the
 * rows that the change log lists since the load started are re-read, in the same read transaction
 * that catches up the collections held, and only then is the collection published. A row is keyed
 * by its pk, so one read twice is replaced, not duplicated.
 *
 * It follows the file, whoever writes it: each search first reads `PRAGMA data_version` (it changes
 * when another connection commits) and, when it moved, re-reads the rows that the change log
 * (`memory_vector_changes`, filled by triggers) lists since the last entry applied. This
 * connection's own writes, which data_version does not count, are applied the same way right after
 * they commit. If writers pruned entries this process had not applied, its collections are dropped
 * (and a load under way is abandoned) and loaded again on their next search.
 */
export class SqliteVectorCache {
  private readonly statements: VectorCacheStatements;
  /** Published collections by `JSON.stringify([tenant, model])`, least recently searched first. */
  private readonly collections = new Map<string, Collection>();
  /** Loads under way, by the same key. */
  private readonly loading = new Map<string, Load>();
  private dataVersion: number;
  /** Every change-log entry up to this seq is reflected in the collections held. */
  private appliedSeq = 0;

  /**
   * `maxHeld`: collections held at most, however small (every tenant searched gets one), least
   * recently searched dropped first.
   */
  constructor(
    private readonly database: Database,
    private readonly maxHeld = MAX_HELD,
  ) {
    this.statements = prepareVectorCacheStatements(database);
    this.dataVersion = this.statements.dataVersion.get() as number;
  }

  /**
   * The tenant's collection for `model`, current with every commit; undefined while it is being
   * loaded (an exact scan in SQL answers meanwhile).
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
    if (this.loading.has(key)) return undefined;
    this.startLoad(key, tenantId, model, dimensions);
    // A tenant that fits in the first chunk is loaded by now, so its first search is answered as the rest.
    return this.collections.get(key);
  }

  /** Resolves once no collection is being loaded and no collection's index trains in the background. */
  async settled(): Promise<void> {
    while (this.loading.size > 0) await nextTurn();
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

  /** Re-reads the rows changed since `appliedSeq` into the collections held; inside a read transaction. */
  private applyChanges(): void {
    const { oldest, latest } = this.statements.changeBounds.get() ?? { oldest: null, latest: null };
    if (latest === null || latest <= this.appliedSeq) return;
    if (oldest !== null && oldest > this.appliedSeq + 1) {
      this.collections.clear(); // entries this process needed were pruned
    } else {
      this.reloadChanged(this.appliedSeq, this.collections);
    }
    this.appliedSeq = latest;
  }

  /** Re-reads every row the change log lists after `seq` into `targets` (by key). */
  private reloadChanged(seq: number, targets: ReadonlyMap<string, Collection>): void {
    const changed = this.statements.changedSince.all(seq);
    for (let start = 0; start < changed.length; start += RELOAD_CHUNK) {
      this.reload(changed.slice(start, start + RELOAD_CHUNK), targets);
    }
  }

  /** Replaces what `targets` hold for `pks` by the rows as they are now (or nothing). */
  private reload(pks: number[], targets: ReadonlyMap<string, Collection>): void {
    const rows = new Map(this.statements.selectByPks.all(JSON.stringify(pks)).map((row) => [row.pk, row]));
    for (const pk of pks) {
      for (const collection of targets.values()) collection.delete(pk);
      const row = rows.get(pk);
      const target = row && targets.get(JSON.stringify([row.tenant_id, row.model]));
      if (row && target) target.set(pk, sqliteStableFields(row), blobVector(row.vector));
    }
  }

  /**
   * Reads the collection, the first chunk at once and the rest over event-loop turns, then catches
   * it up and publishes it: a tenant of at most `LOAD_CHUNK` vectors is published before this
   * returns (one chunk of work, about what the SQL scan it replaces costs).
   */
  private startLoad(key: string, tenantId: string, model: string, dimensions: number): void {
    const load: Load = {
      collection: new VectorCollection(dimensions),
      // Entries after this seq are re-read at the end: they cover whatever changes during the load.
      fromSeq: this.statements.changeBounds.get()?.latest ?? 0,
      after: '',
    };
    this.loading.set(key, load);
    const step = (): void => {
      try {
        if (!this.database.open) {
          this.loading.delete(key);
          return;
        }
        const rows = this.statements.selectChunk.all(tenantId, model, load.after, LOAD_CHUNK);
        for (const row of rows) load.collection.set(row.pk, sqliteStableFields(row), blobVector(row.vector));
        load.after = rows.at(-1)?.id ?? load.after;
        if (rows.length === LOAD_CHUNK) {
          void nextTurn().then(step);
          return;
        }
        this.database.transaction(() => this.publish(key, load))();
        this.loading.delete(key);
      } catch {
        // SQL keeps answering; the next search of the tenant starts the load again.
        this.loading.delete(key);
      }
    };
    step();
  }

  /**
   * Inside one read transaction: catches up the collections held and the loaded one to the same
   * snapshot, then publishes it (unless the change log was pruned past its start: the next search
   * loads it again).
   */
  private publish(key: string, load: Load): void {
    if (this.collections.size > 0) this.applyChanges();
    const { oldest, latest } = this.statements.changeBounds.get() ?? { oldest: null, latest: null };
    if (this.collections.size === 0) this.appliedSeq = latest ?? 0;
    if (latest !== null && latest > load.fromSeq) {
      if (oldest !== null && oldest > load.fromSeq + 1) return;
      this.reloadChanged(load.fromSeq, new Map([[key, load.collection]]));
    }
    this.collections.set(key, load.collection);
    this.evictBeyondCapacity(key);
    load.collection.prepare();
  }

  /** Drops the least recently searched collections (never `keep`) while over the byte budget. */
  private evictBeyondCapacity(keep: string): void {
    let bytes = 0;
    for (const collection of this.collections.values()) bytes += collection.size * collection.dimensions * 4;
    for (const [key, collection] of this.collections) {
      if (bytes <= CACHE_BYTES && this.collections.size <= this.maxHeld) return;
      if (key === keep) continue;
      this.collections.delete(key);
      bytes -= collection.size * collection.dimensions * 4;
    }
  }
}
