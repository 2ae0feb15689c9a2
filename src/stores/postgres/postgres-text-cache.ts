import { coalescingQueue } from '../../core/coalescing-queue.js';
import type { StableMemoryFields } from '../memory-filter.js';
import { type FilterColumns, toStableFields } from '../stable-fields.js';
import {
  applyRowChange,
  MAX_HELD_MIRRORS,
  mirrorRow,
  newTextMirror,
  publishMirror,
  type TextMirror,
} from '../text-mirror.js';
import type { PostgresDatabase } from './postgres-database.js';
import {
  MAX_MIRRORED_VECTOR_FLOATS,
  mirrorVector,
  newVectorMirror,
  type VectorMirror,
  vectorFloats,
} from './postgres-vector-mirror.js';

/** Rows read per statement of a load or of a catch-up; a search reads at most one page itself. */
const LOAD_CHUNK = 2_000;
/** Change-log entries older than this are pruned (an index that had not applied them is rebuilt). */
const CHANGE_LOG_RETENTION_MS = 3_600_000;
/** How often each server tries to prune the log (one server at a time, by an advisory lock). */
const PRUNE_INTERVAL_MS = 60_000;
/** Entries one prune deletes at most, so that it stays far inside `statement_timeout`. */
const PRUNE_BATCH = 50_000;

/**
 * A memory row's pk (null: no row), text, the columns a filter reads (but `last_accessed`), and
 * its vector's model and `array_send` bytes (null: none, or not asked for).
 */
interface MirrorRow extends FilterColumns {
  pk: number | null;
  text: string;
  vector_model: string | null;
  vector_bytes: Uint8Array | null;
}

/**
 * A tenant's text index and, unless they outgrew `MAX_TENANT_VECTOR_FLOATS` (or in-process
 * vectors are off), its vectors: one load and one catch-up of the change log serve both.
 */
export interface TenantMirror extends TextMirror {
  vectors: VectorMirror | null;
}

/** The tenant's revision and pruned-log floor, read in the statement of every page (one snapshot). */
interface Revision {
  revision: number;
  log_floor: number;
}

const ROW_COLUMNS = `m.pk, m.id, m.text, m.valid_to, m.namespace, m.user_id, m.session_id, m.agent_id,
  m.document_id, m.memory_type, m.topics, m.entities, m.event_date, m.created_at, m.pinned`;
/** A row's vector, binary (`arraySendVector`), when the statement's parameter `wanted` asks for it. */
const vectorColumns = (wanted: string) =>
  `e.model AS vector_model, CASE WHEN ${wanted} THEN array_send(e.vector) END AS vector_bytes`;
const REVISION = `(SELECT coalesce(max(revision), 0) AS revision, coalesce(max(log_floor), 0) AS log_floor
  FROM memory_revisions WHERE tenant_id = $1) AS s`;

/** A page of the tenant's rows after an id, in id order (the unique index: no sort), with its revision. */
const LOAD_PAGE = `SELECT s.revision, s.log_floor, ${ROW_COLUMNS}, m.vector_model, m.vector_bytes
FROM ${REVISION} LEFT JOIN LATERAL (
  SELECT ${ROW_COLUMNS}, ${vectorColumns('$4::boolean')}
  FROM memories m LEFT JOIN memory_embeddings e ON e.memory_pk = m.pk
  WHERE m.tenant_id = $1 AND m.id > $2 ORDER BY m.id LIMIT $3
) AS m ON true`;

/**
 * A page of the rows logged after a (revision, pk) position, in log order (its primary key: no
 * sort), each as it is now (null columns: gone), with the tenant's revision.
 */
const CHANGES_PAGE = `SELECT s.revision, s.log_floor, c.memory_pk AS changed_pk, c.revision AS logged_at,
  ${ROW_COLUMNS}, ${vectorColumns('$5::boolean')} FROM ${REVISION} LEFT JOIN LATERAL (
  SELECT l.revision, l.memory_pk FROM memory_changes l
  WHERE l.tenant_id = $1 AND (l.revision, l.memory_pk) > ($2::bigint, $3::bigint)
  ORDER BY l.revision, l.memory_pk LIMIT $4
) AS c ON true LEFT JOIN memories m ON m.pk = c.memory_pk AND m.tenant_id = $1
LEFT JOIN memory_embeddings e ON e.memory_pk = m.pk`;

/** Deletes a batch of entries past the retention and records, per tenant, the newest revision deleted. */
const PRUNE = `WITH gone AS (
  DELETE FROM memory_changes WHERE ctid = ANY (ARRAY(
    SELECT ctid FROM memory_changes WHERE changed_at < now() - $1 * interval '1 millisecond' LIMIT $2))
  RETURNING tenant_id, revision
)
UPDATE memory_revisions r SET log_floor = g.top
FROM (SELECT tenant_id, max(revision) AS top FROM gone GROUP BY tenant_id) AS g
WHERE r.tenant_id = g.tenant_id AND r.log_floor < g.top`;

/** Where a catch-up stands after a page. */
type CatchUp = 'current' | 'more' | 'pruned';

/**
 * In-process BM25 indexes of the PostgreSQL driver, one per tenant searched (`TextMirror`, as the
 * memory and SQLite drivers rank), kept current on every server by the change log that triggers
 * on `memories` fill in each writing transaction (`memory_changes`: the memory pks written, at the
 * tenant revision the write moved to; revisions grow in commit order; migration 8). Every search reads the
 * tenant's revision and the log entries after the index's position in one statement, one
 * snapshot, and applies them before it ranks: a write committed on any server is in the next
 * search on every other. Text search then costs one round trip and what ranking costs in process,
 * not scoring every row holding a query word in SQL (docs/stores/postgres.md, "Text search").
 *
 * The same pages carry each row's vector (`vectors`, default true), which the mirror keeps for
 * exact vector search in process (`postgres-vector-mirror.ts`) until the tenant's vectors pass
 * `MAX_TENANT_VECTOR_FLOATS`; writes that change a vector without a memory row log it themselves
 * (`logRows` in the record store). Past `MAX_MIRRORED_VECTOR_FLOATS` in all, publishing a mirror
 * drops the least recently searched others.
 *
 * A tenant's index is built `LOAD_CHUNK` rows per statement: the first page in the search that
 * starts it (a tenant that fits is answered from its index at once), the rest in the background
 * while BM25 in SQL answers. A catch-up of more than one page runs in the background likewise.
 * Filters on `lastAccessed` stay in SQL (access times move without the revision).
 */
export function createPostgresTextCache(
  database: PostgresDatabase,
  {
    maxHeld = MAX_HELD_MIRRORS,
    pageSize = LOAD_CHUNK,
    vectors = true,
  }: { maxHeld?: number; pageSize?: number; vectors?: boolean } = {},
) {
  /** Ready indexes by tenant, least recently searched first. */
  const mirrors = new Map<string, TenantMirror>();
  /** Tenants whose index is being built or caught up in the background. */
  const building = new Map<string, Promise<void>>();
  /** One lookup per tenant at a time, so pages of the log are applied in the order they were read. */
  const oneAtATime = coalescingQueue<TenantMirror | undefined>();
  let stopping = false;
  let pruning: Promise<void> | undefined;

  /** Deletes a batch of log entries past the retention, one server at a time. */
  const pruneChanges = (retentionMs = CHANGE_LOG_RETENTION_MS): Promise<void> =>
    database.transaction(async (client) => {
      const [lock] = await client.query<{ held: boolean }>(
        "SELECT pg_try_advisory_xact_lock(hashtextextended('engram-memory-changes:' || current_schema(), 0)) AS held",
      );
      if (lock?.held) await client.query(PRUNE, [retentionMs, PRUNE_BATCH]);
    });
  const pruneTimer = setInterval(() => {
    pruning ??= pruneChanges()
      .catch(() => {
        // The database is unreachable now; the next interval tries again.
      })
      .finally(() => {
        pruning = undefined;
      });
  }, PRUNE_INTERVAL_MS);
  pruneTimer.unref();

  /** Applies a row's vector to the mirror; a tenant whose vectors cannot be mirrored loses them all. */
  const applyVector = (
    mirror: TenantMirror,
    pk: number,
    fields: StableMemoryFields | undefined,
    row: MirrorRow,
  ) => {
    if (mirror.vectors && !mirrorVector(mirror.vectors, pk, fields, row.vector_model, row.vector_bytes)) {
      mirror.vectors = null;
    }
  };

  /**
   * Publishes the mirror (`publishMirror`), then drops the least recently searched others while
   * the vectors held exceed `MAX_MIRRORED_VECTOR_FLOATS`.
   */
  const publish = (tenantId: string, mirror: TenantMirror): void => {
    publishMirror(mirrors, tenantId, mirror, maxHeld);
    let floats = 0;
    for (const held of mirrors.values()) floats += vectorFloats(held.vectors);
    for (const [key, held] of mirrors) {
      if (floats <= MAX_MIRRORED_VECTOR_FLOATS) break;
      if (key === tenantId) continue;
      mirrors.delete(key);
      floats -= vectorFloats(held.vectors);
    }
  };

  /** Applies one page of the change log after `after` (a revision and pk of the log's order). */
  const catchUpPage = async (
    tenantId: string,
    mirror: TenantMirror,
    after: [number, number],
  ): Promise<{ state: CatchUp; after: [number, number] }> => {
    const rows = await database.query<
      Revision & MirrorRow & { changed_pk: number | null; logged_at: number }
    >(CHANGES_PAGE, [tenantId, after[0], after[1], pageSize, mirror.vectors !== null]);
    const [first] = rows;
    if (!first || first.log_floor > mirror.applied) return { state: 'pruned', after };
    let next = after;
    let applied = 0;
    for (const row of rows) {
      if (row.changed_pk === null) continue;
      applied += 1;
      const fields = row.pk === null ? undefined : toStableFields(row);
      applyRowChange(mirror, row.changed_pk, fields && { text: row.text, fields });
      applyVector(mirror, row.changed_pk, fields, row);
      next = [row.logged_at, row.changed_pk];
    }
    if (applied === pageSize) return { state: 'more', after: next };
    // Every entry up to this snapshot's revision is applied (a tenant's revisions grow in commit order).
    mirror.applied = first.revision;
    return { state: 'current', after: next };
  };

  /** Catches the mirror up page by page to the end of the log; false when entries it needed were pruned. */
  const catchUpToEnd = async (tenantId: string, mirror: TenantMirror, after: [number, number]) => {
    let position = after;
    for (;;) {
      if (stopping) return false;
      const page = await catchUpPage(tenantId, mirror, position);
      if (page.state !== 'more') return page.state === 'current';
      position = page.after;
    }
  };

  /** Runs `work` for the tenant in the background; its searches go to SQL until it publishes. */
  const inBackground = (tenantId: string, work: () => Promise<TenantMirror | undefined>): void => {
    const done = work()
      .then((mirror) => {
        if (mirror) publish(tenantId, mirror);
      })
      .catch(() => {
        // BM25 in SQL keeps answering; the tenant's next search builds its index again.
      })
      .finally(() => building.delete(tenantId));
    building.set(tenantId, done);
  };

  const startLoad = async (tenantId: string): Promise<TenantMirror | undefined> => {
    const mirror: TenantMirror = { ...newTextMirror(0), vectors: vectors ? newVectorMirror() : null };
    const loadPage = (after: string) =>
      database.query<Revision & MirrorRow>(LOAD_PAGE, [tenantId, after, pageSize, mirror.vectors !== null]);
    const first = await loadPage('');
    mirror.applied = first[0]?.revision ?? 0;
    const add = (rows: MirrorRow[]) => {
      for (const row of rows) {
        if (row.pk === null) continue;
        const fields = toStableFields(row);
        mirrorRow(mirror, row.pk, row.text, fields);
        applyVector(mirror, row.pk, fields, row);
      }
    };
    add(first);
    if (first.filter((row) => row.pk !== null).length < pageSize) {
      // One snapshot holds the revision and every row: nothing to catch up.
      publish(tenantId, mirror);
      return mirror;
    }
    inBackground(tenantId, async () => {
      let rows = first;
      while (rows.length === pageSize) {
        if (stopping) return undefined;
        rows = await loadPage(rows[rows.length - 1]?.id ?? '');
        add(rows);
      }
      // Rows changed while the pages were read are in the log after the first page's revision.
      const current = await catchUpToEnd(tenantId, mirror, [mirror.applied, Number.MAX_SAFE_INTEGER]);
      return current ? mirror : undefined;
    });
    return undefined;
  };

  const lookup = async (tenantId: string): Promise<TenantMirror | undefined> => {
    if (building.has(tenantId) || stopping) return undefined;
    const held = mirrors.get(tenantId);
    if (!held) return startLoad(tenantId);
    const page = await catchUpPage(tenantId, held, [held.applied, Number.MAX_SAFE_INTEGER]);
    if (page.state === 'current') {
      mirrors.delete(tenantId);
      mirrors.set(tenantId, held);
      return held;
    }
    mirrors.delete(tenantId);
    if (page.state === 'more') {
      inBackground(tenantId, async () =>
        (await catchUpToEnd(tenantId, held, page.after)) ? held : undefined,
      );
    }
    return undefined;
  };

  return {
    /**
     * The tenant's text index (and vectors, see `TenantMirror`), current with every commit its
     * statement saw; undefined while it is being built or caught up in the background (searches
     * run in SQL meanwhile).
     */
    index: (tenantId: string): Promise<TenantMirror | undefined> =>
      oneAtATime(tenantId, () => lookup(tenantId)),

    /**
     * Deletes up to `PRUNE_BATCH` log entries older than `retentionMs` (default an hour), as every
     * server does each minute; skipped while another server prunes.
     */
    pruneChanges,

    /** Resolves once no index is being built or caught up (tests and benchmarks). */
    async settled(): Promise<void> {
      while (building.size > 0) await Promise.all(building.values());
    },

    /** Stops background builds at their next page and waits for them. */
    async stop(): Promise<void> {
      stopping = true;
      clearInterval(pruneTimer);
      await pruning;
      while (building.size > 0) await Promise.all(building.values());
    },
  };
}

export type PostgresTextCache = ReturnType<typeof createPostgresTextCache>;
