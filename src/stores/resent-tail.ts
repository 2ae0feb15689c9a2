import type { NewMessage, StoredMessage } from '../core/schemas/message.js';

/**
 * A replace that sends the end of the stored log again, unchanged, before its new messages: how an
 * AMS client appends (GET the working memory, add a message, PUT the whole list back).
 */
export interface ResentTail {
  /** How many of the replace's first messages are stored messages sent again. */
  kept: number;
  /** The seq of the first of them: the log keeps its messages from this seq on. */
  firstSeq: number;
}

const wholeSecond = (iso: string) => Math.floor(Date.parse(iso) / 1000);
const toolCallsOf = (message: NewMessage) =>
  message.toolCalls && message.toolCalls.length > 0 ? JSON.stringify(message.toolCalls) : null;

/**
 * The same message, as a client sends it back: every field equal, the time to the second (AMS
 * answers times in whole seconds, and a client sends back what it read).
 */
export function isSameMessage(stored: StoredMessage, sent: NewMessage): boolean {
  return (
    stored.id === sent.id &&
    stored.role === sent.role &&
    stored.content === sent.content &&
    (stored.name ?? null) === (sent.name ?? null) &&
    (stored.toolCallId ?? null) === (sent.toolCallId ?? null) &&
    stored.tokenEncoding === sent.tokenEncoding &&
    toolCallsOf(stored) === toolCallsOf(sent) &&
    wholeSecond(stored.createdAt) === wholeSecond(sent.createdAt)
  );
}

/**
 * Whether a replace re-sends the end of the stored log. `newest` holds the log's last messages,
 * oldest first, ending at `lastSeq`, and at least as many as `incoming` (or all of them). The
 * stored messages from the one whose id opens `incoming` to the end must be `incoming`'s first
 * messages, unchanged and with consecutive seqs; then they are kept, seqs and all, so that marks
 * kept by seq (extraction cursors, session-end marks) do not see them as new. Else null: the
 * replace is a real one. Linear in `newest`.
 */
export function findResentTail(
  newest: readonly StoredMessage[],
  incoming: readonly NewMessage[],
  lastSeq: number,
): ResentTail | null {
  const first = incoming[0];
  if (!first || newest.length === 0 || newest.at(-1)?.seq !== lastSeq) return null;
  const start = newest.findIndex((message) => message.id === first.id);
  if (start < 0) return null;
  const kept = newest.length - start;
  if (kept > incoming.length) return null;
  const firstSeq = (newest[start] as StoredMessage).seq;
  for (let index = 0; index < kept; index++) {
    const stored = newest[start + index] as StoredMessage;
    if (stored.seq !== firstSeq + index || !isSameMessage(stored, incoming[index] as NewMessage)) return null;
  }
  return { kept, firstSeq };
}

/**
 * The session's `createdAt` after a replace that names one: a time in the same second as the stored
 * one is that time sent back (AMS answers whole seconds), not a new creation time.
 */
export function createdAtAfterReplace(storedMs: number, sentMs: number): number {
  return Math.floor(storedMs / 1000) === Math.floor(sentMs / 1000) ? storedMs : sentMs;
}
