import type { FastifyInstance } from 'fastify';
import { buildMemoryPrompt } from '../../engine/context/memory-prompt.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { jsonAnswer } from '../json-answer.js';
import { readBody, readQuery } from '../request-parts.js';
import { amsTagFilterSchema } from './ams-filters.js';
import { AmsHttpError } from './ams-http-error.js';
import { amsModelWindows } from './ams-model-windows.js';
import { findUniqueSession } from './find-unique-session.js';
import { toAmsResult } from './long-term-memory-mapper.js';
import { type AmsSearchBody, optimizeQuerySchema, searchBodySchema } from './long-term-memory-schemas.js';
import { planSearch, touchHits } from './long-term-memory-search.js';
import { memoryPromptBodySchema, memoryPromptResponseSchema } from './memory-prompt-schemas.js';

/**
 * The search behind `long_term_search`: an object searches for `query` (its own `text` is ignored)
 * with the session's user added when it has no user filter; `true` (engram improves: AMS ignores
 * the query and the namespace there) searches for `query` in the session's namespace, for its
 * user, outside the current session, 20 hits.
 */
function searchOf(
  option: AmsSearchBody | boolean | null | undefined,
  session: { session_id: string; namespace?: string | null; user_id?: string | null } | null | undefined,
): AmsSearchBody | null {
  if (!option) return null;
  const userFilter = session?.user_id != null ? { user_id: { eq: session.user_id } } : {};
  if (option === true) {
    return searchBodySchema.parse({
      limit: 20,
      ...userFilter,
      ...(session ? { session_id: { ne: session.session_id } } : {}),
      ...(session?.namespace != null ? { namespace: { eq: session.namespace } } : {}),
    });
  }
  if (option.user_id || session?.user_id == null) return option;
  return { ...option, user_id: amsTagFilterSchema.parse({ eq: session.user_id }) };
}

/** `POST /v1/memory/prompt` (AMS §4.14, §6), assembled under the model's window by engram. */
export function registerMemoryPromptRoutes(app: FastifyInstance, engram: Engram): void {
  app.post(
    '/v1/memory/prompt',
    {
      config: {
        // Its permission (write: assembling records a trace) is the operation table's (operation-permissions.ts).
        docs: {
          summary: 'Build a prompt: session summary and history, related long-term memories, the query',
          tags: ['memory-prompt'],
          query: optimizeQuerySchema,
          body: memoryPromptBodySchema,
          response: memoryPromptResponseSchema,
        },
      },
    },
    async (request, reply) => {
      readQuery(request, optimizeQuerySchema);
      const body = readBody(request, memoryPromptBodySchema);
      const search = searchOf(body.long_term_search, body.session);
      if (!body.session && !search) {
        throw new AmsHttpError(400, 'Either session or long_term_search must be provided');
      }
      const tenantId = tenantOf(request);
      const plan = search ? await planSearch(engram, tenantId, search) : null;
      const given = body.session;
      // The exact key, else the one session with this id (AMS's fallback); none: an empty session.
      const key = given
        ? {
            tenantId,
            sessionId: given.session_id,
            namespace: given.namespace ?? null,
            userId: given.user_id ?? null,
          }
        : null;
      const found = key && !(await engram.sessions.get(key)) ? await findUniqueSession(engram, key) : null;
      const prompt = await buildMemoryPrompt(engram, tenantId, {
        query: body.query,
        ...(key && given
          ? {
              session: {
                ...(found ?? key),
                ...(given.model_name ? { modelName: given.model_name } : {}),
                ...(given.model_name ? { modelWindow: amsModelWindows[given.model_name] } : {}),
                ...(given.context_window_max != null ? { contextWindowMax: given.context_window_max } : {}),
              },
            }
          : {}),
        ...(plan ? { search: plan.request } : {}),
      });
      if (plan?.bumpsAccess && prompt.memories) {
        await touchHits(
          engram,
          tenantId,
          prompt.memories.map((hit) => hit.memory),
          new Date(),
        );
      }
      // A prompt under a large model window runs to megabytes: serialized and encoded in turns of their own.
      return jsonAnswer(reply, {
        messages: prompt.messages.map((message) => ({
          role: message.role,
          content: { type: 'text', text: message.text, annotations: null, _meta: null },
        })),
        long_term_memories:
          plan && prompt.memories
            ? prompt.memories.map((hit) => toAmsResult(hit, plan.mode, plan.listing))
            : null,
      });
    },
  );
}
