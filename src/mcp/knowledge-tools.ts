import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { BACKGROUND_DOCUMENT_CHARS } from '../engine/long-term/knowledge-ingest-job.js';
import { agentIdField } from '../server/extensions/agent-schemas.js';
import {
  type acceptedDocumentBodySchema,
  type knowledgeDocumentBodySchema,
  toDocumentBody,
  uploadDocumentBodySchema,
} from '../server/extensions/knowledge-routes.js';
import { defineTool, type McpContext } from './define-tool.js';

const formats = { 'text/markdown': 'markdown', 'text/plain': 'text' } as const;

/**
 * `knowledge.search` (read) and `knowledge.upload` (admin, as `POST /v1/agents/{id}/knowledge`):
 * an agent's knowledge documents, which must belong to an existing agent (or `default`).
 */
export function registerKnowledgeTools(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;
  defineTool(
    server,
    context,
    'knowledge.search',
    {
      description:
        "Search an agent's knowledge documents: the chunks most relevant to the query (hybrid search), " +
        'each with its document name as the source to cite.',
      inputSchema: {
        agent_id: agentIdField.default('default'),
        query: z.string().min(1).max(10_000),
        limit: z.number().int().min(1).max(50).default(5),
      },
    },
    async (args) => {
      await engram.agents.resolve(tenantId, args.agent_id);
      const hits = await engram.knowledge.search(tenantId, {
        agentId: args.agent_id,
        query: args.query,
        limit: args.limit,
      });
      return {
        hits: hits.map((hit) => ({
          id: hit.id,
          document_id: hit.documentId,
          source: hit.source,
          text: hit.text,
          relevance: hit.relevance,
          chunk_index: hit.chunkIndex,
        })),
      };
    },
  );

  defineTool(
    server,
    context,
    'knowledge.upload',
    {
      description:
        "Add a document (Markdown or plain text) to an agent's knowledge: chunked by structure and " +
        'searchable at once. The same name (or document_id) again replaces the document. A document ' +
        `over ${BACKGROUND_DOCUMENT_CHARS} characters is ingested in the background: the answer is its ` +
        'task_id, to follow with tasks.get (or GET /v1/tasks/{task_id}).',
      inputSchema: { agent_id: agentIdField.default('default'), ...uploadDocumentBodySchema.shape },
      annotations: { idempotentHint: true },
    },
    async (
      args,
    ): Promise<
      | z.output<typeof knowledgeDocumentBodySchema>
      | (z.output<typeof acceptedDocumentBodySchema> & { message: string })
    > => {
      await engram.agents.resolve(tenantId, args.agent_id);
      const input = {
        agentId: args.agent_id,
        name: args.name,
        content: args.content,
        format: formats[args.content_type],
        ...(args.document_id === undefined ? {} : { documentId: args.document_id }),
      };
      // As on REST: a large document is a durable job, never chunked and embedded inside the call.
      const uploaded = await engram.knowledge.upload(tenantId, input);
      if (uploaded.task) {
        const { task, documentId } = uploaded;
        return {
          task_id: task.id,
          status: 'pending',
          document_id: documentId,
          agent_id: args.agent_id,
          name: args.name,
          message:
            `Ingesting in the background: call tasks.get with task_id ${task.id} (or GET /v1/tasks/${task.id}) ` +
            'to follow its progress; the document is searchable once the task succeeds.',
        };
      }
      return toDocumentBody(uploaded.document);
    },
  );
}
