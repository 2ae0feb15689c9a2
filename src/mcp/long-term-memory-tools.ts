import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ValidationError } from '../core/errors.js';
import type { MemoryRecordEdit, MemoryRecordInput } from '../core/schemas/memory-record.js';
import { writableMemoryTypeSchema } from '../core/schemas/memory-record.js';
import { PAGE_TEXT_CHARS } from '../core/take-within-chars.js';
import { assertIdsFreeStanding } from '../engine/long-term/memory-owner.js';
import type { SearchRequest } from '../retrieval/hybrid-search.js';
import { amsModeOf, resolveSearchMode, singleRankingOverrides } from '../retrieval/resolve-search-mode.js';
import { toAmsVersion } from '../server/ams/long-term-memory-mapper.js';
import { dateTimeArgument, filterArguments, toMemoryFilter } from './ams-filter-arguments.js';
import { type AmsScoreType, toAmsMemoryRecord, toAmsSearchResult } from './ams-memory-record.js';
import { defineTool, type McpContext } from './define-tool.js';

/** Tags as REST takes them: AMS stores them comma-separated, so a tag with a comma is refused. */
const tags = () =>
  z
    .array(
      z
        .string()
        .max(256)
        .refine(
          (tag) => !tag.includes(','),
          'A tag cannot contain a comma (AMS stores tags comma-separated)',
        ),
    )
    .max(100)
    .nullish();
const unitInterval = () => z.number().min(0).max(1).nullish();

/** The fields of a memory an agent may set, as AMS names them (plus engram's salience and confidence). */
const memoryFields = {
  text: z.string().min(1).max(20_000),
  // As on REST: procedures are made through their own routes, never as a memory_type here.
  memory_type: writableMemoryTypeSchema
    .nullish()
    .describe(
      'semantic (facts, preferences; the default), episodic (events) or message (a conversation message)',
    ),
  namespace: z.string().max(256).nullish(),
  user_id: z.string().max(256).nullish(),
  session_id: z.string().max(256).nullish(),
  topics: tags(),
  entities: tags(),
  event_date: dateTimeArgument().nullish().describe('When an episodic event happened (ISO 8601)'),
  pinned: z.boolean().nullish(),
  salience: unitInterval().describe('How important the memory is, 0 to 1 (default 0.5)'),
  confidence: unitInterval().describe('How sure the memory is true, 0 to 1 (default 0.8)'),
};

const memoryArgument = z.object({
  id: z.string().min(1).max(128).nullish().describe('Optional; a ULID is generated when absent'),
  ...memoryFields,
  created_at: dateTimeArgument().nullish(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
});
type MemoryArgument = z.output<typeof memoryArgument>;

/** Keeps the keys whose value is neither null nor undefined (AMS treats null as "not given"). */
const given = <T extends Record<string, unknown>>(fields: T) =>
  Object.fromEntries(Object.entries(fields).filter(([, value]) => value != null)) as Partial<{
    [K in keyof T]: NonNullable<T[K]>;
  }>;

function toMemoryInput(memory: MemoryArgument): MemoryRecordInput {
  return {
    ...given({
      id: memory.id,
      memoryType: memory.memory_type,
      topics: memory.topics,
      entities: memory.entities,
      pinned: memory.pinned,
      salience: memory.salience,
      confidence: memory.confidence,
      createdAt: memory.created_at,
      metadata: memory.metadata as MemoryRecordInput['metadata'],
    }),
    text: memory.text,
    namespace: memory.namespace ?? null,
    userId: memory.user_id ?? null,
    sessionId: memory.session_id ?? null,
    eventDate: memory.event_date ?? null,
  };
}

/** The AMS search arguments (engram defaults to its hybrid mode) as an engram search request. */
export const searchArguments = {
  ...filterArguments,
  search_mode: z
    .enum(['semantic', 'keyword', 'hybrid'])
    .optional()
    .describe(
      'hybrid (BM25 + vectors + dates, entities, neighbouring turns: the default), keyword (BM25) or ' +
        'semantic (vectors alone with a real embedding model; hybrid over the offline static vectors)',
    ),
  distance_threshold: z.number().min(0).max(2).nullish().describe('Drop vector matches farther than this'),
  limit: z.number().int().min(1).max(100).default(10),
  offset: z.number().int().min(0).max(10_000).default(0),
  recency_boost: z.boolean().nullish().describe('Favour recently created memories (default false)'),
  recency_half_life_created_days: z.number().positive().max(36_500).nullish(),
};
type SearchArguments = z.output<z.ZodObject<typeof searchArguments>>;

/** The engine request of the AMS arguments; modes map as `resolveSearchMode` says. */
export function toSearchRequest(text: string, args: SearchArguments, embeddingModel: string): SearchRequest {
  const mode = resolveSearchMode(args.search_mode, embeddingModel, args.distance_threshold != null);
  return {
    text,
    filter: toMemoryFilter(args),
    mode,
    ...singleRankingOverrides(mode),
    limit: args.limit,
    offset: args.offset,
    ...(args.distance_threshold != null ? { distanceThreshold: args.distance_threshold } : {}),
    ...(args.recency_boost
      ? {
          recency: { weight: 1, halfLifeDays: args.recency_half_life_created_days ?? 30, field: 'createdAt' },
        }
      : {}),
  };
}

/** search, create, get, edit and delete of long-term memories, with AMS's argument names. */
export function registerLongTermMemoryTools(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;

  defineTool(
    server,
    context,
    'search_long_term_memory',
    {
      description:
        'Search long-term memories by text (hybrid BM25 + vectors by default) within filters. An empty ' +
        'text lists the matching memories, newest first. Filters are objects: {"eq": "x"}, {"any": [...]}, ' +
        'dates {"gte": "2024-01-01T00:00:00Z"}. Answers {memories, total, next_offset}: at most `limit` ' +
        `memories and, past the first, about ${PAGE_TEXT_CHARS.toLocaleString('en-US')} characters of ` +
        'their text; next_offset (null: no more) is the next page’s offset.',
      inputSchema: {
        text: z.string().max(10_000).nullish().describe('The query; empty lists by filters only'),
        ...searchArguments,
      },
    },
    async (args) => {
      const text = args.text?.trim() ?? '';
      const request = toSearchRequest(text, args, engram.memories.embeddingModel);
      // The SDK serializes a result in one step, twice (text and structured content): 100 memories of
      // 20,000 characters held the event loop ~60 ms. A page ends at about PAGE_TEXT_CHARS of text,
      // and the search reads only the records that can fill it.
      const { hits, total, textCut } = await engram.memories.search(tenantId, {
        ...request,
        maxTextChars: PAGE_TEXT_CHARS,
      });
      const scoreType: AmsScoreType = text === '' ? null : amsModeOf[request.mode ?? 'hybrid'];
      const next = args.offset + (textCut ? hits.length : args.limit);
      return {
        memories: hits.map((hit) => toAmsSearchResult(hit, scoreType)),
        total,
        next_offset: next < total ? next : null,
      };
    },
  );

  defineTool(
    server,
    context,
    'create_long_term_memories',
    {
      description:
        'Store long-term memories. Resolve pronouns and relative dates before storing ("User prefers ' +
        'dark mode", not "he likes it"); give episodic memories an event_date. A memory identical to a ' +
        'stored one is not stored twice: it is reported under duplicates.',
      inputSchema: { memories: z.array(memoryArgument).min(1).max(1_000) },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    async (args) => {
      await assertIdsFreeStanding(
        engram.store.memories,
        tenantId,
        args.memories.map((memory) => memory.id),
      );
      const { inserted, duplicates } = await engram.memories.create(
        tenantId,
        args.memories.map(toMemoryInput),
        { writtenBy: 'agent' },
      );
      return {
        status: 'ok',
        memory_ids: inserted.map((memory) => memory.id),
        duplicates: duplicates.map((duplicate) => ({
          requested_id: duplicate.requestedId,
          existing_id: duplicate.existing.id,
        })),
      };
    },
  );

  defineTool(
    server,
    context,
    'get_long_term_memory',
    {
      description:
        'Get one long-term memory by id: its current version (`version`, `written_by`). A memory merged ' +
        'into another comes back closed, with superseded_by set.',
      inputSchema: { memory_id: z.string().min(1).max(128) },
    },
    async (args) => toAmsMemoryRecord(await engram.memories.get(tenantId, args.memory_id)),
  );

  defineTool(
    server,
    context,
    'get_long_term_memory_history',
    {
      description:
        'The versions of one long-term memory, newest first: what each said, valid_from/valid_to and ' +
        'written_by (user, agent, llm, api or system). A page holds at most `limit` versions and about ' +
        `${PAGE_TEXT_CHARS.toLocaleString('en-US')} characters of text; pass next_before_version as ` +
        'before_version for the next page (null: no older versions).',
      inputSchema: {
        memory_id: z.string().min(1).max(128),
        limit: z.number().int().min(1).max(1_000).default(100),
        before_version: z.number().int().min(1).optional(),
      },
    },
    async (args) => {
      const { versions, nextBefore } = await engram.memories.history(tenantId, args.memory_id, {
        limit: args.limit,
        maxChars: PAGE_TEXT_CHARS,
        ...(args.before_version !== undefined ? { before: args.before_version } : {}),
      });
      return { id: args.memory_id, versions: versions.map(toAmsVersion), next_before_version: nextBefore };
    },
  );

  defineTool(
    server,
    context,
    'edit_long_term_memory',
    {
      description:
        'Change fields of a long-term memory. Only the fields given change. The id stays: the answer is ' +
        'the new version (version + 1); earlier versions stay readable with get_long_term_memory_history.',
      inputSchema: {
        memory_id: z.string().min(1).max(128),
        ...memoryFields,
        text: memoryFields.text.nullish(),
      },
      annotations: { destructiveHint: false, idempotentHint: false },
    },
    async ({ memory_id, ...fields }) => {
      const changes: MemoryRecordEdit = given({
        text: fields.text,
        memoryType: fields.memory_type,
        namespace: fields.namespace,
        userId: fields.user_id,
        sessionId: fields.session_id,
        topics: fields.topics,
        entities: fields.entities,
        eventDate: fields.event_date,
        pinned: fields.pinned,
        salience: fields.salience,
        confidence: fields.confidence,
      });
      if (Object.keys(changes).length === 0) throw new ValidationError('No fields provided for update');
      await assertIdsFreeStanding(engram.store.memories, tenantId, [memory_id]);
      return toAmsMemoryRecord(
        await engram.memories.edit(tenantId, memory_id, changes, { writtenBy: 'agent' }),
      );
    },
  );

  defineTool(
    server,
    context,
    'delete_long_term_memories',
    {
      description: 'Delete long-term memories by id. Unknown ids are skipped; the answer says how many went.',
      inputSchema: { memory_ids: z.array(z.string().min(1).max(128)).min(1).max(1_000) },
      annotations: { destructiveHint: true, idempotentHint: true },
    },
    async (args) => {
      // All or nothing: one id of a knowledge chunk or a procedure refuses the whole call.
      await assertIdsFreeStanding(engram.store.memories, tenantId, args.memory_ids);
      // Each with every memory linked to it by merges: its old text must not linger.
      const deleted = await engram.memories.delete(tenantId, args.memory_ids);
      return { status: `ok, deleted ${deleted} memories`, deleted };
    },
  );
}
