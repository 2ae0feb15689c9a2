import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import type { NewMessage } from '../../core/schemas/message.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import {
  decodeMessages,
  encodeMessages,
  type PreparedSessionWrite,
  prepareSessionWrite,
} from './prepare-session-write.js';
import { createSessionOperations } from './session-operations.js';

const counter: TokenCounter = { encoding: 'o200k_base', count: (text) => text.length };
const now = new Date('2026-05-01T10:00:00.000Z');
const inputOf = (count: number) => ({
  messages: Array.from({ length: count }, (_, index) => ({
    role: index % 2 ? ('assistant' as const) : ('user' as const),
    content: `message ${index}`,
    ...(index % 3 === 0 ? {} : { createdAt: '2026-04-30T09:00:00.000Z' }),
  })),
  memories: [{ text: 'likes tea', memoryType: 'semantic' as const }],
  data: { a: 1 },
  context: 'earlier',
});

/** Prepared as a worker prepares a PUT: validated, then encoded to move between threads. */
async function preparedElsewhere(count: number): Promise<PreparedSessionWrite & { transfer: ArrayBuffer[] }> {
  const { messages, ...write } = await prepareSessionWrite(inputOf(count), counter, now);
  const transfer: ArrayBuffer[] = [];
  return { write, messages: await encodeMessages(messages, transfer), encoding: 'o200k_base', transfer };
}

describe('prepareSessionWrite', () => {
  it('validates and prepares as put does: ids, dates, counts and completed memories', async () => {
    const { messages, memories, data, context } = await prepareSessionWrite(inputOf(4), counter, now);
    expect(messages.map((message) => message.createdAt)).toEqual([
      now.toISOString(),
      '2026-04-30T09:00:00.000Z',
      '2026-04-30T09:00:00.000Z',
      now.toISOString(),
    ]);
    expect(messages.map((message) => message.tokenCount)).toEqual(
      messages.map((message) => message.content.length),
    );
    expect(new Set(messages.map((message) => message.id)).size).toBe(4);
    expect(memories).toEqual([expect.objectContaining({ text: 'likes tea', createdAt: now.toISOString() })]);
    expect({ data, context }).toEqual({ data: { a: 1 }, context: 'earlier' });
    await expect(
      prepareSessionWrite({ messages: [{ role: 'robot', content: 'x' }] }, counter, now),
    ).rejects.toThrowError(ValidationError);
  });

  it('encodes many messages in movable chunks and few as they are; decoding gives them back', async () => {
    for (const count of [3, 2_500]) {
      const { messages } = await prepareSessionWrite(inputOf(count), counter, now);
      const transfer: ArrayBuffer[] = [];
      const encoded = await encodeMessages(messages, transfer);
      expect(encoded.count).toBe(count);
      expect(transfer.length > 0).toBe(count > 2_000);
      expect(Array.isArray(encoded.items)).toBe(count <= 2_000);
      expect(await decodeMessages(encoded)).toEqual(messages);
    }
  });
});

describe('putPrepared', () => {
  const stored = async (store: EngramStore, sessionId: string) => {
    const key = { tenantId: 'default', namespace: null, userId: null, sessionId };
    return store.readMessages(key, { order: 'oldest-first' });
  };

  it('stores what put stores, decoding for a store that does not take encoded messages', async () => {
    const store = createMemoryStore({ clock: () => now });
    expect(store.capabilities.encodedMessages).toBeUndefined();
    const sessions = createSessionOperations(store, counter, () => now);
    const prepared = await preparedElsewhere(2_500);
    const { session, messageCount } = await sessions.putPrepared({ sessionId: 'off' }, prepared);
    expect(messageCount).toBe(2_500);
    expect(session.lastSeq).toBe(2_500);
    expect(session).toMatchObject({ data: { a: 1 }, context: 'earlier' });
    expect(session.memories.map((memory) => memory.text)).toEqual(['likes tea']);
    const direct = await sessions.put({ sessionId: 'in' }, inputOf(2_500));
    const strip = (messages: readonly NewMessage[]) => messages.map(({ id: _id, ...message }) => message);
    expect(strip(await stored(store, 'off'))).toEqual(strip(await stored(store, 'in')));
    expect(strip(direct.messages)).toEqual(strip(await stored(store, 'off')));
    await store.close();
  });

  it('refuses messages counted in another encoding, and stale versions as put does', async () => {
    const store = createMemoryStore({ clock: () => now });
    const sessions = createSessionOperations(store, counter, () => now);
    const prepared = await preparedElsewhere(3);
    await expect(
      sessions.putPrepared({ sessionId: 'enc' }, { ...prepared, encoding: 'cl100k_base' }),
    ).rejects.toThrowError(/prepared for cl100k_base tokens; this engine counts o200k_base/);
    await sessions.putPrepared({ sessionId: 'enc' }, prepared);
    await expect(
      sessions.putPrepared({ sessionId: 'enc' }, await preparedElsewhere(3), { expectedVersion: 7 }),
    ).rejects.toThrowError(/version/i);
    await store.close();
  });
});
