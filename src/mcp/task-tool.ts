import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import { z } from 'zod';
import { NotFoundError } from '../core/errors.js';
import { toAmsTask } from '../server/ams/task-routes.js';
import { defineTool, type McpContext } from './define-tool.js';

/**
 * `tasks.get` (read, as `GET /v1/tasks/{id}`): a background job of the caller's tenant, so that a
 * stdio client, which has no REST API to poll, can follow a large knowledge upload too.
 */
export function registerTaskTool(server: McpServer, context: McpContext): void {
  const { engram, tenantId } = context;
  defineTool(
    server,
    context,
    'tasks.get',
    {
      description:
        'Status of a background task (e.g. the task_id a large knowledge.upload answers): pending, ' +
        'running, success or failed, with its progress when it reports one.',
      inputSchema: { task_id: z.string().min(1).max(256) },
    },
    async (args) => {
      const job = await engram.jobs.get(tenantId, args.task_id);
      if (!job) throw new NotFoundError('Task', args.task_id);
      return toAmsTask(job, await engram.taskProgress.get(tenantId, args.task_id));
    },
  );
}
