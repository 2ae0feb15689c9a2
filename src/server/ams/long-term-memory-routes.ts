import type { FastifyInstance, FastifyRequest } from 'fastify';
import { parseWith } from '../../core/errors.js';
import {
  type MemoryFilterInput,
  type MemoryRecord,
  type MemoryRecordEdit,
  memoryRecordInputSchema,
} from '../../core/schemas/memory-record.js';
import { PAGE_TEXT_CHARS } from '../../core/take-within-chars.js';
import { MAX_MEMORY_BATCH } from '../../engine/long-term/long-term-memory.js';
import { assertIdsFreeStanding } from '../../engine/long-term/memory-owner.js';
import type { Engram } from '../../engram.js';
import { MAX_SEARCH_POOL } from '../../retrieval/hybrid-search.js';
import { tenantOf } from '../auth/principal.js';
import { jsonListAnswer } from '../json-answer.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import { validateRequest } from '../validate-request.js';
import { AmsHttpError } from './ams-http-error.js';
import { selectForgotten } from './forget-policy.js';
import { toAmsRecord, toAmsResult, toAmsVersion, toMemoryInput } from './long-term-memory-mapper.js';
import {
  ackSchema,
  amsRecordSchema,
  compactQuerySchema,
  createMemoriesBodySchema,
  deleteQuerySchema,
  editBodySchema,
  forgetBodySchema,
  forgetQuerySchema,
  forgetResponseSchema,
  historyQuerySchema,
  memoryHistorySchema,
  memoryPathSchema,
  optimizeQuerySchema,
  searchBodySchema,
  searchResponseSchema,
} from './long-term-memory-schemas.js';
import { planSearch, touchHits } from './long-term-memory-search.js';
import { deleteMemories, resolveCurrent, resolveLatest } from './memory-versions.js';
import { upsertMemories } from './upsert-memories.js';

const PAGE = 1_000;
/** The generic routes refuse records a knowledge document or a procedure owns (memory-owner.ts). */
const OWNED_RECORD_ERRORS = {
  409: 'An id names a record owned by a knowledge document or a procedure (`code` says which)',
};
const tags = ['long-term-memory'];
const notFound = (id: string) => new AmsHttpError(404, `Memory with ID ${id} not found`);

/** Current AMS-visible memories matching `filter`, oldest first, at most `limit`. */
async function listAll(
  engram: Engram,
  tenantId: string,
  filter: MemoryFilterInput,
  limit = Number.POSITIVE_INFINITY,
): Promise<MemoryRecord[]> {
  const memories: MemoryRecord[] = [];
  for (let offset = 0; memories.length < limit; offset += PAGE) {
    const page = await engram.memories.list(tenantId, filter, {
      limit: Math.min(PAGE, limit - memories.length),
      offset,
      order: 'created_asc',
    });
    memories.push(...page.memories);
    if (page.memories.length === 0 || offset + PAGE >= page.total) break;
  }
  return memories;
}

/**
 * The equality scope of compact and forget (query `namespace`, `user_id`, `session_id`): free-standing
 * memories only, never procedures or knowledge chunks (memory-owner.ts).
 */
function scopeFilter(query: {
  namespace?: string;
  user_id?: string;
  session_id?: string;
}): MemoryFilterInput {
  return {
    memoryType: { none: ['procedural'] },
    documentId: { exists: false },
    ...(query.namespace !== undefined ? { namespace: { eq: query.namespace } } : {}),
    ...(query.user_id !== undefined ? { userId: { eq: query.user_id } } : {}),
    ...(query.session_id !== undefined ? { sessionId: { eq: query.session_id } } : {}),
  };
}

/** `memory_ids` as a list: the one query parameter that repeats (`?memory_ids=a&memory_ids=b`). */
function readMemoryIds(request: FastifyRequest): string[] {
  const raw = (request.query as Record<string, unknown> | undefined)?.memory_ids;
  const memoryIds = raw === undefined ? [] : Array.isArray(raw) ? raw : [raw];
  // An empty value (`?memory_ids=`) names no memory: AMS deletes nothing and says 0.
  return validateRequest(deleteQuerySchema, { memory_ids: memoryIds }, 'query').memory_ids.filter(
    (id) => id !== '',
  );
}

/**
 * AMS long-term memory (spec §4.7–4.13), scoped to the caller's tenant. A memory's id is stable: a
 * PATCH writes a new version under the same id (the prior one stays in its history, readable at
 * `GET /v1/long-term-memory/{id}/history`), and an id merged away (or a per-edit id from before
 * stable ids) resolves to the memory it became. See docs/server.md.
 */
export function registerLongTermMemoryRoutes(app: FastifyInstance, engram: Engram): void {
  const create = async (request: FastifyRequest) => {
    const tenantId = tenantOf(request);
    const body = readBody(request, createMemoriesBodySchema);
    // AMS upserts record by record, so of two records with one id the last one stays.
    const byId = new Map(body.memories.map((record) => [record.id, record]));
    const inputs = [...byId.values()].map(toMemoryInput);
    if (inputs.length === 0) return { status: 'ok' };
    // Validate everything before anything is written.
    inputs.forEach((input, index) => {
      parseWith(memoryRecordInputSchema, input, `memory at index ${index}`);
    });
    // An id of a knowledge chunk or a procedure would write a new version of it: refused (409).
    await assertIdsFreeStanding(
      engram.store.memories,
      tenantId,
      inputs.map((input) => input.id),
    );
    await upsertMemories(engram, tenantId, inputs, { deduplicate: body.deduplicate });
    return { status: 'ok' };
  };
  const createDocs = {
    summary:
      'Create long-term memories (an existing id gets a new version, same id; indexed before the answer)',
    tags,
    body: createMemoriesBodySchema,
    response: ackSchema,
    errors: OWNED_RECORD_ERRORS,
  };
  const createConfig = { docs: createDocs, bodyFieldLimits: { arrays: { memories: MAX_MEMORY_BATCH } } };
  app.post('/v1/long-term-memory/', { config: createConfig }, create);
  app.post('/v1/long-term-memory', { config: createConfig }, create);

  app.post(
    '/v1/long-term-memory/search',
    {
      config: {
        // `read` by the operation table: an inspector may search (it bumps access counts, as any read does).
        docs: {
          summary: 'Search or list long-term memories (filters, recency re-rank, exact totals)',
          tags,
          query: optimizeQuerySchema,
          body: searchBodySchema,
          response: searchResponseSchema,
        },
      },
    },
    async (request, reply) => {
      readQuery(request, optimizeQuerySchema);
      const body = readBody(request, searchBodySchema);
      const tenantId = tenantOf(request);
      const plan = await planSearch(engram, tenantId, body);
      const { hits, total } = await engram.memories.search(tenantId, plan.request);
      if (plan.bumpsAccess) {
        await touchHits(
          engram,
          tenantId,
          hits.map((hit) => hit.memory),
          new Date(),
        );
      }
      // An offset past MAX_SEARCH_POOL is refused: no next page points there.
      const next = body.offset + body.limit;
      // Up to 100 hits of up to 20,000 characters each: serialized hit by hit in slices.
      const answer = {
        memories: hits,
        total,
        next_offset: next < total && next <= MAX_SEARCH_POOL ? next : null,
      };
      return jsonListAnswer(reply, answer, 'memories', (hit: (typeof hits)[number]) =>
        toAmsResult(hit, plan.mode, plan.listing),
      );
    },
  );

  app.get(
    '/v1/long-term-memory/:memory_id',
    {
      config: {
        docs: {
          summary: 'Read a long-term memory (an old version id reads the current version)',
          tags,
          params: memoryPathSchema,
          response: amsRecordSchema,
        },
      },
    },
    async (request) => {
      const { memory_id } = readPath(request, memoryPathSchema);
      const memory = await resolveCurrent(engram, tenantOf(request), memory_id);
      if (!memory) throw notFound(memory_id);
      return toAmsRecord(memory);
    },
  );

  app.patch(
    '/v1/long-term-memory/:memory_id',
    {
      config: {
        docs: {
          summary:
            'Edit a long-term memory: a new version under the same id (the prior one kept in its history)',
          tags,
          params: memoryPathSchema,
          body: editBodySchema,
          response: amsRecordSchema,
          errors: OWNED_RECORD_ERRORS,
        },
      },
    },
    async (request) => {
      const { memory_id } = readPath(request, memoryPathSchema);
      const body = readBody(request, editBodySchema);
      const changes: MemoryRecordEdit = {
        ...(body.text != null ? { text: body.text } : {}),
        ...(body.topics != null ? { topics: body.topics } : {}),
        ...(body.entities != null ? { entities: body.entities } : {}),
        ...(body.memory_type != null ? { memoryType: body.memory_type } : {}),
        ...(body.namespace != null ? { namespace: body.namespace } : {}),
        ...(body.user_id != null ? { userId: body.user_id } : {}),
        ...(body.session_id != null ? { sessionId: body.session_id } : {}),
        ...(body.event_date != null ? { eventDate: body.event_date } : {}),
        ...(body.pinned != null ? { pinned: body.pinned } : {}),
      };
      if (Object.keys(changes).length === 0) throw new AmsHttpError(400, 'No fields provided for update');
      const tenantId = tenantOf(request);
      await assertIdsFreeStanding(engram.store.memories, tenantId, [memory_id]);
      const current = await resolveCurrent(engram, tenantId, memory_id);
      if (!current) throw notFound(memory_id);
      return toAmsRecord(await engram.memories.edit(tenantId, current.id, changes));
    },
  );

  app.get(
    '/v1/long-term-memory/:memory_id/history',
    {
      config: {
        docs: {
          summary: 'A memory’s versions, newest first (engram extension)',
          description:
            'The versions of the memory: what each said, `valid_from`/`valid_to` (null while current) and ' +
            '`written_by` (user, agent, llm, api or system). Any record kind (facts, knowledge chunks, ' +
            'episodes, procedures); an id merged away answers for the memory it became. A page holds at ' +
            `most \`limit\` versions and, past the first, about ${PAGE_TEXT_CHARS.toLocaleString('en-US')} ` +
            'characters of text; `next_before_version` (null at the oldest version) is the next page’s ' +
            '`before_version`.',
          tags,
          params: memoryPathSchema,
          query: historyQuerySchema,
          response: memoryHistorySchema,
          errors: { 404: 'No memory with this id in the caller’s tenant' },
          extension: true,
        },
      },
    },
    async (request, reply) => {
      const { memory_id } = readPath(request, memoryPathSchema);
      const { limit, before_version } = readQuery(request, historyQuerySchema);
      const tenantId = tenantOf(request);
      const memory = await resolveLatest(engram, tenantId, memory_id);
      if (!memory) throw notFound(memory_id);
      const { versions, nextBefore } = await engram.memories.history(tenantId, memory.id, {
        limit,
        maxChars: PAGE_TEXT_CHARS,
        ...(before_version !== undefined ? { before: before_version } : {}),
      });
      // A page holds at most about PAGE_TEXT_CHARS characters of text, serialized version by
      // version in slices; in one step, 300 versions of 12,000 characters held the loop 52–70 ms.
      const answer = { id: memory.id, versions, next_before_version: nextBefore };
      return jsonListAnswer(reply, answer, 'versions', toAmsVersion);
    },
  );

  const deleteDocs = {
    summary: 'Delete long-term memories by id (each with all its versions)',
    tags,
    query: deleteQuerySchema,
    response: ackSchema,
    errors: OWNED_RECORD_ERRORS,
  };
  const remove = async (request: FastifyRequest) => {
    const tenantId = tenantOf(request);
    const ids = readMemoryIds(request);
    // All or nothing: one id of a knowledge chunk or a procedure refuses the whole request (409).
    await assertIdsFreeStanding(engram.store.memories, tenantId, ids);
    const deleted = await deleteMemories(engram, tenantId, ids);
    return { status: `ok, deleted ${deleted} memories` };
  };
  app.delete('/v1/long-term-memory', { config: { docs: deleteDocs } }, remove);

  app.post(
    '/v1/long-term-memory/compact',
    {
      config: {
        docs: {
          summary: 'Merge exact duplicates (same memory hash) in a scope; keeps the oldest',
          tags,
          query: compactQuerySchema,
          response: ackSchema,
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const filter = scopeFilter(readQuery(request, compactQuerySchema));
      // Per hash: the oldest copy stays, or the pinned ones when any is pinned; a pinned memory
      // is never deleted (forget spares it too).
      const groups = new Map<string, MemoryRecord[]>();
      for (const memory of await listAll(engram, tenantId, filter)) {
        const group = groups.get(memory.memoryHash);
        if (group) group.push(memory);
        else groups.set(memory.memoryHash, [memory]);
      }
      const duplicates: string[] = [];
      for (const group of groups.values()) {
        if (group.length < 2) continue;
        const anyPinned = group.some((memory) => memory.pinned);
        const kept = anyPinned ? null : group[0];
        for (const memory of group) if (memory !== kept && !memory.pinned) duplicates.push(memory.id);
      }
      await deleteMemories(engram, tenantId, duplicates);
      const { total } = await engram.memories.list(tenantId, filter, { limit: 1, offset: 0 });
      return { status: `ok, ${total} memories remaining after compaction` };
    },
  );

  app.post(
    '/v1/long-term-memory/forget',
    {
      config: {
        docs: {
          summary: 'Forget memories by age, inactivity and budget (dry run by default)',
          tags,
          query: forgetQuerySchema,
          body: forgetBodySchema,
          response: forgetResponseSchema,
        },
      },
    },
    async (request) => {
      const tenantId = tenantOf(request);
      const query = readQuery(request, forgetQuerySchema);
      const body = readBody(request, forgetBodySchema);
      const candidates = await listAll(engram, tenantId, scopeFilter(query), query.limit);
      const ids = selectForgotten(candidates, body.policy, new Set(body.pinned_ids ?? []), new Date());
      if (!query.dry_run) await deleteMemories(engram, tenantId, ids);
      return { scanned: candidates.length, deleted: ids.length, deleted_ids: ids, dry_run: query.dry_run };
    },
  );
}
