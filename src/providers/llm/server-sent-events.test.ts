import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { readServerSentEvents, type ServerSentEvent } from './server-sent-events.js';

/** A body delivering `text` in the given pieces (cut anywhere, even inside a CRLF or a character). */
function bodyOf(bytes: Uint8Array, cuts: number[]): ReadableStream<Uint8Array> {
  const points = [...new Set(cuts.map((cut) => cut % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let start = 0;
  for (const point of [...points, bytes.length]) {
    pieces.push(bytes.slice(start, point));
    start = point;
  }
  return new ReadableStream({
    start(controller) {
      for (const piece of pieces) controller.enqueue(piece);
      controller.close();
    },
  });
}

async function parse(text: string, cuts: number[] = []): Promise<ServerSentEvent[]> {
  const events: ServerSentEvent[] = [];
  for await (const event of readServerSentEvents(bodyOf(new TextEncoder().encode(text), cuts))) {
    events.push(event);
  }
  return events;
}

describe('readServerSentEvents', () => {
  it('joins data lines, skips comments, reads event names and every line ending', async () => {
    const text =
      ': keep-alive\n\ndata: a\ndata: b\n\nevent: error\r\ndata:{"x":1}\r\n\r\ndata: last\rdata:  two spaces\r\r';
    expect(await parse(text)).toEqual([
      { event: 'message', data: 'a\nb' },
      { event: 'error', data: '{"x":1}' },
      { event: 'message', data: 'last\n two spaces' },
    ]);
  });

  it('delivers an event cut off by the end of the body', async () => {
    expect(await parse('data: [DONE]')).toEqual([{ event: 'message', data: '[DONE]' }]);
  });

  it('gives the same events however the bytes are split', async () => {
    const text = 'data: héllo ✓\r\n\r\ndata: {"a":"b"}\n\nevent: x\ndata: 1\n\n';
    const expected = await parse(text);
    await fc.assert(
      fc.asyncProperty(fc.array(fc.nat(200), { maxLength: 10 }), async (cuts) => {
        expect(await parse(text, cuts)).toEqual(expected);
      }),
      { numRuns: 100 },
    );
  });
});
