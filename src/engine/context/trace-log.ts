import { createHash } from 'node:crypto';
import { z } from 'zod';
import type {
  ContextTrace,
  SectionTrace,
  TraceItem,
  TraceScoreComponents,
} from '../../core/assembly/context-trace.js';
import { parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';
import { newId } from '../new-id.js';
import { type SessionRef, toSessionKey } from '../sessions/session-ref.js';
import { WriteBehind } from '../write-behind.js';

/** The `store.documents` collection traces live in. */
export const TRACES_COLLECTION = 'traces';

/** How many traces are kept per session unless configured otherwise. */
export const DEFAULT_TRACE_RETENTION = 50;

/** A source's outcome as stored: its error text is dropped (it may quote the message). */
export interface StoredSourceReport {
  name: string;
  section: string;
  status: 'ok' | 'timeout' | 'error';
  durationMs: number;
  itemCount: number;
}

/** A trace as kept at rest: ids, scores, token counts, reasons and timings, never content. */
export interface StoredTrace {
  model: string;
  encoding: string;
  budget: ContextTrace['budget'];
  sections: SectionTrace[];
  history: ContextTrace['history'];
  sources: StoredSourceReport[];
  degraded: boolean;
  durationMs: number | null;
}

/** One recorded turn of one session. */
export interface TraceRecord {
  /** Sortable (ULID order within the session): newer traces have larger ids. */
  id: string;
  sessionId: string;
  namespace: string | null;
  userId: string | null;
  agentId: string;
  createdAt: string;
  trace: StoredTrace;
}

const listSchema = z.object({ limit: z.number().int().min(1).max(1_000).default(20) });

/** The per-session log of context traces behind the Context Inspector. */
export interface TraceLog {
  /** How many traces each session keeps (0: nothing is recorded). */
  readonly retention: number;
  /**
   * Queues the trace (stripped of anything content-bearing) to be stored, with the pruning of the
   * session's oldest, in the next batch (within a second): never waits for the store. Null when
   * nothing is recorded (retention 0, or the queue is full).
   */
  record(session: SessionRef, agentId: string, trace: ContextTrace): Promise<TraceRecord | null>;
  /** The session's traces, newest first, with how many are kept in all (queued ones written first). */
  list(
    session: SessionRef,
    page?: z.input<typeof listSchema>,
  ): Promise<{ traces: TraceRecord[]; total: number }>;
  /** Writes every queued trace. */
  flush(): Promise<void>;
  /** Writes every queued trace and records no more. */
  close(): Promise<void>;
}

/** Options of the trace log's write-behind queue (see `WriteBehind`). */
export interface TraceLogOptions {
  retention?: number;
  /** Traces waiting at most; past it new ones are dropped. Default 10,000. */
  queueCapacity?: number;
  /** Longest a trace waits before its batch is written. Default 1,000 ms. */
  delayMs?: number;
  /** Failed batch writes. */
  onError?: (error: unknown) => void;
}

/** A trace waiting to be written. */
interface QueuedTrace {
  tenantId: string;
  prefix: string;
  record: TraceRecord;
}

/** Score component names a trace keeps: short snake_case identifiers, never free text. */
const COMPONENT_NAME = /^[a-z][a-z0-9_]{0,39}$/;
/** Components kept per candidate at most (a custom source cannot bloat every stored trace). */
export const MAX_STORED_COMPONENTS = 16;

/** Only finite numbers under identifier-like names: a source's components cannot smuggle content. */
function storedComponents(components: TraceScoreComponents): TraceScoreComponents {
  const kept: TraceScoreComponents = {};
  let count = 0;
  for (const [name, value] of Object.entries(components)) {
    if (count >= MAX_STORED_COMPONENTS) break;
    if (!COMPONENT_NAME.test(name) || typeof value !== 'number' || !Number.isFinite(value)) continue;
    kept[name] = value;
    count++;
  }
  return kept;
}

/**
 * Copies a trace field by field (an allow-list, so a field added to ContextTrace later is not
 * stored until someone decides it holds no content). Source error texts are dropped.
 */
export function toStoredTrace(trace: ContextTrace): StoredTrace {
  const item = (entry: TraceItem): TraceItem => ({
    id: entry.id,
    kind: entry.kind,
    included: entry.included,
    reason: entry.reason,
    tokens: entry.tokens,
    ...(entry.score === undefined ? {} : { score: entry.score }),
    ...(entry.components === undefined ? {} : { components: storedComponents(entry.components) }),
    // The source of a knowledge chunk is its document's name: attribution, not content.
    ...(entry.source === undefined ? {} : { source: entry.source }),
  });
  return {
    model: trace.model,
    encoding: trace.encoding,
    budget: { ...trace.budget },
    sections: trace.sections.map((section) => ({
      name: section.name,
      tokens: section.tokens,
      cap: section.cap,
      items: section.items.map(item),
    })),
    history: { ...trace.history },
    sources: trace.sources.map((report) => ({
      name: report.name,
      section: report.section,
      status: report.status,
      durationMs: report.durationMs,
      itemCount: report.itemCount,
    })),
    degraded: trace.degraded,
    durationMs: trace.durationMs ?? null,
  };
}

/** A fixed-length prefix per session key: ids of one session never prefix another's. */
function sessionPrefix(key: SessionKey): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([key.namespace, key.userId, key.sessionId]))
    .digest('hex');
  return `${digest.slice(0, 32)}:`;
}

/**
 * Traces in `store.documents` (collection `traces`), at most `retention` per session. Traces are
 * diagnostics: a turn queues its trace and goes on, and batches are written off the request, one
 * atomic write per tenant (`writeDocuments`) holding the new traces and the deletion of those past
 * the retention. A crash loses at most the last `delayMs` of traces (docs/inspector.md).
 */
export function createTraceLog(
  documents: DocumentStore,
  clock: () => Date,
  options: TraceLogOptions = {},
): TraceLog {
  const keep = parseWith(
    z.number().int().nonnegative().max(100_000),
    options.retention ?? DEFAULT_TRACE_RETENTION,
    'trace retention',
  );

  /** Writes one tenant's traces and deletes what falls past the retention, in one write. */
  async function writeTenant(tenantId: string, queued: QueuedTrace[]): Promise<void> {
    const byPrefix = new Map<string, TraceRecord[]>();
    for (const { prefix, record } of queued) byPrefix.set(prefix, [...(byPrefix.get(prefix) ?? []), record]);
    const put: { id: string; value: JsonObject }[] = [];
    const stale: string[] = [];
    for (const [prefix, records] of byPrefix) {
      // Ids grow with time: of a burst past the retention, only the newest are worth writing.
      const kept = records.slice(-keep);
      for (const record of kept) put.push({ id: record.id, value: record as unknown as JsonObject });
      // Usually one past the limit; a page bounds the work if retention was lowered.
      const { documents: older } = await documents.listDocuments(tenantId, TRACES_COLLECTION, {
        prefix,
        order: 'id-desc',
        offset: Math.max(0, keep - kept.length),
        limit: 100,
      });
      stale.push(...older.map((document) => document.id));
    }
    if (documents.writeDocuments) {
      await documents.writeDocuments(tenantId, TRACES_COLLECTION, { put, delete: stale });
      return;
    }
    for (const { id, value } of put) await documents.putDocument(tenantId, TRACES_COLLECTION, id, value);
    for (const id of stale) await documents.deleteDocument(tenantId, TRACES_COLLECTION, id);
  }

  const queue = new WriteBehind<QueuedTrace>({
    capacity: options.queueCapacity ?? 10_000,
    delayMs: options.delayMs ?? 1_000,
    onError: options.onError ?? ((error) => console.error('engram: trace write failed', error)),
    async write(batch) {
      const byTenant = new Map<string, QueuedTrace[]>();
      for (const item of batch) byTenant.set(item.tenantId, [...(byTenant.get(item.tenantId) ?? []), item]);
      for (const [tenantId, queued] of byTenant) await writeTenant(tenantId, queued);
    },
  });

  return {
    retention: keep,

    async record(session, agentId, trace) {
      if (keep === 0) return null;
      const key = toSessionKey(session);
      const prefix = sessionPrefix(key);
      const now = clock();
      const record: TraceRecord = {
        id: `${prefix}${newId(now.getTime())}`,
        sessionId: key.sessionId,
        namespace: key.namespace,
        userId: key.userId,
        agentId,
        createdAt: now.toISOString(),
        trace: toStoredTrace(trace),
      };
      return queue.push({ tenantId: key.tenantId, prefix, record }) ? record : null;
    },

    async list(session, page = {}) {
      const key = toSessionKey(session);
      const { limit } = parseWith(listSchema, page, 'trace list');
      await queue.flush();
      const { documents: found, total } = await documents.listDocuments(key.tenantId, TRACES_COLLECTION, {
        prefix: sessionPrefix(key),
        order: 'id-desc',
        offset: 0,
        limit,
      });
      return { traces: found.map((document) => document.value as unknown as TraceRecord), total };
    },

    flush: () => queue.flush(),
    close: () => queue.close(),
  };
}
