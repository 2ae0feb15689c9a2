import { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { boundToolName } from './bound-tool-name.js';
import { registerContextAssembleTool } from './context-assemble-tool.js';
import { registerCurrentDatetimeTool } from './current-datetime-tool.js';
import type { McpContext } from './define-tool.js';
import { invalidParamsAnswer } from './invalid-params-answer.js';
import { registerKnowledgeTools } from './knowledge-tools.js';
import { registerLongTermMemoryTools } from './long-term-memory-tools.js';
import { registerMemoryPromptTool } from './memory-prompt-tool.js';
import { registerMemoryQueryTool } from './memory-query-tool.js';
import { registerProcedureListTool } from './procedure-list-tool.js';
import { registerTaskTool } from './task-tool.js';
import { registerWorkingMemoryTools } from './working-memory-tools.js';

const INSTRUCTIONS =
  'engram is the memory of this agent. context.assemble builds the next turn’s context (history, ' +
  'facts, knowledge, procedure, episodes) under the token budget. Before answering questions about the user, their preferences or ' +
  'history, look in memory (memory.query or search_long_term_memory). Store durable facts with ' +
  'create_long_term_memories, resolving pronouns and relative dates first (get_current_datetime).';

/**
 * One JSON Schema validator for every server: the HTTP transport makes a server per request, and
 * each made its own Ajv instance (compiling the meta-schemas and formats: 0.2–5 ms a request, ~25 ms
 * the first time, on the event loop). The SDK uses it only to check elicitation answers.
 */
let sharedValidator: AjvJsonSchemaValidator | undefined;

/**
 * An MCP server exposing engram's memory tools for one tenant (docs/mcp.md). Transport-neutral:
 * `engram mcp` connects it to stdio, the HTTP server to one streamable-HTTP request.
 */
export function createMcpServer(context: McpContext, version = '0.1.0'): McpServer {
  sharedValidator ??= new AjvJsonSchemaValidator();
  const server = new McpServer(
    { name: 'engram', version },
    { instructions: INSTRUCTIONS, jsonSchemaValidator: sharedValidator },
  );
  registerContextAssembleTool(server, context);
  registerMemoryQueryTool(server, context);
  registerLongTermMemoryTools(server, context);
  registerMemoryPromptTool(server, context);
  registerWorkingMemoryTools(server, context);
  registerKnowledgeTools(server, context);
  registerProcedureListTool(server, context);
  registerTaskTool(server, context);
  registerCurrentDatetimeTool(server, context);
  // The SDK announces `tools.listChanged: true` once a tool is registered. engram's tool list is
  // fixed here, before any transport connects, so no server ever sends the notification: stateless
  // HTTP could not (it has no stream to send it on), stdio has nothing to report.
  server.server.registerCapabilities({ tools: { listChanged: false } });
  // Every message passes these checks on its way in, whatever the transport (stdio, HTTP).
  const connect = server.connect.bind(server);
  server.connect = async (transport) => {
    await connect(transport);
    const deliver = transport.onmessage;
    transport.onmessage = (message, extra) => {
      const refusal = invalidParamsAnswer(message);
      if (refusal) {
        transport.send(refusal).catch(context.onUnexpected);
        return;
      }
      deliver?.(boundToolName(message), extra);
    };
  };
  return server;
}
