import { afterAll, describe, expect, it } from 'vitest';
import { decodeMessages } from '../../engine/sessions/prepare-session-write.js';
import { BodyBytes } from '../body-bytes.js';
import { createPutThread, preparedOffThread } from './working-memory-put-thread.js';

const thread = createPutThread();
afterAll(() => thread.close());

const job = {
  contentType: 'application/json',
  encoding: 'o200k_base' as const,
  now: Date.now(),
  window: null,
};

/** A body received in chunks of `size` bytes, each owning its memory (as a socket's are). */
function received(text: string, size = 1_000) {
  const body = new BodyBytes();
  const bytes = Buffer.from(text);
  for (let at = 0; at < bytes.length; at += size) body.append(new Uint8Array(bytes.subarray(at, at + size)));
  return body;
}

describe('the PUT worker thread', () => {
  it('prepares a body, moving its chunks there, and stops once idle', async () => {
    const messages = Array.from({ length: 3_000 }, (_, index) => ({ role: 'user', content: `é ${index}` }));
    const before = preparedOffThread();
    const body = received(JSON.stringify({ messages, data: { a: 1 } }));
    const chunks = [...body.segments];
    const preparing = thread.prepare(body, job);
    expect(thread.running()).toBe(true);
    // Moved to the worker, not copied: nothing of them is left on this thread.
    expect(chunks.every((chunk) => chunk.byteLength === 0)).toBe(true);
    const prepared = await preparing;
    if (!prepared.ok) throw new Error('refused');
    expect(preparedOffThread()).toBe(before + 1);
    expect(prepared.write.data).toEqual({ a: 1 });
    const decoded = await decodeMessages(prepared.messages);
    expect(decoded.map((message) => message.content)).toEqual(messages.map((message) => message.content));
    const echo = JSON.parse(`[${Buffer.concat(prepared.echo).toString()}]`);
    expect(echo.map((message: { id: string }) => message.id)).toEqual(decoded.map((message) => message.id));
    // Stopped: its heap, which held the messages, is dropped whole.
    expect(thread.running()).toBe(false);
  });

  it('hands a faulty body back whole, for the request thread to name its error', async () => {
    const text = `{"messages":[{"role":"robot","content":"${'é'.repeat(5_000)}"}]}`;
    const refused = await thread.prepare(received(text, 777), job);
    expect(refused.ok).toBe(false);
    if (refused.ok) return;
    expect(await refused.body.text()).toBe(text);
    expect(thread.running()).toBe(false);
  });
});
