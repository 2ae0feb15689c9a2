import type { ContextMessage } from './context-message.js';
import { systemNote, unlinkedToolResult } from './text-markers.js';

export type AnthropicContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content: string };

export interface AnthropicMessage {
  role: 'user' | 'assistant';
  content: AnthropicContentBlock[];
}

/** The Anthropic Messages API shape: the system text apart, then alternating messages. */
export interface AnthropicContext {
  system: string;
  messages: AnthropicMessage[];
}

/**
 * Formats an assembled context for the Anthropic Messages API. The leading system-role blocks
 * (prompt, procedure, knowledge, episodes, summary) become `system`; a system message inside the
 * history becomes a user text block marked as a system note, since the API has no system role
 * there; tool results travel in user messages; consecutive same-role messages are merged.
 */
export function toAnthropicMessages(messages: readonly ContextMessage[]): AnthropicContext {
  const systemParts: string[] = [];
  const output: AnthropicMessage[] = [];
  let leading = true;
  for (const message of messages) {
    if (leading && message.role === 'system' && message.id === undefined) {
      systemParts.push(message.content);
      continue;
    }
    leading = false;
    const [role, blocks] = toBlocks(message);
    const last = output.at(-1);
    if (last?.role === role) last.content.push(...blocks);
    else output.push({ role, content: blocks });
  }
  return { system: systemParts.join('\n\n'), messages: output };
}

function toBlocks(message: ContextMessage): ['user' | 'assistant', AnthropicContentBlock[]] {
  switch (message.role) {
    case 'assistant': {
      const blocks: AnthropicContentBlock[] =
        message.content.length > 0 ? [{ type: 'text', text: message.content }] : [];
      for (const call of message.toolCalls ?? []) {
        blocks.push({
          type: 'tool_use',
          id: call.id,
          name: call.function.name,
          input: parseArguments(call.function.arguments),
        });
      }
      return ['assistant', blocks];
    }
    case 'tool':
      return message.toolCallId === undefined
        ? ['user', [{ type: 'text', text: unlinkedToolResult(message.content) }]]
        : ['user', [{ type: 'tool_result', tool_use_id: message.toolCallId, content: message.content }]];
    case 'system':
      return ['user', [{ type: 'text', text: systemNote(message.content) }]];
    default:
      return ['user', [{ type: 'text', text: message.content }]];
  }
}

/** Tool arguments are JSON text in OpenAI's shape; Anthropic wants an object. */
function parseArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return { arguments: text };
  }
}
