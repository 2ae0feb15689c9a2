import { describe, expect, it } from 'vitest';
import { EngramError, ValidationError } from './core/errors.js';
import { MAX_METADATA_BYTES } from './core/schemas/memory-record.js';
import { createEngram } from './engram.js';
import { createMemoryStore } from './stores/memory/memory-store.js';

const session = { sessionId: 'chat-1', userId: 'ada', namespace: 'demo' };

async function engramWith() {
  return createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
}

describe('bad input is rejected with a typed error and changes nothing', () => {
  const cases: [string, (engram: Awaited<ReturnType<typeof engramWith>>) => Promise<unknown>, RegExp][] = [
    [
      'unknown role',
      (engram) => engram.sessions.append(session, [{ role: 'wizard' as 'user', content: 'x' }]),
      /role/,
    ],
    [
      'empty content',
      (engram) => engram.sessions.append(session, [{ role: 'user', content: '   ' }]),
      /empty/,
    ],
    [
      'toolCallId on a message that is not a tool result',
      (engram) => engram.sessions.append(session, [{ role: 'user', content: 'hi', toolCallId: 'c1' }]),
      /toolCallId/,
    ],
    [
      'duplicate ids in one batch',
      (engram) =>
        engram.sessions.append(session, [
          { id: 'same', role: 'user', content: 'a' },
          { id: 'same', role: 'user', content: 'b' },
        ]),
      /Duplicate message id/,
    ],
    [
      'message dated in the future',
      (engram) =>
        engram.sessions.append(session, [{ role: 'user', content: 'a', createdAt: '2999-01-01T00:00:00Z' }]),
      /future/,
    ],
    [
      'data that is not a JSON object',
      (engram) => engram.sessions.put(session, { data: [1, 2] as never }),
      /data/,
    ],
    [
      'data with a non-JSON value',
      (engram) => engram.sessions.patch(session, { data: { when: new Date() as never } }),
      /data/,
    ],
    ['negative ttl', (engram) => engram.sessions.put(session, { ttlSeconds: -5 }), /ttlSeconds/],
    ['empty session id', (engram) => engram.sessions.get({ sessionId: '' }), /sessionId/],
    [
      'negative budget',
      (engram) =>
        engram.assemble({ session, message: 'x', agent: { memory: { maxWorkingMemoryTokens: -1 } } }),
      /maxWorkingMemoryTokens/,
    ],
    [
      'absurd budget',
      (engram) =>
        engram.assemble({ session, message: 'x', agent: { memory: { maxWorkingMemoryTokens: 5e9 } } }),
      /maxWorkingMemoryTokens/,
    ],
    [
      'budget beyond the model window',
      (engram) =>
        engram.assemble({
          session,
          message: 'x',
          agent: { memory: { model: 'gpt-4', maxWorkingMemoryTokens: 100_000 } },
        }),
      /context window/,
    ],
    [
      'reserved output above the budget',
      (engram) =>
        engram.assemble({
          session,
          message: 'x',
          agent: { memory: { maxWorkingMemoryTokens: 1_000, reservedOutputTokens: 1_000 } },
        }),
      /reservedOutputTokens/,
    ],
    [
      'unknown model',
      (engram) => engram.assemble({ session, message: 'x', agent: { memory: { model: 'gpt-99' } } }),
      /Unknown model/,
    ],
    [
      'a pending memory whose metadata passes MAX_METADATA_BYTES',
      (engram) =>
        engram.sessions.put(session, {
          memories: [{ text: 'fits', metadata: { blob: 'x'.repeat(MAX_METADATA_BYTES) } }],
        }),
      /MAX_METADATA_BYTES/,
    ],
    ['empty current message', (engram) => engram.assemble({ session, message: ' ' }), /message/],
    [
      'stale version',
      (engram) => engram.sessions.put(session, { context: 'changed' }, { expectedVersion: 7 }),
      /version/,
    ],
  ];

  it.each(cases)('%s', async (_name, call, pattern) => {
    const engram = await engramWith();
    await engram.sessions.put(session, { messages: [{ role: 'user', content: 'keep me' }], data: { a: 1 } });
    const before = await engram.sessions.get(session);
    const error = await call(engram).then(
      () => null,
      (caught: unknown) => caught,
    );
    expect(error).toBeInstanceOf(EngramError);
    expect((error as EngramError).message).toMatch(pattern);
    if (!(error instanceof ValidationError)) expect((error as EngramError).code).toBe('version_conflict');
    expect(await engram.sessions.get(session)).toEqual(before);
    await engram.close();
  });
});

describe('memory metadata is bounded like its text', () => {
  it('refuses a create or an edit past MAX_METADATA_BYTES and stores nothing', async () => {
    const engram = await engramWith();
    // A key and its quotes take bytes too: this object is just over the limit, its neighbour just under.
    const over = { blob: 'x'.repeat(MAX_METADATA_BYTES - 10) };
    const under = { blob: 'x'.repeat(MAX_METADATA_BYTES - 11) };
    expect(Buffer.byteLength(JSON.stringify(over))).toBe(MAX_METADATA_BYTES + 1);
    await expect(engram.memories.create('default', [{ text: 'too much', metadata: over }])).rejects.toThrow(
      /MAX_METADATA_BYTES/,
    );
    expect((await engram.memories.list('default')).total).toBe(0);
    const { inserted } = await engram.memories.create('default', [{ text: 'just fits', metadata: under }]);
    const id = inserted[0]?.id as string;
    await expect(engram.memories.edit('default', id, { metadata: over })).rejects.toThrow(ValidationError);
    expect((await engram.memories.get('default', id)).metadata).toEqual(under);
    await engram.close();
  });
});
