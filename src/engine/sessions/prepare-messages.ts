import type { z } from 'zod';
import { canonicalIsoText } from '../../core/canonical-iso-text.js';
import { parseWith, ValidationError } from '../../core/errors.js';
import { createEventLoopSlicer, nextTurn } from '../../core/event-loop-slicer.js';
import { type MessageInput, messageInputSchema, type NewMessage } from '../../core/schemas/message.js';
import { MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import {
  countContentTokens,
  countContentTokensInSlices,
  isShortMessage,
  type TokenCounter,
} from '../../core/tokens/token-counter.js';
import { newId } from '../new-id.js';

/** A message as `messageInputSchema` parses it. */
type ParsedMessage = z.output<typeof messageInputSchema>;

/** Content at least this long is counted from a turn of its own (about one slice of counting). */
const LONG_CONTENT_CHARS = 65_536;

const isLong = (input: unknown): boolean => {
  const content = (input as { content?: unknown } | null)?.content;
  return typeof content === 'string' && content.length >= LONG_CONTENT_CHARS;
};

/** Messages dated further in the future than this are rejected (clock skew tolerance, as in AMS). */
export const FUTURE_TOLERANCE_MS = 300_000;

/**
 * Validates messages and makes them ready to store: ids (ULID) and timestamps filled in, content
 * tokens counted once. Either all messages are valid or a ValidationError names the bad ones.
 * Yields to the event loop about every 2 ms, DEFAULT_SLICE_MS (between messages, and inside a long content's
 * counting), so a large batch or a megabyte message never holds other requests for long.
 */
export async function prepareMessages(
  inputs: readonly unknown[],
  counter: TokenCounter,
  now: Date,
): Promise<NewMessage[]> {
  if (!Array.isArray(inputs)) throw new ValidationError('messages must be an array');
  // Before any per-item work: a million messages are refused as cheaply as one too many.
  if (inputs.length > MAX_SESSION_MESSAGES) {
    throw new ValidationError(
      `A write may carry at most ${MAX_SESSION_MESSAGES} messages (MAX_SESSION_MESSAGES); got ${inputs.length}`,
      [{ path: [], message: `Too many messages: at most ${MAX_SESSION_MESSAGES}` }],
    );
  }
  const prepare = await createMessagePreparer(inputs, counter, now);
  const prepared: NewMessage[] = [];
  for (const [index, input] of inputs.entries()) {
    const wait = prepare.pause();
    if (wait) await wait;
    const message = prepare(parseWith(messageInputSchema, input, `message at index ${index}`), index);
    prepared.push(message instanceof Promise ? await message : message);
  }
  return prepared;
}

/** A validated message with its id, date and count: what the store keeps. */
function preparedMessage(
  id: string,
  message: ParsedMessage,
  at: string,
  tokenCount: number,
  tokenEncoding: TokenCounter['encoding'],
): NewMessage {
  const { role, content, name, toolCalls, toolCallId } = message;
  // A plain literal for the usual message: one built from conditional spreads took about 200
  // bytes more, and a large PUT holds 100,000 of them while they are stored.
  if (!name && !toolCalls && !toolCallId) {
    return { id, role, content, createdAt: at, tokenCount, tokenEncoding };
  }
  return {
    id,
    role,
    content,
    ...(name ? { name } : {}),
    ...(toolCalls ? { toolCalls } : {}),
    ...(toolCallId ? { toolCallId } : {}),
    createdAt: at,
    tokenCount,
    tokenEncoding,
  };
}

/**
 * Prepares one validated message; `pause` lets other requests run between messages. A message
 * counted in one short step is prepared at once (no promise), so that a caller preparing 100,000
 * of them needs no `await` per message.
 */
export interface MessagePreparer {
  (message: ParsedMessage, index: number): NewMessage | Promise<NewMessage>;
  pause(): Promise<unknown> | undefined;
}

/**
 * `prepareMessages` one message at a time, for a caller that validates them itself (a PUT
 * validates and prepares each message in one step, so that its validated copy dies young):
 * duplicate ids across the batch and dates in the future are refused as there. `inputs` (the raw
 * batch) only decides whether counting waits for a turn of its own.
 */
export async function createMessagePreparer(
  inputs: readonly unknown[],
  counter: TokenCounter,
  now: Date,
): Promise<MessagePreparer> {
  const seen = new Set<string>();
  // The request that brought a long text already spent its turn reading, parsing and validating
  // it: counting starts on a turn of its own, or its first slice would add to that.
  if (inputs.some(isLong)) await nextTurn();
  const slicer = createEventLoopSlicer();
  const nowTime = now.getTime();
  const nowText = now.toISOString();
  const prepare = (message: ParsedMessage, index: number): NewMessage | Promise<NewMessage> => {
    const id = message.id ?? newId(nowTime);
    if (seen.has(id)) {
      throw new ValidationError(`Duplicate message id ${id} at index ${index}`, [
        { path: [index, 'id'], message: 'Duplicate message id' },
      ]);
    }
    seen.add(id);
    const text = message.createdAt;
    const time = text ? Date.parse(text) : nowTime;
    if (time - nowTime > FUTURE_TOLERANCE_MS) {
      throw new ValidationError(`Message at index ${index} is dated more than 300 seconds in the future`, [
        { path: [index, 'createdAt'], message: 'createdAt is in the future' },
      ]);
    }
    // Text already in toISOString form is kept, and undated messages share one string: no Date
    // and no new string for each of the 100,000 messages of a large PUT, which all live (and are
    // copied by the garbage collector) until they are stored.
    const at = text ? (canonicalIsoText(text) ?? new Date(time).toISOString()) : nowText;
    if (isShortMessage(message))
      return preparedMessage(id, message, at, countContentTokens(counter, message), counter.encoding);
    return countContentTokensInSlices(counter, message, slicer.pause).then((tokenCount) =>
      preparedMessage(id, message, at, tokenCount, counter.encoding),
    );
  };
  return Object.assign(prepare, { pause: slicer.pause });
}

export type { MessageInput };
