import type { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { countLoopTurns } from '../../test/support/loop-turns.js';
import { ALONE_CHARS } from '../core/event-loop-slicer.js';
import { jsonAnswer, jsonChunksAnswer, jsonListAnswer } from './json-answer.js';

const fakeReply = () =>
  ({ type: vi.fn(), header: vi.fn() }) as unknown as FastifyReply & {
    type: ReturnType<typeof vi.fn>;
    header: ReturnType<typeof vi.fn>;
  };

async function bytesOf(answer: Buffer | Readable): Promise<Buffer> {
  if (Buffer.isBuffer(answer)) return answer;
  const chunks: Buffer[] = [];
  for await (const chunk of answer) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

describe('jsonAnswer', () => {
  it("answers a short value's JSON text at once, typed as JSON", async () => {
    const reply = fakeReply();
    const value = { session: { id: 's' }, messages: [{ content: 'é 😀' }] };
    let ranBetween = false;
    setImmediate(() => {
      ranBetween = true;
    });
    expect(await jsonAnswer(reply, value)).toBe(JSON.stringify(value));
    expect(ranBetween).toBe(false);
    expect(reply.type).toHaveBeenCalledWith('application/json; charset=utf-8');
  });

  it("encodes a long value's JSON in a later turn, byte for byte what JSON.stringify gives", async () => {
    const reply = fakeReply();
    const value = { messages: [{ content: `${'é😀x'.repeat(ALONE_CHARS / 3)}"\\` }] };
    let ranBetween = false;
    setImmediate(() => {
      ranBetween = true;
    });
    const answer = await jsonAnswer(reply, value);
    // Other work (a health check) ran between serializing and encoding.
    expect(ranBetween).toBe(true);
    expect(Buffer.isBuffer(answer)).toBe(true);
    expect((answer as Buffer).equals(Buffer.from(JSON.stringify(value)))).toBe(true);
  });
});

describe('jsonChunksAnswer', () => {
  it('answers one chunk as it is and several as a stream with their whole length', async () => {
    const one = fakeReply();
    const chunk = Buffer.from('{"a":1}');
    expect(jsonChunksAnswer(one, [chunk])).toBe(chunk);
    expect(one.type).toHaveBeenCalledWith('application/json; charset=utf-8');
    expect(one.header).not.toHaveBeenCalled();
    const several = fakeReply();
    const chunks = [Buffer.from('{"a":['), Buffer.from('"é😀"'), Buffer.from(']}')];
    const answer = jsonChunksAnswer(several, chunks);
    expect(Buffer.isBuffer(answer)).toBe(false);
    expect(several.header).toHaveBeenCalledWith('content-length', Buffer.concat(chunks).length);
    expect((await bytesOf(answer)).toString()).toBe('{"a":["é😀"]}');
  });

  it('lets other work run between slices of a long answer while a fast reader takes it all', async () => {
    // Each reading of the clock is 1 ms later: a slice ends every few chunks. (A turn first, so
    // that no slice begun by the real clock is still open when the mocked one starts at 0.)
    await new Promise((resolve) => setImmediate(resolve));
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => clock++);
    try {
      const chunks = Array.from({ length: 100 }, (_, index) => Buffer.from(`${index},`));
      const answer = jsonChunksAnswer(fakeReply(), chunks);
      const turns = countLoopTurns();
      const bytes = await bytesOf(answer);
      expect(bytes.toString()).toBe(chunks.join(''));
      // Written from an array in one go, no turn of the event loop would run in between.
      expect(turns.stop()).toBeGreaterThan(10);
    } finally {
      now.mockRestore();
    }
  });
});

describe('jsonListAnswer', () => {
  it("writes JSON.stringify's bytes with the list mapped item by item, other work running between items", async () => {
    const reply = fakeReply();
    const hits = Array.from({ length: 300 }, (_, index) => ({ index, text: `é😀"\\${'x'.repeat(2_000)}` }));
    const object = { memories: hits, total: 300, next_offset: null, skipped: undefined };
    // Every slice takes 5 ms by this clock, so each item's pause yields.
    await new Promise((resolve) => setImmediate(resolve));
    let clock = 0;
    const now = vi.spyOn(performance, 'now').mockImplementation(() => (clock += 5));
    const turns = countLoopTurns();
    const answer = await jsonListAnswer(reply, object, 'memories', (hit: (typeof hits)[number]) => ({
      ...hit,
      mapped: true,
    }));
    const turnsTaken = turns.stop();
    now.mockRestore();
    const expected = JSON.stringify({ ...object, memories: hits.map((hit) => ({ ...hit, mapped: true })) });
    expect((await bytesOf(answer)).equals(Buffer.from(expected))).toBe(true);
    expect(reply.type).toHaveBeenCalledWith('application/json; charset=utf-8');
    expect(turnsTaken).toBeGreaterThanOrEqual(hits.length);
  });
});
