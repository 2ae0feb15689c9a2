import type { z } from 'zod';
import { ValidationError, validationErrorFromZod } from '../../core/errors.js';
import { DEFAULT_SLICE_MS } from '../../core/event-loop-slicer.js';
import type { NewMessage } from '../../core/schemas/message.js';
import {
  type MemoryStrategy,
  type PendingMemory,
  type pendingMemorySchema,
  sessionInputSchema,
} from '../../core/schemas/session.js';
import type { Encoding } from '../../core/tokens/model-registry.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import type { SessionWrite } from '../../stores/session-store.js';
import { decodeLargeArrays, encodeLargeArrays } from '../../stores/worker/chunked-arrays.js';
import { newId } from '../new-id.js';
import { parseInSlices } from '../parse-in-slices.js';
import { validateCustomPrompt } from '../write-path/llm/validate-custom-prompt.js';
import { createMessagePreparer } from './prepare-messages.js';

/** A session input checked one message at a time (up to 100,000 of them), with parseWith's result. */
const sessionInputInSlices = parseInSlices(sessionInputSchema, 'messages');

export function completeMemories(
  memories: z.output<typeof pendingMemorySchema>[],
  now: Date,
): PendingMemory[] {
  return memories.map((memory) => ({
    ...memory,
    id: memory.id ?? newId(now.getTime()),
    createdAt: memory.createdAt ?? now.toISOString(),
  }));
}

/**
 * A custom extraction prompt is checked when the session is written, as the extraction job would
 * check it: refused here (a ValidationError) rather than accepted and failing in the background later.
 */
function checkStrategy(strategy: MemoryStrategy): void {
  if (strategy.strategy !== 'custom') return;
  try {
    validateCustomPrompt(strategy.config);
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    throw new ValidationError(
      error.message,
      error.issues.map((issue) => ({ ...issue, path: ['longTermMemoryStrategy', ...issue.path] })),
    );
  }
}

/**
 * A put's input validated and made ready to store, as `SessionOperations.put` stores it: each
 * message prepared (id, date, token count) as soon as it is validated, so that 100,000 validated
 * copies never all survive (each would be copied by the garbage collector in a pause of the
 * event loop). Throws ValidationError as `put` does.
 */
export async function prepareSessionWrite(
  input: unknown,
  counter: TokenCounter,
  now: Date,
): Promise<SessionWrite> {
  const raw = (input as { messages?: unknown } | null)?.messages;
  const prepare = await createMessagePreparer(Array.isArray(raw) ? raw : [], counter, now);
  const parsed = await sessionInputInSlices.mapItems(input, prepare.pause, prepare);
  if (!parsed.success) throw validationErrorFromZod('session', parsed.error);
  const { messages, memories, data, context, ttlSeconds, longTermMemoryStrategy, createdAt } = parsed.data;
  checkStrategy(longTermMemoryStrategy);
  return {
    messages,
    memories: completeMemories(memories, now),
    data,
    context,
    ttlSeconds,
    longTermMemoryStrategy,
    ...(createdAt ? { createdAt: new Date(createdAt).toISOString() } : {}),
  };
}

/**
 * Prepared messages on their way from the thread that prepared them to the store: over 2,000 of
 * them as chunks of structured-clone bytes (`chunked-arrays.ts`), moved between threads without a
 * copy and decoded only where they are written; fewer as the array itself.
 */
export interface EncodedMessages {
  readonly count: number;
  /** An encoded array, or the messages themselves. */
  readonly items: unknown;
}

/** A put prepared in another thread (`prepareSessionWrite`, then `encodeMessages`). */
export interface PreparedSessionWrite {
  write: Omit<SessionWrite, 'messages'>;
  messages: EncodedMessages;
  /** The encoding the messages' tokens were counted in: the engine's (`preparation()`). */
  encoding: Encoding;
}

/** Encodes prepared messages to move them to another thread; `transfer` receives the buffers to move. */
export async function encodeMessages(
  messages: NewMessage[],
  transfer: ArrayBuffer[],
): Promise<EncodedMessages> {
  const items = await encodeLargeArrays(messages, transfer, Number.POSITIVE_INFINITY);
  return { count: messages.length, items };
}

/** The messages back as objects, decoded in slices of the event loop. */
export async function decodeMessages(encoded: EncodedMessages): Promise<NewMessage[]> {
  return (await decodeLargeArrays(encoded.items, DEFAULT_SLICE_MS)) as NewMessage[];
}
