import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { procedureStatusSchema } from '../core/schemas/procedure.js';
import { agentIdField } from '../server/extensions/agent-schemas.js';
import { toProcedureBody } from '../server/extensions/procedure-schemas.js';
import { defineTool, type McpContext } from './define-tool.js';

/** `procedures.list`: an agent's procedures, as `GET /v1/agents/{id}/procedures` answers them (read). */
export function registerProcedureListTool(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;
  defineTool(
    server,
    context,
    'procedures.list',
    {
      description:
        "List an agent's procedures (step-by-step playbooks matched to messages by trigger or example). " +
        'Only approved ones are used in contexts; pending ones await an admin.',
      inputSchema: {
        agent_id: agentIdField.default('default'),
        status: procedureStatusSchema.optional().describe('Only procedures with this status'),
      },
    },
    async (args) => {
      await engram.agents.resolve(tenantId, args.agent_id);
      const procedures = await engram.procedures.list(tenantId, args.agent_id, args.status);
      return { procedures: procedures.map(toProcedureBody) };
    },
  );
}
