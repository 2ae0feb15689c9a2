import type { ContextMessage } from './context-message.js';
import { unlinkedToolResult } from './text-markers.js';

/** An OpenAI Chat Completions message. */
export type OpenAIMessage =
  | { role: 'system' | 'user'; content: string; name?: string }
  | {
      role: 'assistant';
      content: string | null;
      name?: string;
      tool_calls?: { id: string; type: 'function'; function: { name: string; arguments: string } }[];
    }
  | { role: 'tool'; content: string; tool_call_id: string };

/** Formats an assembled context for OpenAI-compatible chat completion APIs. */
export function toOpenAIMessages(messages: readonly ContextMessage[]): OpenAIMessage[] {
  return messages.map((message): OpenAIMessage => {
    const name = message.name ? { name: message.name } : {};
    switch (message.role) {
      case 'assistant':
        return message.toolCalls
          ? {
              role: 'assistant',
              content: message.content.length > 0 ? message.content : null,
              ...name,
              tool_calls: message.toolCalls,
            }
          : { role: 'assistant', content: message.content, ...name };
      case 'tool':
        // A tool result stored without its call id (AMS messages carry none) cannot be a `tool`
        // message, which must answer a call: it goes to the model as text.
        return message.toolCallId === undefined
          ? { role: 'user', content: unlinkedToolResult(message.content) }
          : { role: 'tool', content: message.content, tool_call_id: message.toolCallId };
      default:
        return { role: message.role, content: message.content, ...name };
    }
  });
}
