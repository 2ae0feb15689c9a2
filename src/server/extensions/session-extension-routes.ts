import type { FastifyInstance } from 'fastify';
import { EngramError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { Engram } from '../../engram.js';
import { sessionRefFromRequest } from '../ams/session-ref-from-request.js';
import { toAmsMessage, toMessageInput } from '../ams/working-memory-mapper.js';
import { sessionPathSchema, sessionScopeQuerySchema } from '../ams/working-memory-schemas.js';
import { jsonAnswer } from '../json-answer.js';
import { readBody } from '../request-parts.js';
import type { RouteDocs } from '../route-docs.js';
import { conditionalWrite, entityTag, expectedVersionFor } from './entity-tag.js';
import {
  appendMessagesResponseSchema,
  sessionStateResponseSchema,
} from './session-extension-response-schemas.js';
import {
  appendMessagesBodySchema,
  MAX_APPEND_MESSAGES,
  sessionPatchBodySchema,
} from './session-extension-schemas.js';
import { toSessionStateBody } from './session-state-body.js';

const MERGE_PATCH = 'application/merge-patch+json';

/** A PATCH body in a media type other than JSON merge patch (or plain JSON): 415. */
class UnsupportedMediaTypeError extends EngramError {
  constructor(message: string) {
    super('unsupported_media_type', 'unsupported_media_type', message);
    this.name = 'UnsupportedMediaTypeError';
  }
}

const tags = ['working-memory'];
const ifMatch = 'If-Match names another version of the session';
const ifMatchHeader = {
  'If-Match': 'Write only if the session is still at this version (`"<version>"` from ETag), else 412',
};

/** `/openapi.json` entries of the routes below, from the schemas they validate with. */
const docs = {
  append: {
    summary: 'Append messages atomically (creates the session when absent)',
    tags,
    params: sessionPathSchema,
    query: sessionScopeQuerySchema,
    body: appendMessagesBodySchema,
    response: appendMessagesResponseSchema,
    headers: ifMatchHeader,
    errors: { 412: ifMatch },
    extension: true,
  },
  patch: {
    summary: 'Merge-patch a session’s data, context and ttl_seconds (RFC 7386)',
    tags,
    params: sessionPathSchema,
    query: sessionScopeQuerySchema,
    body: sessionPatchBodySchema,
    bodyMediaTypes: [MERGE_PATCH, 'application/json'],
    response: sessionStateResponseSchema,
    headers: ifMatchHeader,
    errors: { 404: 'No such session', 412: ifMatch, 415: `A body in a type other than ${MERGE_PATCH}` },
    extension: true,
  },
} satisfies Record<string, RouteDocs>;

/**
 * engram extensions of AMS working memory, answering errors as `{"error": {code, message, details}}`:
 * an atomic append and a merge-patch of `data`/`context`/`ttl_seconds`, both honouring `If-Match`.
 */
export function registerSessionExtensionRoutes(app: FastifyInstance, engram: Engram): void {
  const errorShape = 'engram' as const;
  const append = {
    config: { errorShape, docs: docs.append, bodyFieldLimits: { arrays: { messages: MAX_APPEND_MESSAGES } } },
  };
  const patch = { config: { errorShape, docs: docs.patch } };

  app.post('/v1/working-memory/:session_id/messages', append, async (request, reply) => {
    const ref = sessionRefFromRequest(request);
    const body = readBody(request, appendMessagesBodySchema);
    const expectedVersion = await expectedVersionFor(engram, ref, request.headers['if-match']);
    const { session, messages } = await conditionalWrite(() =>
      engram.sessions.append(ref, body.messages.map(toMessageInput), {
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ...(body.ttl_seconds === undefined ? {} : { ttlSeconds: body.ttl_seconds }),
      }),
    );
    reply.header('etag', entityTag(session.version));
    return jsonAnswer(reply, { session: toSessionStateBody(session), messages: messages.map(toAmsMessage) });
  });

  app.patch('/v1/working-memory/:session_id', patch, async (request, reply) => {
    const mediaType = request.headers['content-type']?.split(';')[0]?.trim().toLowerCase();
    if (mediaType !== MERGE_PATCH && mediaType !== 'application/json') {
      reply.header('accept-patch', MERGE_PATCH);
      throw new UnsupportedMediaTypeError(
        `PATCH takes ${MERGE_PATCH}, not ${mediaType ?? 'no content type'}`,
      );
    }
    const ref = sessionRefFromRequest(request);
    const body = readBody(request, sessionPatchBodySchema);
    const expectedVersion = await expectedVersionFor(engram, ref, request.headers['if-match']);
    const state = await conditionalWrite(() =>
      engram.sessions.patch(
        ref,
        {
          ...(body.data === undefined ? {} : { data: body.data as JsonObject }),
          ...(body.context === undefined ? {} : { context: body.context }),
          ...(body.ttl_seconds === undefined ? {} : { ttlSeconds: body.ttl_seconds }),
        },
        expectedVersion === undefined ? {} : { expectedVersion },
      ),
    );
    reply.header('etag', entityTag(state.version));
    return toSessionStateBody(state);
  });
}
