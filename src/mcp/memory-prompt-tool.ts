import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { ValidationError } from '../core/errors.js';
import { buildMemoryPrompt } from '../engine/context/memory-prompt.js';
import { amsModeOf } from '../retrieval/resolve-search-mode.js';
import { amsModelNames, amsModelWindows } from '../server/ams/ams-model-windows.js';
import { findUniqueSession } from '../server/ams/find-unique-session.js';
import { toAmsSearchResult } from './ams-memory-record.js';
import { defineTool, type McpContext } from './define-tool.js';
import { searchArguments, toSearchRequest } from './long-term-memory-tools.js';

/**
 * AMS passes `{"eq": "id"}`; a bare id is accepted too. It names one conversation, so any other
 * operator (`any`, `ne`, …) is a bad argument, never silently dropped.
 */
const sessionIdArgument = z
  .union([z.string().min(1).max(256), z.strictObject({ eq: z.string().min(1).max(256) })])
  .describe('The conversation whose summary and recent messages come first: {"eq": "<session id>"}');

/**
 * `memory_prompt`, with the flat arguments of agent-memory-server's MCP tool: the session (by
 * `session_id.eq`, its key narrowed by `namespace.eq` and `user_id.eq`) and a long-term search for
 * `query` with the search tool's filters (never `session_id`: it picks the conversation, not the
 * memories), built by the same engine function as `POST /v1/memory/prompt`.
 */
export function registerMemoryPromptTool(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;
  defineTool(
    server,
    context,
    'memory_prompt',
    {
      description:
        "Hydrate a query with memory: the session's summary and recent messages (session_id), long-term " +
        'memories related to the query (filters as in search_long_term_memory), then the query, fitted to ' +
        "the model's context window. Use before answering questions about the user. Answers {messages, " +
        'long_term_memories}.',
      inputSchema: {
        query: z.string().min(1).max(10_000),
        ...searchArguments,
        session_id: sessionIdArgument.optional(),
        model_name: z.enum(amsModelNames).nullish().describe('Counts tokens and sizes the window'),
        context_window_max: z.number().int().min(1).max(10_000_000).nullish(),
        include_long_term_search: z.boolean().default(true).describe('false: session only'),
      },
    },
    async ({ query, session_id, model_name, context_window_max, include_long_term_search, ...args }) => {
      const search = toSearchRequest(query, args, engram.memories.embeddingModel);
      const sessionId = typeof session_id === 'string' ? session_id : session_id?.eq;
      if (sessionId === undefined && !include_long_term_search) {
        throw new ValidationError('Either session_id or include_long_term_search=true must be provided');
      }
      const key = sessionId
        ? { tenantId, sessionId, namespace: args.namespace?.eq ?? null, userId: args.user_id?.eq ?? null }
        : null;
      // The exact key, else the one session with this id (as REST); none: an empty session.
      const found = key && !(await engram.sessions.get(key)) ? await findUniqueSession(engram, key) : null;
      const prompt = await buildMemoryPrompt(engram, tenantId, {
        query,
        ...(key
          ? {
              session: {
                ...(found ?? key),
                ...(model_name ? { modelName: model_name, modelWindow: amsModelWindows[model_name] } : {}),
                ...(context_window_max != null ? { contextWindowMax: context_window_max } : {}),
              },
            }
          : {}),
        ...(include_long_term_search ? { search } : {}),
      });
      return {
        messages: prompt.messages.map((message) => ({
          role: message.role,
          content: { type: 'text', text: message.text, annotations: null, _meta: null },
        })),
        long_term_memories:
          prompt.memories?.map((hit) => toAmsSearchResult(hit, amsModeOf[search.mode ?? 'hybrid'])) ?? null,
      };
    },
  );
}
