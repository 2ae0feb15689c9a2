import { z } from 'zod';
import type { StoredSourceReport, StoredTrace, TraceRecord } from '../../engine/context/trace-log.js';

const traceItemSchema = z.object({
  id: z.string(),
  kind: z.enum(['system', 'memory', 'message', 'summary', 'current']),
  included: z.boolean(),
  reason: z.string(),
  tokens: z.number(),
  score: z.number().optional(),
  /** The parts of `score` by name (e.g. `similarity`, `decayed_salience`, `text_score`). */
  components: z.record(z.string(), z.number()).optional(),
  source: z.string().optional(),
});

/** A context trace on the wire: what went in and why, as ids, scores, token counts and timings. */
export const traceBodySchema = z.object({
  model: z.string(),
  encoding: z.string(),
  budget: z.object({
    max_working_memory_tokens: z.number(),
    reserved_output_tokens: z.number(),
    available: z.number(),
    used: z.number(),
  }),
  sections: z.array(
    z.object({
      name: z.string(),
      tokens: z.number(),
      cap: z.number().nullable(),
      items: z.array(traceItemSchema),
    }),
  ),
  history: z.object({
    strategy: z.string(),
    candidates: z.number(),
    kept: z.number(),
    older_not_read: z.number(),
    recounted: z.number(),
  }),
  sources: z.array(
    z.object({
      name: z.string(),
      section: z.string(),
      status: z.enum(['ok', 'timeout', 'error']),
      duration_ms: z.number(),
      item_count: z.number(),
      /** Only in the live answer of `POST /v1/context`; never stored. */
      error: z.string().optional(),
    }),
  ),
  degraded: z.boolean(),
  duration_ms: z.number().nullable(),
});
export type TraceBody = z.output<typeof traceBodySchema>;

/** A live trace may still carry source error texts; a stored one never does. */
type TraceInput = Omit<StoredTrace, 'sources'> & { sources: (StoredSourceReport & { error?: string })[] };

/** A trace (live, or as stored) in snake_case. */
export function toTraceBody(trace: TraceInput): TraceBody {
  return {
    model: trace.model,
    encoding: trace.encoding,
    budget: {
      max_working_memory_tokens: trace.budget.maxWorkingMemoryTokens,
      reserved_output_tokens: trace.budget.reservedOutputTokens,
      available: trace.budget.available,
      used: trace.budget.used,
    },
    sections: trace.sections.map((section) => ({
      name: section.name,
      tokens: section.tokens,
      cap: section.cap,
      items: section.items.map((item) => ({ ...item })),
    })),
    history: {
      strategy: trace.history.strategy,
      candidates: trace.history.candidates,
      kept: trace.history.kept,
      older_not_read: trace.history.olderNotRead,
      recounted: trace.history.recounted,
    },
    sources: trace.sources.map((report) => ({
      name: report.name,
      section: report.section,
      status: report.status,
      duration_ms: report.durationMs,
      item_count: report.itemCount,
      ...(report.error === undefined ? {} : { error: report.error }),
    })),
    degraded: trace.degraded,
    duration_ms: trace.durationMs,
  };
}

export const traceRecordBodySchema = z.object({
  id: z.string(),
  session_id: z.string(),
  namespace: z.string().nullable(),
  user_id: z.string().nullable(),
  agent_id: z.string(),
  created_at: z.string(),
  trace: traceBodySchema,
});

export function toTraceRecordBody(record: TraceRecord): z.output<typeof traceRecordBodySchema> {
  return {
    id: record.id,
    session_id: record.sessionId,
    namespace: record.namespace,
    user_id: record.userId,
    agent_id: record.agentId,
    created_at: record.createdAt,
    trace: toTraceBody(record.trace),
  };
}
