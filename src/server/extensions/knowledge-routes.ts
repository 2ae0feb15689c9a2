import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { KnowledgeDocument } from '../../engine/long-term/knowledge-base.js';
import { MAX_DOCUMENT_CHARS } from '../../engine/long-term/knowledge-base.js';
import { BACKGROUND_DOCUMENT_CHARS } from '../../engine/long-term/knowledge-ingest-job.js';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { isJsonMediaType } from '../read-json-body.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import { validateRequest } from '../validate-request.js';
import { agentIdField, agentPathSchema } from './agent-schemas.js';
import { extensionRoute } from './extension-route.js';

const contentTypes = { 'text/markdown': 'markdown', 'text/plain': 'text' } as const;
const contentTypeField = z.enum(['text/markdown', 'text/plain']);

/** A JSON upload. */
export const uploadDocumentBodySchema = z.strictObject({
  name: z.string().trim().min(1).max(512),
  content: z.string().min(1).max(MAX_DOCUMENT_CHARS),
  content_type: contentTypeField.default('text/markdown'),
  /** Uploading again under the same id (default: derived from agent and name) replaces the document. */
  document_id: z.string().min(1).max(256).optional(),
});

/** A raw `text/markdown` or `text/plain` upload names the document in the query. */
export const rawUploadQuerySchema = z.object({
  name: z.string().trim().min(1).max(512),
  document_id: z.string().min(1).max(256).optional(),
});

/** The raw upload's query as documented: required there, absent from a JSON upload. */
const rawUploadQueryDocs = z.object({
  name: rawUploadQuerySchema.shape.name
    .optional()
    .describe('The document name; required when the body is the text itself (text/markdown, text/plain)'),
  document_id: rawUploadQuerySchema.shape.document_id.describe(
    'For a text/markdown or text/plain body: the id to upload under (default: derived from agent and name)',
  ),
});

const documentPathSchema = z.object({ agent_id: agentIdField, document_id: z.string().min(1).max(256) });

export const knowledgeDocumentBodySchema = z.object({
  document_id: z.string(),
  agent_id: z.string(),
  name: z.string(),
  chunks: z.number(),
  created_at: z.string(),
});

export const chunksQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

export const knowledgeChunkBodySchema = z.object({
  id: z.string(),
  index: z.number().nullable(),
  headings: z.array(z.string()),
  text: z.string(),
});

/** The chunk listing's answer. */
export const chunkListResponseSchema = z.object({
  chunks: z.array(knowledgeChunkBodySchema),
  total: z.number(),
});

const toChunkBody = (chunk: MemoryRecord): z.output<typeof knowledgeChunkBodySchema> => {
  const { chunkIndex, headings } = chunk.metadata;
  return {
    id: chunk.id,
    index: typeof chunkIndex === 'number' ? chunkIndex : null,
    headings: Array.isArray(headings) ? headings.filter((entry) => typeof entry === 'string') : [],
    text: chunk.text,
  };
};

/** 202 for a document ingested in the background: poll the task (`GET /v1/tasks/{task_id}`). */
export const acceptedDocumentBodySchema = z.object({
  task_id: z.string(),
  status: z.literal('pending'),
  document_id: z.string(),
  agent_id: z.string(),
  name: z.string(),
});

export const toDocumentBody = (document: KnowledgeDocument) => ({
  document_id: document.documentId,
  agent_id: document.agentId,
  name: document.name,
  chunks: document.chunks,
  created_at: document.createdAt,
});

/** The upload in either form: a JSON body, or the document itself as text/markdown or text/plain. */
function readUpload(request: FastifyRequest): z.output<typeof uploadDocumentBodySchema> {
  const header = request.headers['content-type'];
  if (isJsonMediaType(header)) return readBody(request, uploadDocumentBodySchema);
  const mediaType = header?.split(';')[0]?.trim().toLowerCase();
  const query = readQuery(request, rawUploadQuerySchema);
  return validateRequest(
    uploadDocumentBodySchema,
    { ...query, content: typeof request.body === 'string' ? request.body : '', content_type: mediaType },
    'body',
  );
}

/** Knowledge documents per agent (which must exist): upload and delete need `admin`. */
export function registerKnowledgeRoutes(app: FastifyInstance, engram: Engram): void {
  const tags = ['knowledge'];

  app.post(
    '/v1/agents/:agent_id/knowledge',
    {
      config: {
        ...extensionRoute(
          {
            summary: 'Upload a knowledge document',
            description:
              'JSON `{name, content, content_type}`, or the text itself as `text/markdown` or `text/plain` ' +
              'with `?name=`. Chunked by structure; the same name again replaces the document. A document ' +
              `over ${BACKGROUND_DOCUMENT_CHARS} characters is ingested by a background job: 202 with its ` +
              '`task_id` (and `Location: /v1/tasks/{task_id}`), whose progress the task shows.',
            tags,
            params: agentPathSchema,
            query: rawUploadQueryDocs,
            body: uploadDocumentBodySchema,
            textBodyMediaTypes: ['text/markdown', 'text/plain'],
            response: knowledgeDocumentBodySchema,
            status: 201,
            otherResponses: {
              202: {
                description: 'Large document: ingesting in the background',
                response: acceptedDocumentBodySchema,
                headers: { Location: 'The task to poll: `/v1/tasks/{task_id}`' },
              },
            },
          },
          'admin',
        ),
        // Content over its limit is refused as it arrives, before the body is joined and parsed
        // (a 5 MB string held the event loop ~40 ms in those two steps), in JSON or as raw text.
        bodyFieldLimits: {
          strings: { content: MAX_DOCUMENT_CHARS },
          text: { field: 'content', limit: MAX_DOCUMENT_CHARS },
        },
      },
    },
    async (request, reply) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const upload = readUpload(request);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const input = {
        agentId: agent_id,
        name: upload.name,
        content: upload.content,
        format: contentTypes[upload.content_type],
        ...(upload.document_id === undefined ? {} : { documentId: upload.document_id }),
      };
      const uploaded = await engram.knowledge.upload(tenantId, input);
      if (uploaded.task) {
        const { task, documentId } = uploaded;
        return reply.status(202).header('location', `/v1/tasks/${task.id}`).send({
          task_id: task.id,
          status: 'pending',
          document_id: documentId,
          agent_id,
          name: upload.name,
        });
      }
      return reply.status(201).send(toDocumentBody(uploaded.document));
    },
  );

  app.get(
    '/v1/agents/:agent_id/knowledge',
    {
      config: extensionRoute({
        summary: 'List an agent’s knowledge documents',
        tags,
        params: agentPathSchema,
        response: z.object({ documents: z.array(knowledgeDocumentBodySchema) }),
      }),
    },
    async (request) => {
      const { agent_id } = readPath(request, agentPathSchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const documents = await engram.knowledge.list(tenantId, agent_id);
      return { documents: documents.map(toDocumentBody) };
    },
  );

  app.get(
    '/v1/agents/:agent_id/knowledge/:document_id/chunks',
    {
      config: extensionRoute({
        summary: 'List a knowledge document’s chunks in document order',
        description: '`limit` 1–200 (50), `offset`; an unknown document is 404.',
        tags,
        params: documentPathSchema,
        query: chunksQuerySchema,
        response: chunkListResponseSchema,
        errors: { 404: 'No such agent or document' },
      }),
    },
    async (request) => {
      const { agent_id, document_id } = readPath(request, documentPathSchema);
      const page = readQuery(request, chunksQuerySchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      const { chunks, total } = await engram.knowledge.chunks(tenantId, agent_id, document_id, page);
      return { chunks: chunks.map(toChunkBody), total };
    },
  );

  app.delete(
    '/v1/agents/:agent_id/knowledge/:document_id',
    {
      config: extensionRoute(
        {
          summary: 'Delete a knowledge document',
          tags,
          params: documentPathSchema,
          response: z.object({ deleted_chunks: z.number() }),
        },
        'admin',
      ),
    },
    async (request) => {
      const { agent_id, document_id } = readPath(request, documentPathSchema);
      const tenantId = tenantOf(request);
      await engram.agents.resolve(tenantId, agent_id);
      return { deleted_chunks: await engram.knowledge.delete(tenantId, agent_id, document_id) };
    },
  );
}
