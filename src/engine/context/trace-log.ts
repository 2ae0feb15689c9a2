import { createHash } from 'node:crypto';
import { z } from 'zod';
import type { ContextTrace, SectionTrace, TraceItem } from '../../core/assembly/context-trace.js';
import { parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';
import { newId } from '../new-id.js';
import { type SessionRef, toSessionKey } from '../sessions/session-ref.js';

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
  /** Stores the trace (stripped of anything content-bearing) and prunes the session's oldest. */
  record(session: SessionRef, agentId: string, trace: ContextTrace): Promise<TraceRecord | null>;
  /** The session's traces, newest first, with how many are kept in all. */
  list(
    session: SessionRef,
    page?: z.input<typeof listSchema>,
  ): Promise<{ traces: TraceRecord[]; total: number }>;
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

/** Traces in `store.documents` (collection `traces`), at most `retention` per session. */
export function createTraceLog(
  documents: DocumentStore,
  clock: () => Date,
  retention: number = DEFAULT_TRACE_RETENTION,
): TraceLog {
  const keep = parseWith(z.number().int().nonnegative().max(100_000), retention, 'trace retention');
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
      await documents.putDocument(
        key.tenantId,
        TRACES_COLLECTION,
        record.id,
        record as unknown as JsonObject,
      );
      // Usually one past the limit; a page bounds the work if retention was lowered.
      const { documents: stale } = await documents.listDocuments(key.tenantId, TRACES_COLLECTION, {
        prefix,
        order: 'id-desc',
        offset: keep,
        limit: 100,
      });
      for (const document of stale)
        await documents.deleteDocument(key.tenantId, TRACES_COLLECTION, document.id);
      return record;
    },

    async list(session, page = {}) {
      const key = toSessionKey(session);
      const { limit } = parseWith(listSchema, page, 'trace list');
      const { documents: found, total } = await documents.listDocuments(key.tenantId, TRACES_COLLECTION, {
        prefix: sessionPrefix(key),
        order: 'id-desc',
        offset: 0,
        limit,
      });
      return { traces: found.map((document) => document.value as unknown as TraceRecord), total };
    },
  };
}
