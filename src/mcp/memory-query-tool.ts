import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import { memoryTypeSchema } from '../core/schemas/memory-record.js';
import { PAGE_TEXT_CHARS, takeWithinChars } from '../core/take-within-chars.js';
import { toSessionKey } from '../engine/sessions/session-ref.js';
import { recordChars } from '../retrieval/rank-pool.js';
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
        'and why. Give session_id to apply that session’s pinned and removed memories. Items carry their ' +
        `memory while the records' text and metadata stay within about ${PAGE_TEXT_CHARS.toLocaleString('en-US')} ` +
        'characters; the items after carry memory: null, counted by memories_omitted (read them with ' +
        'get_long_term_memory).',
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
      // The SDK serializes a result in one step, twice (text and structured content): 100 records
      // with up to 1 MiB of metadata each would be hundreds of MB. The set stays whole (its ranking,
      // packs and exclusions are small); the records stop at about PAGE_TEXT_CHARS, as a search page's.
      const shown = takeWithinChars(
        set.items,
        (item) => {
          const memory = byId.get(item.id);
          return memory ? recordChars(memory) : 0;
        },
        PAGE_TEXT_CHARS,
      ).length;
      let omitted = 0;
      return {
        items: set.items.map((item, index) => {
          const memory = byId.get(item.id);
          if (memory && index >= shown) omitted += 1;
          return {
            id: item.id,
            score: item.score,
            components: toComponentsBody(item.components),
            pinned: item.pinned,
            pack: item.pack,
            memory: memory && index < shown ? toAmsMemoryRecord(memory) : null,
          };
        }),
        packs: set.packs,
        excluded: set.excluded,
        memories_omitted: omitted,
      };
    },
  );
}
