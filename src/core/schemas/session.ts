import { z } from 'zod';
import { type JsonObject, jsonObjectSchema, jsonValueSchema } from './json.js';
import { memoryRecordInputSchema } from './memory-record.js';
import { isoDateTimeSchema, messageInputSchema } from './message.js';

/**
 * Identifies a session. Tenant is the security boundary; namespace and user id are opaque strings
 * (null = none) kept in separate fields so that no separator can make two scopes collide.
 */
export const sessionKeySchema = z.object({
  tenantId: z.string().min(1).max(256),
  namespace: z.string().max(256).nullable(),
  userId: z.string().max(256).nullable(),
  sessionId: z.string().min(1).max(256),
});
export type SessionKey = z.infer<typeof sessionKeySchema>;

/** Most messages one write (a full replace) may carry. */
export const MAX_SESSION_MESSAGES = 100_000;
/** Most pending memories a session may hold. */
export const MAX_SESSION_MEMORIES = 10_000;
/** Longest running summary (`context`), in characters. */
export const MAX_CONTEXT_CHARS = 1_000_000;

/** Largest TTL accepted: ten years. */
export const MAX_TTL_SECONDS = 315_360_000;

/**
 * A structured memory record waiting in a session to be promoted to long-term memory. Its id,
 * text and tags follow the long-term record's rules (`memoryRecordInputSchema`), so a memory the
 * session accepts is one its promotion can store.
 */
export const pendingMemorySchema = z.object({
  id: memoryRecordInputSchema.shape.id,
  text: memoryRecordInputSchema.shape.text,
  memoryType: z.enum(['semantic', 'episodic', 'message']).default('message'),
  topics: memoryRecordInputSchema.shape.topics,
  entities: memoryRecordInputSchema.shape.entities,
  namespace: z.string().max(256).nullable().default(null),
  userId: z.string().max(256).nullable().default(null),
  sessionId: z.string().max(256).nullable().default(null),
  eventDate: isoDateTimeSchema.nullable().default(null),
  createdAt: isoDateTimeSchema.optional(),
  persistedAt: isoDateTimeSchema.nullable().default(null),
  metadata: memoryRecordInputSchema.shape.metadata,
});
export type PendingMemoryInput = z.input<typeof pendingMemorySchema>;
export type PendingMemory = z.output<typeof pendingMemorySchema> & { id: string; createdAt: string };

/** How long-term memories are extracted from this session (AMS `long_term_memory_strategy`). */
export const memoryStrategySchema = z.object({
  strategy: z.enum(['discrete', 'summary', 'preferences', 'custom']).default('discrete'),
  config: z.record(z.string(), jsonValueSchema).default({}),
});
export type MemoryStrategy = z.output<typeof memoryStrategySchema>;

/** What a caller may write with a full replace (`put`). Absent fields take their defaults. */
export const sessionInputSchema = z.object({
  // zod checks an array's length before parsing its items, so an oversize batch costs no per-item work.
  messages: z.array(messageInputSchema).max(MAX_SESSION_MESSAGES).default([]),
  memories: z.array(pendingMemorySchema).max(MAX_SESSION_MEMORIES).default([]),
  data: jsonObjectSchema.nullable().default(null),
  context: z.string().max(MAX_CONTEXT_CHARS).nullable().default(null),
  ttlSeconds: z.number().int().positive().max(MAX_TTL_SECONDS).nullable().default(null),
  longTermMemoryStrategy: memoryStrategySchema.default({ strategy: 'discrete', config: {} }),
  createdAt: isoDateTimeSchema.optional(),
});
export type SessionInput = z.input<typeof sessionInputSchema>;

/** Per-session curation of the working set: memories always included, and never included. */
export interface SessionWorkingSet {
  pinned: string[];
  removed: string[];
}

/**
 * What the running summary (`context`) covers: every message with seq <= `throughSeq`. Those
 * messages stay in the durable log but leave the working memory (reads and assembly start after
 * them); `messages` and `tokens` count them, so the unsummarized size is known without a read.
 */
export interface SummaryMark {
  throughSeq: number;
  messages: number;
  tokens: number;
}

/** Session state without its messages; messages are read separately, newest first when assembling. */
export interface SessionState extends SessionKey {
  data: JsonObject | null;
  context: string | null;
  memories: PendingMemory[];
  longTermMemoryStrategy: MemoryStrategy;
  /** Pinned and removed long-term memories for this session (engram extension; kept across puts). */
  workingSet: SessionWorkingSet;
  ttlSeconds: number | null;
  /** Incremented by every write; used for optimistic concurrency. Starts at 1. */
  version: number;
  createdAt: string;
  updatedAt: string;
  /** When the session stops existing for reads; null = never. */
  expiresAt: string | null;
  messageCount: number;
  /** Sum of the cached content token counts of all messages. */
  tokenCount: number;
  /** Highest `seq` ever assigned in this session (0 when none). */
  lastSeq: number;
  /** The part of the log the summary covers; all zero before the first summarization. */
  summarized: SummaryMark;
}

/** A row of a session listing. */
export interface SessionSummary extends SessionKey {
  updatedAt: string;
  messageCount: number;
}
