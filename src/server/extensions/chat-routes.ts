import { PassThrough } from 'node:stream';
import type { FastifyBaseLogger, FastifyInstance } from 'fastify';
import { z } from 'zod';
import { MAX_MESSAGE_CHARS, type StoredMessage } from '../../core/schemas/message.js';
import type { ChatResult, ChatTurn } from '../../engine/chat/chat-turn.js';
import type { Engram } from '../../engram.js';
import { LlmError } from '../../providers/llm/llm-error.js';
import { sessionPathSchema } from '../ams/working-memory-schemas.js';
import { tenantOf } from '../auth/principal.js';
import { describeError } from '../describe-error.js';
import { readBody, readPath } from '../request-parts.js';
import { agentIdField } from './agent-schemas.js';
import { extensionRoute } from './extension-route.js';

/** `POST /v1/sessions/{session_id}/chat`: the user's message; the answer streams back as SSE. */
export const chatBodySchema = z.strictObject({
  /** A stored agent; absent: the tenant's `default` agent (built-in defaults until one is stored). */
  agent_id: agentIdField.optional(),
  namespace: z.string().max(256).nullable().optional(),
  user_id: z.string().max(256).nullable().optional(),
  message: z.string().min(1).max(MAX_MESSAGE_CHARS),
});

const EVENT_FORMAT =
  'Server-sent events, each `event: <type>` and one `data: <JSON>` line: `delta` `{"text"}` (a piece ' +
  'of the answer, in order), then exactly one of `done` `{"messages": {"user", "assistant"}, "session", ' +
  '"agent", "model", "finish_reason", "usage", "trace"}` (the turn is stored) or `error` ' +
  '`{"code", "category", "message", "details"?}` (nothing is stored). See docs/chat.md.';

/** A stored message's identity in the `done` event. */
const messageReference = (message: StoredMessage) => ({
  id: message.id,
  seq: message.seq,
  created_at: message.createdAt,
  tokens: message.tokenCount,
});

/** The `done` event: ids of the stored messages, usage and a summary of the context's trace. */
export function toDoneEvent(result: ChatResult) {
  const { trace } = result;
  return {
    messages: {
      user: messageReference(result.messages.user),
      assistant: messageReference(result.messages.assistant),
    },
    session: { version: result.session.version, message_count: result.session.messageCount },
    agent: result.agent,
    model: result.model,
    finish_reason: result.finishReason,
    usage: result.usage && {
      prompt_tokens: result.usage.promptTokens,
      completion_tokens: result.usage.completionTokens,
    },
    trace: {
      model: trace.model,
      context_tokens: trace.budget.used,
      available_tokens: trace.budget.available,
      sections: Object.fromEntries(trace.sections.map((section) => [section.name, section.tokens])),
      history: { candidates: trace.history.candidates, kept: trace.history.kept },
      degraded: trace.degraded,
      duration_ms: trace.durationMs ?? null,
    },
  };
}

const serverSentEvent = (type: string, data: unknown) => `event: ${type}\ndata: ${JSON.stringify(data)}\n\n`;

/**
 * Writes the turn's events to `stream` while the client listens. A client that hangs up stops the
 * writing, not the turn: the model is read to the end and the turn stored (docs/chat.md).
 */
async function pipeTurn(turn: ChatTurn, stream: PassThrough, log: FastifyBaseLogger): Promise<void> {
  const write = (type: string, data: unknown) => {
    if (!stream.destroyed && !stream.writableEnded) stream.write(serverSentEvent(type, data));
  };
  try {
    for await (const event of turn) {
      if (event.type === 'delta') write('delta', { text: event.text });
      else write('done', toDoneEvent(event.result));
    }
  } catch (error) {
    const answer = describeError(error, 'engram');
    if (answer.unexpected) log.error({ err: error }, 'chat turn failed');
    else log.warn({ err: error }, 'chat turn failed');
    write('error', (answer.body as { error: unknown }).error);
  } finally {
    if (!stream.destroyed) stream.end();
  }
}

/**
 * `POST /v1/sessions/{session_id}/chat`: one conversation turn with the agent's model. Errors
 * before the answer starts are JSON (`{"error"}` with their status); after it, an `error` event.
 */
export function registerChatRoutes(app: FastifyInstance, engram: Engram): void {
  app.post(
    '/v1/sessions/:session_id/chat',
    {
      config: extensionRoute(
        {
          summary: 'Chat: one turn with the agent’s model, streamed as server-sent events',
          description:
            'Assembles the context (the trace is recorded for the inspector), streams the model’s answer, ' +
            'then appends the user message and the answer to the session in one append. ' +
            EVENT_FORMAT,
          tags: ['chat'],
          params: sessionPathSchema,
          body: chatBodySchema,
          response: z.string().describe(EVENT_FORMAT),
          responseMediaType: 'text/event-stream',
          errors: {
            404: 'Unknown agent',
            422: 'The system prompt and the message exceed the agent’s budget (`context_budget_exceeded`)',
            503: 'No LLM configured (`llm_not_configured`), or the model failed before answering (`llm_*`)',
          },
        },
        'write',
      ),
    },
    async (request, reply) => {
      const { session_id: sessionId } = readPath(request, sessionPathSchema);
      const body = readBody(request, chatBodySchema);
      let turn: ChatTurn;
      try {
        turn = await engram.chat({
          ...(body.agent_id === undefined ? {} : { agent: body.agent_id }),
          session: {
            tenantId: tenantOf(request),
            sessionId,
            namespace: body.namespace ?? null,
            userId: body.user_id ?? null,
          },
          message: body.message,
        });
      } catch (error) {
        if (error instanceof LlmError && error.retryAfterMs !== undefined) {
          reply.header('retry-after', String(Math.ceil(error.retryAfterMs / 1_000)));
        }
        throw error;
      }
      const stream = new PassThrough();
      void pipeTurn(turn, stream, request.log);
      return reply
        .header('content-type', 'text/event-stream; charset=utf-8')
        .header('cache-control', 'no-cache, no-transform')
        .header('x-accel-buffering', 'no')
        .send(stream);
    },
  );
}
