import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import type { ScoreComponents } from '../../core/ranking/rank-working-set.js';
import type { SessionState } from '../../core/schemas/session.js';
import { toSessionKey } from '../../engine/sessions/session-ref.js';
import type { Engram } from '../../engram.js';
import { resolveCurrent } from '../ams/memory-versions.js';
import { sessionRefFromRequest } from '../ams/session-ref-from-request.js';
import { sessionPathSchema, sessionScopeQuerySchema } from '../ams/working-memory-schemas.js';
import { readBody, readQuery } from '../request-parts.js';
import { extensionRoute } from './extension-route.js';

export const workingSetQuerySchema = sessionScopeQuerySchema.extend({
  query: z.string().trim().min(1).max(10_000),
  limit: z.coerce.number().int().min(1).max(1_000).default(10),
});

const ids = z.array(z.string().min(1).max(128)).max(1_000).optional();
/** Pins (always in the context), removals (never), and their undoing. */
export const workingSetChangesBodySchema = z.strictObject({
  pin: ids,
  unpin: ids,
  remove: ids,
  restore: ids,
});

const componentsSchema = z.object({
  similarity: z.number(),
  salience: z.number(),
  decay: z.number(),
  decayed_salience: z.number(),
  confidence: z.number(),
  weights: z.object({ similarity: z.number(), salience: z.number(), confidence: z.number() }),
});
export const workingSetCurationSchema = z.object({
  session_id: z.string(),
  namespace: z.string().nullable(),
  user_id: z.string().nullable(),
  version: z.number(),
  pinned: z.array(z.string()),
  removed: z.array(z.string()),
});
export const workingSetResponseSchema = workingSetCurationSchema.extend({
  items: z.array(
    z.object({
      id: z.string(),
      score: z.number(),
      components: componentsSchema,
      pinned: z.boolean(),
      pack: z.string(),
      memory: z.object({
        text: z.string(),
        memory_type: z.string(),
        topics: z.array(z.string()),
        created_at: z.string(),
        last_accessed: z.string(),
      }),
    }),
  ),
  packs: z.array(z.object({ key: z.string(), ids: z.array(z.string()) })),
  excluded: z.array(z.object({ id: z.string(), reason: z.string(), score: z.number().optional() })),
});

/** Score components on the wire (snake_case), shared with the MCP `memory.query` tool. */
export function toComponentsBody(components: ScoreComponents): z.output<typeof componentsSchema> {
  const { decayedSalience, ...rest } = components;
  return { ...rest, decayed_salience: decayedSalience };
}

const toCuration = (state: SessionState) => ({
  session_id: state.sessionId,
  namespace: state.namespace,
  user_id: state.userId,
  version: state.version,
  pinned: state.workingSet.pinned,
  removed: state.workingSet.removed,
});

/**
 * The working set of a session's subject (its user's long-term memories ranked for a query, with
 * every score component) and the session's pins and removals, which every later turn honours.
 */
export function registerWorkingSetRoutes(app: FastifyInstance, engram: Engram): void {
  const tags = ['working-memory'];

  app.get(
    '/v1/working-memory/:session_id/working-set',
    {
      config: extensionRoute({
        summary: 'The session’s working set for a query, with score components',
        description: 'Needs a session with a `user_id`: memories are never read across users.',
        tags,
        params: sessionPathSchema,
        query: workingSetQuerySchema,
        response: workingSetResponseSchema,
      }),
    },
    async (request) => {
      const ref = sessionRefFromRequest(request);
      const { query, limit } = readQuery(request, workingSetQuerySchema);
      const state = await engram.store.getSession(toSessionKey(ref));
      if (!state) throw new NotFoundError('Session', ref.sessionId);
      if (state.userId === null) {
        throw new ValidationError('The working set needs a session with a user_id', [
          { path: ['query', 'user_id'], message: 'Required for the working set' },
        ]);
      }
      const set = await engram.memories.workingSet(ref.tenantId, {
        query,
        userId: state.userId,
        namespace: state.namespace,
        // As the semantic source of assembly sees it: facts, not knowledge chunks.
        filter: { memoryType: { any: ['semantic', 'message'] }, documentId: { exists: false } },
        // As many candidates as the caller asks for (the default pool of 50 capped a larger limit).
        candidates: Math.max(50, limit),
        options: { limit },
        // Reading the set is not using its memories (as the context preview): no access recorded.
        recordAccess: false,
        pins: new Set(state.workingSet.pinned),
        removals: new Set(state.workingSet.removed),
      });
      const byId = new Map(set.memories.map((memory) => [memory.id, memory]));
      return {
        ...toCuration(state),
        items: set.items.flatMap((item) => {
          const memory = byId.get(item.id);
          if (!memory) return [];
          return [
            {
              id: item.id,
              score: item.score,
              components: toComponentsBody(item.components),
              pinned: item.pinned,
              pack: item.pack,
              memory: {
                text: memory.text,
                memory_type: memory.memoryType,
                topics: memory.topics,
                created_at: memory.createdAt,
                last_accessed: memory.lastAccessed,
              },
            },
          ];
        }),
        packs: set.packs,
        excluded: set.excluded,
      };
    },
  );

  app.post(
    '/v1/working-memory/:session_id/working-set',
    {
      config: extensionRoute({
        summary: 'Pin, unpin, remove or restore memories in the session’s context',
        description:
          'A pinned memory is always in the context, a removed one never. Only the session user’s own ' +
          'memories can be pinned (others are 404). Concurrent changes are merged.',
        tags,
        params: sessionPathSchema,
        query: sessionScopeQuerySchema,
        body: workingSetChangesBodySchema,
        response: workingSetCurationSchema,
      }),
    },
    async (request) => {
      const ref = sessionRefFromRequest(request);
      const changes = readBody(request, workingSetChangesBodySchema);
      // A pin names the memory as it is now: an id merged into another pins the memory it became
      // (the closed version would never be placed), as GET and PATCH resolve it.
      const pins: string[] = [];
      for (const id of changes.pin ?? []) {
        const memory = await resolveCurrent(engram, ref.tenantId, id);
        if (!memory || memory.userId !== ref.userId) throw new NotFoundError('Memory', id);
        pins.push(memory.id);
      }
      const resolved = changes.pin ? { ...changes, pin: [...new Set(pins)] } : changes;
      return toCuration(await engram.sessions.updateWorkingSet(ref, resolved));
    },
  );
}
