import type { FastifyInstance, FastifyRequest } from 'fastify';
import { createEventLoopSlicer } from '../../core/event-loop-slicer.js';
import { MAX_BUDGET_TOKENS } from '../../core/schemas/agent.js';
import { MAX_SESSION_MEMORIES, MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import { toSessionKey } from '../../engine/sessions/session-ref.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { BodyBytes } from '../body-bytes.js';
import { conditionalWrite, entityTag, expectedVersionFor } from '../extensions/entity-tag.js';
import { jsonChunksAnswer } from '../json-answer.js';
import { readPath, readQuery } from '../request-parts.js';
import type { RouteDocs } from '../route-docs.js';
import { serializeInSlices } from '../serialize-in-slices.js';
import { findUniqueSession } from './find-unique-session.js';
import { contextWindowOf, fitContextWindow } from './fit-context-window.js';
import { readPutBody, UNDATED_WARNING } from './read-put-body.js';
import { sessionRefFromRequest } from './session-ref-from-request.js';
import { putLargeBody } from './working-memory-large-put.js';
import {
  amsMessageOf,
  toAmsMessage,
  toSessionInput,
  toWorkingMemoryResponse,
} from './working-memory-mapper.js';
import { createPutThread } from './working-memory-put-thread.js';
import { createResponseCache } from './working-memory-response-cache.js';
import {
  sessionListResponseSchema,
  statusOkResponseSchema,
  workingMemoryResponseSchema,
} from './working-memory-response-schemas.js';
import {
  amsWorkingMemoryBodySchema,
  getWorkingMemoryQuerySchema,
  listSessionsQuerySchema,
  modelQuerySchema,
  sessionPathSchema,
  sessionScopeQuerySchema,
} from './working-memory-schemas.js';

const tags = ['working-memory'];
const ifMatch = 'If-Match names another version of the session';
/** The session's version as an entity tag, for If-Match on the next write (engram extension). */
const etagHeader = { ETag: 'The session version written or read, `"<version>"`: send it back as If-Match' };
const ifMatchHeader = {
  'If-Match': 'Write only if the session is still at this version (`"<version>"` from ETag), else 412',
};

/** `/openapi.json` entries of the routes below, from the schemas they validate with. */
const docs = {
  list: {
    summary: 'List session ids, most recently updated first',
    tags,
    query: listSessionsQuerySchema,
    response: sessionListResponseSchema,
  },
  get: {
    summary: 'Read a session (optionally fitted to a model context window)',
    tags,
    params: sessionPathSchema,
    query: getWorkingMemoryQuerySchema,
    response: workingMemoryResponseSchema,
    responseHeaders: etagHeader,
    errors: { 404: 'No such session' },
  },
  put: {
    summary: 'Create or replace a session',
    description: 'The session key is the path id with the body `namespace` and `user_id`.',
    tags,
    params: sessionPathSchema,
    query: modelQuerySchema,
    body: amsWorkingMemoryBodySchema,
    response: workingMemoryResponseSchema,
    headers: ifMatchHeader,
    responseHeaders: etagHeader,
    errors: { 400: 'A message with blank content', 412: ifMatch },
  },
  delete: {
    summary: 'Delete a session (200 even when it does not exist)',
    tags,
    params: sessionPathSchema,
    query: sessionScopeQuerySchema,
    response: statusOkResponseSchema,
  },
} satisfies Record<string, RouteDocs>;

/** The PUT body's lists, counted before the body is parsed (`overlong-body-field.ts`). */
const PUT_LIMITS = { messages: MAX_SESSION_MESSAGES, memories: MAX_SESSION_MEMORIES };

/** AMS working memory (spec §4.2–4.6): list, get, put (full replace), delete. */
export function registerWorkingMemoryRoutes(app: FastifyInstance, engram: Engram): void {
  const listSessions = async (request: FastifyRequest) => {
    const query = readQuery(request, listSessionsQuerySchema);
    const { sessions, total } = await engram.sessions.list({
      tenantId: tenantOf(request),
      limit: query.limit,
      offset: query.offset,
      ...(query.namespace !== undefined ? { namespace: query.namespace } : {}),
      ...(query.user_id !== undefined ? { userId: query.user_id } : {}),
    });
    return { sessions: sessions.map((session) => session.sessionId), total };
  };
  app.get('/v1/working-memory/', { config: { docs: docs.list } }, listSessions);
  app.get('/v1/working-memory', { config: { docs: docs.list } }, listSessions);

  const cache = createResponseCache();
  app.get('/v1/working-memory/:session_id', { config: { docs: docs.get } }, async (request, reply) => {
    // Fast path: the same URL answered before, and the session unchanged since (one key lookup).
    const cacheKey = cache.keyOf(tenantOf(request), request.url);
    const cached = cache.get(cacheKey);
    if (cached) {
      if ((await engram.store.sessionRevision(cached.key)) === cached.revision) {
        return jsonChunksAnswer(reply.header('etag', cached.etag), cached.body);
      }
      cache.delete(cacheKey);
    }
    const ref = sessionRefFromRequest(request);
    const query = readQuery(request, getWorkingMemoryQuerySchema);
    const recent = query.recent_messages_limit;
    const includeSummarized = query.include_summarized === true;
    const options = {
      ...(recent !== undefined && recent > 0 ? { recentMessagesLimit: recent } : {}),
      ...(includeSummarized ? { includeSummarized } : {}),
    };
    const key = toSessionKey(ref);
    // Read before the session: a write in between leaves an entry that is stale at once, never one
    // that passes for newer than its body.
    const revision = await engram.store.sessionRevision(key);
    let session = await engram.sessions.get(key, options);
    const exact = session !== null;
    if (!session) {
      const unique = await findUniqueSession(engram, ref);
      session = unique ? await engram.sessions.get(unique, options) : null;
    }
    if (!session) return reply.status(404).send({ detail: `Session ${ref.sessionId} not found` });
    let messages = session.messages;
    if (options.recentMessagesLimit) {
      messages = [...messages].sort((a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt));
    }
    const window = contextWindowOf(query);
    const fitted = window === null ? null : await fitContextWindow(messages, window, { truncate: true });
    const { messages: _serializedBelow, ...rest } = toWorkingMemoryResponse(
      session,
      [],
      fitted?.usage ?? null,
      {
        wholeSeconds: true,
        nullDataAsEmpty: true,
      },
    );
    // Serialized one message at a time and encoded in 64 KB chunks, in slices: a session of
    // thousands of messages was one step (an 837 KB answer held the event loop ~40 ms).
    const toMessage = amsMessageOf(session, { markSummarized: includeSummarized });
    const slicer = createEventLoopSlicer();
    const response = { messages: fitted?.messages ?? messages, ...rest };
    const body = await serializeInSlices(response, 'messages', toMessage, slicer.pause);
    const etag = entityTag(session.version);
    // The AMS fallback depends on which other sessions exist: only exact-key answers are cached.
    if (exact && revision !== null) cache.set(cacheKey, { key, revision, etag, body });
    return jsonChunksAnswer(reply.header('etag', etag), body);
  });

  // Large bodies arrive as bytes and are read and prepared by a worker (`createPutThread`).
  const putThread = createPutThread();
  app.addHook('onClose', () => putThread.close());
  const put = { config: { docs: docs.put, bodyFieldLimits: { arrays: PUT_LIMITS }, bodyAsBytes: true } };
  app.put('/v1/working-memory/:session_id', put, async (request, reply) => {
    const { session_id } = readPath(request, sessionPathSchema);
    const query = readQuery(request, modelQuerySchema);
    const window = contextWindowOf(query);
    if (request.body instanceof BodyBytes) {
      const large = { sessionId: session_id, window };
      const done = await putLargeBody(engram, putThread, request.body, large, request, reply);
      if ('answer' in done) return done.answer;
      request.body = done.text;
    }
    // 100,000 messages are validated, mapped, stored and echoed in ~2 ms slices (DEFAULT_SLICE_MS): other requests
    // run in between (the store's write itself stays one transaction).
    const slicer = createEventLoopSlicer();
    const { body, undated } = await readPutBody(request, slicer.pause);
    const input = toSessionInput(body, body.messages);
    const ref = {
      sessionId: session_id,
      namespace: body.namespace,
      userId: body.user_id,
      tenantId: tenantOf(request),
    };
    const expectedVersion = await expectedVersionFor(engram, ref, request.headers['if-match']);
    // The model the client names (model_name / context_window_max) is the one the session is
    // summarized for, in the background (AMS summarizes inside the PUT).
    const session = await conditionalWrite(() =>
      engram.sessions.put(ref, input, {
        ...(expectedVersion === undefined ? {} : { expectedVersion }),
        ...(window === null ? {} : { contextWindow: Math.min(window, MAX_BUDGET_TOKENS) }),
      }),
    );
    const fitted =
      window === null ? null : await fitContextWindow(session.messages, window, { truncate: false });
    if (undated) reply.header('x-deprecation-warning', UNDATED_WARNING);
    const { messages: _echoedBelow, ...rest } = toWorkingMemoryResponse(session, [], fitted?.usage ?? null, {
      wholeSeconds: false,
      nullDataAsEmpty: false,
    });
    const response = { messages: session.messages, ...rest };
    const chunks = await serializeInSlices(response, 'messages', toAmsMessage, slicer.pause);
    return jsonChunksAnswer(reply.header('etag', entityTag(session.version)), chunks);
  });

  app.delete('/v1/working-memory/:session_id', { config: { docs: docs.delete } }, async (request) => {
    const ref = sessionRefFromRequest(request);
    if (!(await engram.sessions.delete(ref))) {
      const unique = await findUniqueSession(engram, ref);
      if (unique) await engram.sessions.delete(unique);
    }
    return { status: 'ok' };
  });
}
