import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { EngramError, type ErrorCategory, mcpCodeByCategory } from '../core/errors.js';
import { MAX_DETAILS_CHARS, previewValue, truncateText } from '../core/preview-value.js';

/** The error a failed tool call reports, inside an `isError` result (docs/mcp.md, "Errors"). */
export interface ToolErrorBody {
  error: {
    code: string;
    category: ErrorCategory;
    /** The JSON-RPC code of the category (`mcpCodeByCategory`), for clients that switch on numbers. */
    mcpCode: number;
    message: string;
    details?: Record<string, unknown>;
  };
}

/** A successful call: the value as structured content and as its JSON text (for clients that read text). */
export function toolResult(value: Record<string, unknown>): CallToolResult {
  return { content: [{ type: 'text', text: JSON.stringify(value) }], structuredContent: value };
}

/**
 * A failed call as a tool result with `isError: true`, so the model sees what went wrong and can
 * correct its arguments. EngramErrors keep their code and category; anything else is `internal`
 * and its message is not shown (it may describe the server's insides).
 */
export function toolError(error: unknown, onUnexpected: (error: unknown) => void): CallToolResult {
  const known = error instanceof EngramError;
  if (!known || error.category === 'internal' || error.category === 'unavailable') onUnexpected(error);
  const category: ErrorCategory = known ? error.category : 'internal';
  const body: ToolErrorBody = {
    error: {
      code: known ? error.code : 'internal',
      category,
      mcpCode: mcpCodeByCategory[category],
      // Bounded: a message or detail may quote the caller's (possibly huge) value.
      message: known ? truncateText(error.message, 1_000) : 'Internal error',
      ...(known && error.details
        ? { details: previewValue(error.details, MAX_DETAILS_CHARS) as Record<string, unknown> }
        : {}),
    },
  };
  return {
    isError: true,
    content: [{ type: 'text', text: JSON.stringify(body) }],
    structuredContent: body as unknown as Record<string, unknown>,
  };
}
