import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Engram } from '../engram.js';
import type { Permission } from '../server/auth/principal.js';
import { toolError, toolResult } from './tool-result.js';

/** What the tools of one MCP server act as: an engram instance, one tenant, and the caller's rights. */
export interface McpContext {
  engram: Engram;
  /** Every tool call is scoped to this tenant (stdio: `--tenant`; HTTP: the request's principal). */
  tenantId: string;
  /** Throws a `forbidden` EngramError unless the caller's role grants `permission` (as on REST). */
  authorize: (permission: ToolPermission) => void;
  /** Errors that are the server's fault (not the caller's), for the log. */
  onUnexpected: (error: unknown) => void;
}

/** What a tool needs: the permission REST asks of the same operation. */
export type ToolPermission = Exclude<Permission, 'public'>;

/** One tool: its arguments (zod, checked by the SDK and listed as JSON Schema) and what it needs. */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  description: string;
  inputSchema: Shape;
  permission: ToolPermission;
  annotations?: ToolAnnotations;
}

/**
 * Registers a tool whose handler resolves a JSON object. The handler's value becomes the result
 * (structured content + JSON text); a thrown error becomes an `isError` result (tool-result.ts).
 */
export function defineTool<Shape extends z.ZodRawShape>(
  server: McpServer,
  context: McpContext,
  name: string,
  definition: ToolDefinition<Shape>,
  handler: (args: z.output<z.ZodObject<Shape>>) => Promise<Record<string, unknown>>,
): void {
  const readOnlyHint = definition.permission === 'read';
  server.registerTool(
    name,
    {
      description: definition.description,
      inputSchema: z.object(definition.inputSchema),
      annotations: { readOnlyHint, openWorldHint: false, ...definition.annotations },
    },
    async (args: unknown) => {
      try {
        context.authorize(definition.permission);
        return toolResult(await handler(args as z.output<z.ZodObject<Shape>>));
      } catch (error) {
        return toolError(error, context.onUnexpected);
      }
    },
  );
}
