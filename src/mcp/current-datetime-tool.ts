import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { defineTool, type McpContext } from './define-tool.js';

/** `get_current_datetime`: grounds "today" and "last week" before they are written into memories. */
export function registerCurrentDatetimeTool(
  server: McpServer,
  context: McpContext,
  clock: () => Date = () => new Date(),
): void {
  defineTool(
    server,
    context,
    'get_current_datetime',
    {
      description:
        'The current date and time in UTC. Use it to turn relative times ("today", "last week") into ' +
        'dates before storing memories, and to set event_date on episodic memories.',
      inputSchema: {},
    },
    async () => {
      const now = clock();
      return {
        iso_utc: `${now.toISOString().slice(0, 19)}Z`,
        unix_ts: Math.floor(now.getTime() / 1_000),
      };
    },
  );
}
