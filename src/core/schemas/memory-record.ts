import { z } from 'zod';
import { jsonValueSchema } from './json.js';
import { isoDateTimeSchema } from './message.js';

/** Longest memory text accepted (characters). Longer knowledge must be ingested as a document. */
export const MAX_MEMORY_TEXT_CHARS = 20_000;

export const memoryTypeSchema = z.enum(['semantic', 'episodic', 'message', 'procedural']);
export type MemoryType = z.infer<typeof memoryTypeSchema>;

/**
 * The types a generic create or edit accepts (REST and MCP alike): procedures are created and
 * changed through `/v1/agents/{agent_id}/procedures` only.
 */
export const writableMemoryTypeSchema = memoryTypeSchema.exclude(['procedural']);

/** Longest topic or entity, in characters. */
export const MAX_TAG_CHARS = 256;

/**
 * Largest `metadata` of one memory, as JSON bytes (1 MiB, as session `data`). Metadata travels
 * with the memory into every search page, working set and export, so a library caller (whom no
 * body limit stops) cannot store an unbounded object. A procedure at every limit of its own
 * (steps, examples and triggers live in metadata) stays well under it in any script.
 */
export const MAX_METADATA_BYTES = 1_048_576;

const metadataSchema = z
  .record(z.string(), jsonValueSchema)
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_METADATA_BYTES, {
    message: `Memory metadata is limited to ${MAX_METADATA_BYTES} bytes of JSON (MAX_METADATA_BYTES)`,
  });

const tagListSchema = z.array(z.string().trim().min(1).max(MAX_TAG_CHARS)).max(100);
const unitIntervalSchema = z.number().min(0).max(1);

/** A long-term memory as a caller creates it. Unset fields take defaults. */
export const memoryRecordInputSchema = z.object({
  id: z.string().trim().min(1).max(128).optional(),
  text: z
    .string()
    .trim()
    .min(1, 'Memory text cannot be empty')
    .max(MAX_MEMORY_TEXT_CHARS, `Memory text is limited to ${MAX_MEMORY_TEXT_CHARS} characters`),
  memoryType: memoryTypeSchema.default('semantic'),
  namespace: z.string().max(256).nullable().default(null),
  userId: z.string().max(256).nullable().default(null),
  sessionId: z.string().max(256).nullable().default(null),
  /** engram extension: knowledge, episodes and procedures belong to an agent. */
  agentId: z.string().max(256).nullable().default(null),
  /** engram extension: the knowledge document a chunk came from, and its display name. */
  documentId: z.string().max(256).nullable().default(null),
  source: z.string().max(512).nullable().default(null),
  topics: tagListSchema.default([]),
  entities: tagListSchema.default([]),
  eventDate: isoDateTimeSchema.nullable().default(null),
  createdAt: isoDateTimeSchema.optional(),
  lastAccessed: isoDateTimeSchema.optional(),
  salience: unitIntervalSchema.default(0.5),
  confidence: unitIntervalSchema.default(0.8),
  pinned: z.boolean().default(false),
  metadata: metadataSchema.default({}),
  /** A precomputed embedding; it must have the configured provider's dimensions. */
  embedding: z
    .array(z.number().refine(Number.isFinite, 'Embedding values must be finite'))
    .max(8_192)
    .optional(),
});
export type MemoryRecordInput = z.input<typeof memoryRecordInputSchema>;

/** What an edit may change; every edit writes a new version of the memory under the same id. */
export const memoryRecordEditSchema = memoryRecordInputSchema
  .omit({ id: true, createdAt: true, embedding: true })
  .partial()
  .strict();
export type MemoryRecordEdit = z.input<typeof memoryRecordEditSchema>;

/**
 * Who or what wrote a version: `user` (a person, e.g. approving a procedure), `agent` (an agent
 * through MCP or its key), `llm` (the background write path: extraction, episodes, captured
 * procedures), `api` (a REST or library call), `system` (engram itself: migrations, promotion).
 */
export const memoryWriterSchema = z.enum(['user', 'agent', 'llm', 'api', 'system']);
export type MemoryWriter = z.infer<typeof memoryWriterSchema>;

/**
 * A stored long-term memory (without its embedding, which stays in the store). Its `id` names the
 * memory for its whole life: an edit writes a new `version` in place and keeps the prior one in
 * the memory's history (`MemoryVersion`).
 */
export interface MemoryRecord {
  id: string;
  tenantId: string;
  namespace: string | null;
  userId: string | null;
  sessionId: string | null;
  agentId: string | null;
  documentId: string | null;
  source: string | null;
  text: string;
  memoryType: MemoryType;
  topics: string[];
  entities: string[];
  eventDate: string | null;
  createdAt: string;
  updatedAt: string;
  lastAccessed: string;
  accessCount: number;
  salience: number;
  confidence: number;
  pinned: boolean;
  /**
   * Merges: the id of another memory this one replaced, and the memory that replaced this one
   * (set on a memory merged away, which is then closed). Edits never set them: they keep the id.
   */
  supersedes: string | null;
  supersededBy: string | null;
  /** The current version's number: 1 when created, one more with every edit. */
  version: number;
  /** Who or what wrote the current version. */
  writtenBy: MemoryWriter;
  /** When the current version was written. */
  validFrom: string;
  /** When a merge closed this memory; null while current. */
  validTo: string | null;
  /** SHA-256 of the canonical identity (text + owner + type + meaning), for deduplication. */
  memoryHash: string;
  persistedAt: string;
  metadata: Record<string, z.infer<typeof jsonValueSchema>>;
  /** Model identity of the stored embedding; null when none is stored yet. */
  embeddingModel: string | null;
}

/** The fields that change from one version of a memory to the next. */
export const VERSIONED_FIELDS = [
  'text',
  'memoryType',
  'namespace',
  'userId',
  'sessionId',
  'agentId',
  'documentId',
  'source',
  'topics',
  'entities',
  'eventDate',
  'salience',
  'confidence',
  'pinned',
  'metadata',
  'memoryHash',
  'updatedAt',
] as const;

/**
 * One version of a memory, as its history holds it: the versioned fields, the version number,
 * when it was current (`validFrom` to `validTo`, null for the current version) and who wrote it.
 */
export type MemoryVersion = Pick<MemoryRecord, 'id' | (typeof VERSIONED_FIELDS)[number]> & {
  version: number;
  validFrom: string;
  validTo: string | null;
  writtenBy: MemoryWriter;
};

/** Most values one filter list (`any`, `all`, `none`) may hold. */
export const MAX_FILTER_VALUES = 1_000;

/** A tag-like field's conditions; all given conditions must hold. */
export const tagFilterSchema = z
  .object({
    eq: z.string().optional(),
    ne: z.string().optional(),
    any: z.array(z.string()).max(MAX_FILTER_VALUES).optional(),
    all: z.array(z.string()).max(MAX_FILTER_VALUES).optional(),
    none: z.array(z.string()).max(MAX_FILTER_VALUES).optional(),
    /**
     * Prefix match, case-sensitive (hierarchical namespaces such as `workspace:abc/…`): the value
     * starts with it; for list fields, some element does. A null field matches no prefix.
     */
    startswith: z.string().min(1).max(256).optional(),
    /** true: the field is set (not null; a non-empty list); false: it is not. */
    exists: z.boolean().optional(),
  })
  .strict();
export type TagFilter = z.infer<typeof tagFilterSchema>;

export const dateRangeSchema = z
  .object({
    gt: isoDateTimeSchema.optional(),
    gte: isoDateTimeSchema.optional(),
    lt: isoDateTimeSchema.optional(),
    lte: isoDateTimeSchema.optional(),
    /** The instant lies outside `[gte, lt)` (how a datetime `ne` at whole-second resolution is asked). */
    except: z.object({ gte: isoDateTimeSchema, lt: isoDateTimeSchema }).strict().optional(),
  })
  .strict();
export type DateRange = z.infer<typeof dateRangeSchema>;

/** Filters for listing and searching. Absent = no condition. Always scoped to one tenant. */
export const memoryFilterSchema = z
  .object({
    ids: z.array(z.string()).max(10_000).optional(),
    namespace: tagFilterSchema.optional(),
    userId: tagFilterSchema.optional(),
    sessionId: tagFilterSchema.optional(),
    agentId: tagFilterSchema.optional(),
    documentId: tagFilterSchema.optional(),
    memoryType: tagFilterSchema.optional(),
    topics: tagFilterSchema.optional(),
    entities: tagFilterSchema.optional(),
    createdAt: dateRangeSchema.optional(),
    eventDate: dateRangeSchema.optional(),
    lastAccessed: dateRangeSchema.optional(),
    pinned: z.boolean().optional(),
    /** By default only current versions (validTo null) are visible. */
    includeSuperseded: z.boolean().default(false),
  })
  .strict();
export type MemoryFilter = z.output<typeof memoryFilterSchema>;
export type MemoryFilterInput = z.input<typeof memoryFilterSchema>;
