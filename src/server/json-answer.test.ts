import type { FastifyReply } from 'fastify';
import { describe, expect, it, vi } from 'vitest';
import { ALONE_CHARS } from '../engine/event-loop-slicer.js';
import { jsonAnswer } from './json-answer.js';

const fakeReply = () => ({ type: vi.fn() }) as unknown as FastifyReply & { type: ReturnType<typeof vi.fn> };

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
