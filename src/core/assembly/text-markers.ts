import type { StoredMessage } from '../schemas/message.js';
import { countContentTokens, type TokenCounter } from '../tokens/token-counter.js';

const TOOL_RESULT_MARKER = '[tool result]\n';
const SYSTEM_NOTE_MARKER = '[System note] ';

/** How a tool result without a call id reads to a model: text, marked as a tool's output. */
export const unlinkedToolResult = (content: string): string => `${TOOL_RESULT_MARKER}${content}`;

/** A system message inside the history, where the Anthropic API has no system role: a marked user text. */
export const systemNote = (content: string): string => `${SYSTEM_NOTE_MARKER}${content}`;

/**
 * Tokens a formatter may add to a history message's own count: the marker of a tool result
 * without a call id (OpenAI and Anthropic), or of a system note (Anthropic), plus one for a merge
 * at the marker's edge. The assembler adds them to the message's cost, so the formatted context
 * fits the budget whichever format is asked for (the neutral one is a few tokens under).
 */
export function markerTokens(message: { role: string; toolCallId?: string }, counter: TokenCounter): number {
  if (message.role === 'tool' && message.toolCallId === undefined)
    return counter.count(TOOL_RESULT_MARKER) + 1;
  if (message.role === 'system') return counter.count(SYSTEM_NOTE_MARKER) + 1;
  return 0;
}

/**
 * A stored history message's tokens as assembly costs it (before `messageCost`): its cached count
 * when it was counted in `encoding`, else counted again as the write path counts it (content, name
 * and tool calls), plus the marker a formatter may add. The history read and assembly both use it.
 */
export function historyMessageTokens(
  message: StoredMessage,
  encoding: string,
  counter: TokenCounter,
): { tokens: number; recounted: boolean } {
  const recounted = message.tokenEncoding !== encoding;
  const own = recounted ? countContentTokens(counter, message) : message.tokenCount;
  return { tokens: own + markerTokens(message, counter), recounted };
}
