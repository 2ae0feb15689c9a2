import type { Database } from 'better-sqlite3';
import { nextTurn } from '../../core/event-loop-slicer.js';
import {
  applyRowChange,
  MAX_HELD_MIRRORS,
  mirrorRow,
  newTextMirror,
  publishMirror,
  type TextMirror,
} from '../text-mirror.js';
import { prepareTextCacheStatements, type TextCacheStatements } from './text-cache-statements.js';
import { sqliteStableFields } from './vector-cache-statements.js';

/** Rows read per step of a background load; between steps, the event loop serves requests. */
const LOAD_CHUNK = 2_000;

/**
 * In-process BM25 indexes over a SQLite file, one per tenant searched, so that text search costs
 * what it costs in the memory driver rather than an FTS5 scan of every row holding a common term,
 * and ranks by the tenant's own statistics (FTS5's span every tenant in the file). Filters on
 * `lastAccessed` stay with FTS5 (docs/stores/sqlite.md, "Text search").
 *
 * A mirror is built `LOAD_CHUNK` rows per event-loop turn, the first chunk in the call of the
 * search that starts it (a small tenant is thus indexed at once), the rest in the background
 * while FTS5 answers: no search waits for more than a chunk. It then follows the file through the change log that the vector cache
 * reads too (`memory_vector_changes`, which logs every memory insert, delete and update): each
 * search checks `PRAGMA data_version` (another connection committed) and re-reads the rows logged
 * since the mirror's last entry; this connection's writes are applied right after they commit.
 * Rows read by a load that were changed meanwhile are re-read from the log when it ends. When
 * writers pruned entries a mirror had not applied, it is dropped and built again.
 */
export class SqliteTextCache {
  private readonly statements: TextCacheStatements;
  /** Ready mirrors by tenant, least recently searched first. */
  private readonly mirrors = new Map<string, TextMirror>();
  private readonly loading = new Set<string>();
  private dataVersion: number;

  /**
   * `maxHeld`: indexes held at most, however small (every tenant searched gets one), least
   * recently searched dropped first.
   */
  constructor(
    private readonly database: Database,
    private readonly maxHeld = MAX_HELD_MIRRORS,
  ) {
    this.statements = prepareTextCacheStatements(database);
    this.dataVersion = this.statements.dataVersion.get() as number;
  }

  /**
   * The tenant's text index, current with every commit; undefined while it is being built (FTS5
   * answers meanwhile).
   */
  index(tenantId: string): TextMirror | undefined {
    const version = this.statements.dataVersion.get() as number;
    if (version !== this.dataVersion) {
      this.dataVersion = version;
      this.catchUp();
    }
    const held = this.mirrors.get(tenantId);
    if (held) {
      this.mirrors.delete(tenantId);
      this.mirrors.set(tenantId, held);
      return held;
    }
    if (this.loading.has(tenantId)) return undefined;
    this.startLoad(tenantId);
    // A tenant that fits in the first chunk is indexed by now, so its first search ranks as the rest.
    return this.mirrors.get(tenantId);
  }

  /** Resolves once no load is under way (for tests and benchmarks that want the mirror used). */
  async settled(): Promise<void> {
    while (this.loading.size > 0) await nextTurn();
  }

  /** After this connection committed a write: applies it to the mirrors held. */
  afterWrite(): void {
    try {
      this.catchUp();
    } catch {
      // The write is committed either way; a mirror that could not follow it is built again.
      this.mirrors.clear();
    }
  }

  private catchUp(): void {
    if (this.mirrors.size === 0) return;
    this.database.transaction(() => {
      for (const [tenantId, mirror] of this.mirrors) {
        if (!this.applyChanges(tenantId, mirror)) this.mirrors.delete(tenantId);
      }
    })();
  }

  /** Re-reads the rows logged since the mirror's last entry; false when entries it needed are pruned. */
  private applyChanges(tenantId: string, mirror: TextMirror): boolean {
    const { oldest, latest } = this.statements.changeBounds.get() ?? { oldest: null, latest: null };
    if (latest === null || latest <= mirror.applied) return true;
    if (oldest !== null && oldest > mirror.applied + 1) return false;
    const pks = this.statements.changedSince.all(mirror.applied);
    for (let start = 0; start < pks.length; start += LOAD_CHUNK) {
      const chunk = pks.slice(start, start + LOAD_CHUNK);
      const rows = new Map(
        this.statements.selectByPks.all(tenantId, JSON.stringify(chunk)).map((row) => [row.pk, row]),
      );
      for (const pk of chunk) {
        const row = rows.get(pk);
        applyRowChange(mirror, pk, row && { text: row.text, fields: sqliteStableFields(row) });
      }
    }
    mirror.applied = latest;
    return true;
  }

  /**
   * Builds the tenant's mirror, the first chunk at once and the rest over event-loop turns, then
   * catches it up and publishes it: a tenant of at most `LOAD_CHUNK` rows is published before this
   * returns (one chunk of work, about what the FTS5 search it replaces costs).
   */
  private startLoad(tenantId: string): void {
    this.loading.add(tenantId);
    // Entries after this seq are re-read at the end: they cover whatever changes during the load.
    const mirror = newTextMirror(this.statements.changeBounds.get()?.latest ?? 0);
    let after = '';
    const step = (): void => {
      try {
        if (!this.database.open) {
          this.loading.delete(tenantId);
          return;
        }
        const rows = this.statements.selectChunk.all(tenantId, after, LOAD_CHUNK);
        for (const row of rows) mirrorRow(mirror, row.pk, row.text, sqliteStableFields(row));
        after = rows.at(-1)?.id ?? after;
        if (rows.length === LOAD_CHUNK) {
          void nextTurn().then(step);
          return;
        }
        const current = this.database.transaction(() => this.applyChanges(tenantId, mirror))();
        this.loading.delete(tenantId);
        // Log entries it needed were pruned meanwhile: the next search starts over.
        if (!current) return;
        publishMirror(this.mirrors, tenantId, mirror, this.maxHeld);
      } catch {
        // FTS5 keeps answering; the next search of the tenant tries the build again.
        this.loading.delete(tenantId);
      }
    };
    step();
  }
}
