import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import { memoryTypeSchema } from '../core/schemas/memory-record.js';
import { toSessionKey } from '../engine/sessions/session-ref.js';
import { toComponentsBody } from '../server/extensions/working-set-routes.js';
import { toAmsMemoryRecord } from './ams-memory-record.js';
import { defineTool, type McpContext } from './define-tool.js';
import { resolveSession } from './working-memory-tools.js';

/**
 * `memory.query`: the working set for a query and a subject (user + namespace), as assembly sees
 * it: hybrid search, then ranking by similarity, decayed salience and confidence; pins always in,
 * removals never. With `session_id`, that session's pins and removals apply.
 */
export function registerMemoryQueryTool(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;
  defineTool(
    server,
    context,
    'memory.query',
    {
      description:
        "The working set of long-term memories for a query about a user: what engram would put in the model's " +
        'context, ranked by similarity, salience and confidence, grouped into packs, with what was left out ' +
        'and why. Give session_id to apply that session’s pinned and removed memories.',
      inputSchema: {
        query: z.string().min(1).max(10_000),
        user_id: z.string().min(1).max(256).describe('Whose memories (the subject)'),
        namespace: z.string().max(256).nullish(),
        session_id: z.string().min(1).max(256).nullish().describe('Apply this session’s pins and removals'),
        memory_types: z.array(memoryTypeSchema).min(1).nullish().describe('Only these memory types'),
        limit: z.number().int().min(1).max(100).default(10).describe('Most memories in the set'),
      },
    },
    async (args) => {
      // Found as get_working_memory finds it; a session that does not exist is not found.
      const found = args.session_id
        ? await resolveSession(context, { ...args, session_id: args.session_id })
        : null;
      if (found && !found.exists) throw new NotFoundError('Session', found.ref.sessionId);
      const session = found ? await engram.store.getSession(toSessionKey(found.ref)) : null;
      const set = await engram.memories.workingSet(tenantId, {
        query: args.query,
        userId: args.user_id,
        namespace: args.namespace ?? null,
        // As assembly's semantic source and REST's working set see it: facts and turns (or the types
        // asked for), never knowledge chunks.
        filter: {
          memoryType: { any: args.memory_types ?? ['semantic', 'message'] },
          documentId: { exists: false },
        },
        ...(session
          ? { pins: new Set(session.workingSet.pinned), removals: new Set(session.workingSet.removed) }
          : {}),
        options: { limit: args.limit },
      });
      const byId = new Map(set.memories.map((memory) => [memory.id, memory]));
      return {
        items: set.items.map((item) => {
          const memory = byId.get(item.id);
          return {
            id: item.id,
            score: item.score,
            components: toComponentsBody(item.components),
            pinned: item.pinned,
            pack: item.pack,
            memory: memory ? toAmsMemoryRecord(memory) : null,
          };
        }),
        packs: set.packs,
        excluded: set.excluded,
      };
    },
  );
}
