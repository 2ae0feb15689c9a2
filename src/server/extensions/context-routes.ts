import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { ContextMessage } from '../../core/assembly/context-message.js';
import { MAX_MESSAGE_CHARS } from '../../core/schemas/message.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { readBody } from '../request-parts.js';
import { agentIdField } from './agent-schemas.js';
import { extensionRoute } from './extension-route.js';
import { toTraceBody, traceBodySchema } from './trace-body.js';

const idList = (maximum: number) => z.array(z.string().min(1).max(128)).max(maximum);

/** `POST /v1/context`: one turn's context for an agent, a session and the user's new message. */
export const contextBodySchema = z.strictObject({
  /** A stored agent; absent: the tenant's `default` agent (built-in defaults until one is stored). */
  agent_id: agentIdField.optional(),
  session_id: z.string().min(1).max(256),
  namespace: z.string().max(256).nullable().optional(),
  user_id: z.string().max(256).nullable().optional(),
  message: z.string().min(1).max(MAX_MESSAGE_CHARS),
  format: z.enum(['openai', 'anthropic', 'neutral']).default('openai'),
  /** Extra pins and removals for this turn, on top of the session's own. */
  pinned_ids: idList(1_000).optional(),
  removed_ids: idList(10_000).optional(),
});

export const contextResponseSchema = z.object({
  /** OpenAI messages, Anthropic `{system, messages}`, or neutral messages with their section. */
  messages: z.unknown(),
  trace: traceBodySchema,
  agent: z.object({ id: z.string(), version: z.number() }),
});

/** A neutral context message on the wire. */
const toNeutralMessage = (message: ContextMessage) => ({
  role: message.role,
  content: message.content,
  section: message.section,
  ...(message.id === undefined ? {} : { id: message.id }),
  ...(message.name === undefined ? {} : { name: message.name }),
  ...(message.toolCalls === undefined ? {} : { tool_calls: message.toolCalls }),
  ...(message.toolCallId === undefined ? {} : { tool_call_id: message.toolCallId }),
});

export type ContextBody = z.output<typeof contextBodySchema>;
export type ContextResponseBody = z.output<typeof contextResponseSchema>;

/** Assembles a turn from a validated `POST /v1/context` body (shared with the MCP `context.assemble` tool). */
export async function assembleContextBody(
  engram: Engram,
  tenantId: string,
  body: ContextBody,
  options: { preview?: boolean } = {},
): Promise<ContextResponseBody> {
  const agent = await engram.agents.resolve(tenantId, body.agent_id);
  const result = await engram.assemble({
    agent: { id: agent.id, systemPrompt: agent.systemPrompt, memory: agent.memory },
    session: {
      tenantId,
      sessionId: body.session_id,
      namespace: body.namespace ?? null,
      userId: body.user_id ?? null,
    },
    message: body.message,
    format: body.format,
    preview: options.preview === true,
    ...(body.pinned_ids === undefined ? {} : { pinnedIds: body.pinned_ids }),
    ...(body.removed_ids === undefined ? {} : { removedIds: body.removed_ids }),
  });
  return {
    messages: body.format === 'neutral' ? result.context.map(toNeutralMessage) : result.messages,
    trace: toTraceBody({ ...result.trace, durationMs: result.trace.durationMs ?? null }),
    agent: { id: agent.id, version: agent.version },
  };
}

/**
 * The full six-section assembly over HTTP. Unknown agent → 404; system prompt plus message over
 * the budget → 422 `context_budget_exceeded`; a budget beyond the model's window → 400.
 */
export function registerContextRoutes(app: FastifyInstance, engram: Engram): void {
  const assemble = (preview: boolean) => async (request: FastifyRequest) =>
    assembleContextBody(engram, tenantOf(request), readBody(request, contextBodySchema), { preview });

  app.post(
    '/v1/context',
    {
      config: extensionRoute({
        summary: 'Assemble one turn’s context',
        description:
          'System prompt, matched procedure, knowledge, episodes, pruned history and the message, under ' +
          'the agent’s token budget. The trace (metadata only) is also kept for the inspector.',
        tags: ['context'],
        body: contextBodySchema,
        response: contextResponseSchema,
      }),
    },
    assemble(false),
  );

  app.post(
    '/v1/context/preview',
    {
      config: extensionRoute(
        {
          summary: 'Preview the context the next turn would get, writing nothing',
          description:
            'The same assembly and answer as `POST /v1/context`, but no trace is recorded and no memory ' +
            'access is counted, so it needs only `read` (an inspector may call it).',
          tags: ['context'],
          body: contextBodySchema,
          response: contextResponseSchema,
        },
        'read',
      ),
    },
    assemble(true),
  );
}
