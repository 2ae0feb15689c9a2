import type { FastifyReply, FastifyRequest } from 'fastify';
import { MAX_BUDGET_TOKENS } from '../../core/schemas/agent.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import type { BodyBytes } from '../body-bytes.js';
import { conditionalWrite, entityTag, expectedVersionFor } from '../extensions/entity-tag.js';
import { jsonChunksAnswer } from '../json-answer.js';
import { serializeAroundList } from '../serialize-in-slices.js';
import { UNDATED_WARNING } from './read-put-body.js';
import { toWorkingMemoryResponse } from './working-memory-mapper.js';
import type { PutThread } from './working-memory-put-thread.js';

/** What the PUT route read before the body: the path's session id and the model window. */
export interface LargePutRequest {
  sessionId: string;
  window: number | null;
}

/**
 * A large PUT (its body received as bytes) read and prepared by the worker (`createPutThread`),
 * stored through `putPrepared` and answered with the echo the worker wrote: the same answer as the
 * request-thread path, without the request thread decoding the body or holding its messages.
 * Returns the body as text when the worker handed it back (it does not read, validate or prepare
 * without fault): the caller then takes its own path, which names the error exactly.
 */
export async function putLargeBody(
  engram: Engram,
  thread: PutThread,
  body: BodyBytes,
  { sessionId, window }: LargePutRequest,
  request: FastifyRequest,
  reply: FastifyReply,
): Promise<{ answer: unknown } | { text: string }> {
  const { encoding, now } = engram.sessions.preparation();
  const contentType = request.headers['content-type'];
  const prepared = await thread.prepare(body, { contentType, encoding, now: now.getTime(), window });
  if (!prepared.ok) return { text: await prepared.body.text() };
  const ref = {
    sessionId,
    namespace: prepared.namespace,
    userId: prepared.userId,
    tenantId: tenantOf(request),
  };
  const expectedVersion = await expectedVersionFor(engram, ref, request.headers['if-match']);
  const { session } = await conditionalWrite(() =>
    engram.sessions.putPrepared(
      ref,
      { write: prepared.write, messages: prepared.messages, encoding },
      {
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ...(window === null ? {} : { contextWindow: Math.min(window, MAX_BUDGET_TOKENS) }),
      },
    ),
  );
  if (prepared.undated) reply.header('x-deprecation-warning', UNDATED_WARNING);
  const { messages: _written, ...rest } = toWorkingMemoryResponse(session, [], prepared.usage, {
    wholeSeconds: false,
    nullDataAsEmpty: false,
  });
  const chunks = await serializeAroundList({ messages: [], ...rest }, 'messages', prepared.echo);
  return { answer: jsonChunksAnswer(reply.header('etag', entityTag(session.version)), chunks) };
}
