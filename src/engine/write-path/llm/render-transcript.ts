import type { StoredMessage } from '../../../core/schemas/message.js';

/** Bounds of a rendered transcript, in characters. */
export interface TranscriptLimits {
  /** Longest content kept from one user, assistant or system message. */
  maxMessageChars: number;
  /** Longest content kept from one tool result, and from one tool call's arguments. */
  maxToolChars: number;
  /** Longest transcript; past it the oldest messages are left out, and the transcript says how many. */
  maxChars: number;
}

export const defaultTranscriptLimits: TranscriptLimits = {
  maxMessageChars: 4_000,
  maxToolChars: 300,
  maxChars: 60_000,
};

const clip = (text: string, max: number) =>
  text.length <= max ? text : `${text.slice(0, max)}… [${text.length - max} more characters]`;

/**
 * Makes text safe to put between `<tag>` … `</tag>` delimiters of a prompt: any tag-like
 * `<transcript>`, `</previous_summary>`, `<system role="x">`, … inside it loses its angle brackets, so data can never
 * close the block it is quoted in and pose as instructions.
 */
export function quoteData(text: string): string {
  return text.replace(/<(\/?)([a-z_][\w-]*)([^<>]{0,200})>/gi, '‹$1$2$3›');
}

/** `text` between `<tag>` delimiters, quoted with {@link quoteData}. */
export function dataBlock(tag: string, text: string): string {
  return `<${tag}>\n${quoteData(text)}\n</${tag}>`;
}

/**
 * One message as one or more compact lines: `[createdAt] role: content`; an assistant's tool
 * calls as `→ call name(arguments)`, a tool result as `tool result (call id): content`, both clipped
 * to `maxToolChars` (tool output is bulky and rarely what a memory is about).
 */
export function renderMessage(
  message: StoredMessage,
  limits: TranscriptLimits = defaultTranscriptLimits,
): string {
  const head = `[${message.createdAt}] ${message.role}${message.name ? ` (${message.name})` : ''}`;
  if (message.role === 'tool') {
    const content = clip(message.content.replace(/\s+/g, ' ').trim(), limits.maxToolChars);
    return `[${message.createdAt}] tool result (${message.toolCallId ?? 'unknown call'}): ${content}`;
  }
  const lines: string[] = [];
  const content = message.content.trim();
  if (content.length > 0) lines.push(`${head}: ${clip(content, limits.maxMessageChars)}`);
  for (const call of message.toolCalls ?? []) {
    const name = call.function.name;
    const argumentsText = clip(call.function.arguments.replace(/\s+/g, ' ').trim(), limits.maxToolChars);
    lines.push(`${lines.length === 0 ? head : '  '} → call ${name}(${argumentsText}) [id ${call.id}]`);
  }
  return lines.join('\n');
}

/**
 * The messages as a transcript a model reads, oldest first, each with its timestamp (so relative
 * dates can be resolved against when they were said). Bounded by `limits.maxChars`: when the
 * messages do not fit, the newest are kept and a first line says how many earlier ones were left
 * out; callers that must not lose any message pass batches that fit.
 */
export function renderTranscript(
  messages: readonly StoredMessage[],
  limits: TranscriptLimits = defaultTranscriptLimits,
): string {
  const rendered: string[] = [];
  let used = 0;
  for (let index = messages.length - 1; index >= 0; index -= 1) {
    const message = messages[index];
    if (!message) continue;
    const line = renderMessage(message, limits);
    if (line.length === 0) continue;
    if (rendered.length > 0 && used + line.length + 1 > limits.maxChars) {
      rendered.unshift(`(${index + 1} earlier messages left out)`);
      break;
    }
    rendered.unshift(line);
    used += line.length + 1;
  }
  return rendered.join('\n');
}

/** `now` as a model reads it: ISO instant and weekday, so "yesterday" and "next Friday" resolve. */
export function describeNow(now: Date): string {
  const weekday = now.toLocaleDateString('en-US', { weekday: 'long', timeZone: 'UTC' });
  return `${now.toISOString()} (${weekday}, UTC)`;
}
