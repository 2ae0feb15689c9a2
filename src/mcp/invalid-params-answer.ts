import {
  CallToolRequestSchema,
  ErrorCode,
  InitializeRequestSchema,
  type JSONRPCErrorResponse,
  type JSONRPCMessage,
  ListToolsRequestSchema,
  PingRequestSchema,
} from '@modelcontextprotocol/sdk/types.js';
import type { z } from 'zod';
import { truncateText } from '../core/preview-value.js';

/** Longest issue text an answer quotes (zod names the path and the expected type, not the value). */
const MAX_ISSUE_CHARS = 200;

/** The requests engram's MCP server answers, by method: the SDK's own schemas for them. */
const requestSchemas = new Map<string, z.ZodType>([
  ['initialize', InitializeRequestSchema],
  ['ping', PingRequestSchema],
  ['tools/list', ListToolsRequestSchema],
  ['tools/call', CallToolRequestSchema],
]);

/**
 * The JSON-RPC answer to a request whose params do not fit its method, or undefined when they do
 * (or the method is not one engram serves: the SDK answers that). The SDK parses params inside
 * its handlers and answers a failure as -32603 "internal error" with the whole zod dump as
 * message; this answers -32602 "Invalid params" naming the first issue's path (JSON-RPC 2.0 §5.1).
 */
export function invalidParamsAnswer(message: JSONRPCMessage): JSONRPCErrorResponse | undefined {
  if (!('method' in message) || !('id' in message)) return undefined;
  const schema = requestSchemas.get(message.method);
  const parsed = schema?.safeParse(message);
  if (!parsed || parsed.success) return undefined;
  const issues = parsed.error.issues;
  const [first] = issues;
  const where = first?.path.length ? first.path.join('.') : 'params';
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more issue(s))` : '';
  return {
    jsonrpc: '2.0',
    id: message.id,
    error: {
      code: ErrorCode.InvalidParams,
      message: `Invalid params for ${message.method}: ${where}: ${truncateText(first?.message ?? 'invalid', MAX_ISSUE_CHARS)}${more}`,
    },
  };
}
