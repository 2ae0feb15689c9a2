import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { truncateText } from '../core/preview-value.js';

/** Longest tool name passed on whole: engram's are under 40 characters. */
const MAX_TOOL_NAME_CHARS = 100;

/**
 * A `tools/call` message with a tool name no tool can have cut to a preview. The SDK answers an
 * unknown tool with "Tool <name> not found", quoting the name whole, and errors never echo large
 * inputs; the call still finds no tool, and the answer says how long the name was.
 */
export function boundToolName(message: JSONRPCMessage): JSONRPCMessage {
  if (!('method' in message) || message.method !== 'tools/call' || !message.params) return message;
  const { name } = message.params;
  if (typeof name !== 'string' || name.length <= MAX_TOOL_NAME_CHARS) return message;
  return { ...message, params: { ...message.params, name: truncateText(name, MAX_TOOL_NAME_CHARS) } };
}
