import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { ToolAnnotations } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import { type Permission, toolPermission } from '../engine/access/operation-permissions.js';
import type { Engram } from '../engram.js';
import { toolError, toolResult } from './tool-result.js';

/** What the tools of one MCP server act as: an engram instance, one tenant, and the caller's rights. */
export interface McpContext {
  engram: Engram;
  /** Every tool call is scoped to this tenant (stdio: `--tenant`; HTTP: the request's principal). */
  tenantId: string;
  /** Throws a `forbidden` EngramError unless the caller holds `permission`. */
  authorize: (permission: Permission) => void;
  /** Errors that are the server's fault (not the caller's), for the log. */
  onUnexpected: (error: unknown) => void;
}

/**
 * One tool: its arguments (zod, checked by the SDK and listed as JSON Schema). What it needs is the
 * operation table's (src/engine/access/operation-permissions.ts), shared with REST.
 */
export interface ToolDefinition<Shape extends z.ZodRawShape> {
  description: string;
  inputSchema: Shape;
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
  const permission = toolPermission(name);
  if (permission === undefined) throw new Error(`MCP tool ${name} is missing from the operation table`);
  const readOnlyHint = permission === 'read';
  server.registerTool(
    name,
    {
      description: definition.description,
      inputSchema: z.object(definition.inputSchema),
      annotations: { readOnlyHint, openWorldHint: false, ...definition.annotations },
    },
    async (args: unknown) => {
      try {
        context.authorize(permission);
        return toolResult(await handler(args as z.output<z.ZodObject<Shape>>));
      } catch (error) {
        return toolError(error, context.onUnexpected);
      }
    },
  );
}
