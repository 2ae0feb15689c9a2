import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { assembleContextBody, contextBodySchema } from '../server/extensions/context-routes.js';
import type { TraceBody } from '../server/extensions/trace-body.js';
import { defineTool, type McpContext } from './define-tool.js';

/** What a model needs to know about a trace: the budget, and per section what went in and what stayed out. */
export function summarizeTrace(trace: TraceBody) {
  return {
    model: trace.model,
    budget: trace.budget,
    degraded: trace.degraded,
    sections: trace.sections.map((section) => {
      const excluded = section.items.filter((item) => !item.included);
      const reasons: Record<string, number> = {};
      for (const item of excluded) reasons[item.reason] = (reasons[item.reason] ?? 0) + 1;
      return {
        name: section.name,
        tokens: section.tokens,
        included: section.items.length - excluded.length,
        excluded: excluded.length,
        excluded_reasons: reasons,
      };
    }),
    history: { kept: trace.history.kept, candidates: trace.history.candidates },
    sources: trace.sources.map((source) => ({
      name: source.name,
      status: source.status,
      item_count: source.item_count,
    })),
  };
}

/**
 * `context.assemble`: the heart of engram as a tool. The same assembly as `POST /v1/context` (same
 * arguments, same permission: `write`, since the trace is stored), answering the budgeted context
 * and a summary of its trace (the full trace stays readable in the inspector).
 */
export function registerContextAssembleTool(server: McpServer, context: McpContext): void {
  defineTool(
    server,
    context,
    'context.assemble',
    {
      description:
        "Assemble the next turn's context for a session under the agent's token budget: system prompt, " +
        'matched procedure, knowledge, episodes, pruned history and the message. Answers the messages to ' +
        'send to the model and a summary of what went in, what stayed out and why.',
      inputSchema: contextBodySchema.shape,
      annotations: { idempotentHint: true },
    },
    async (args) => {
      const body = await assembleContextBody(context.engram, context.tenantId, args);
      return { messages: body.messages, trace: summarizeTrace(body.trace), agent: body.agent };
    },
  );
}
