import { describe, expect, it } from 'vitest';
import { chatEvents } from './chat-events.js';
import { EngramClientError } from './engram-client-error.js';

/** A body that sends `chunks` one by one, then ends (unless `open`); `cancelled()` says whether it was cancelled. */
function body(chunks: string[], { open = false } = {}) {
  let cancelled = false;
  const encoder = new TextEncoder();
  const stream = new ReadableStream<Uint8Array>({
    start(controller) {
      for (const chunk of chunks) controller.enqueue(encoder.encode(chunk));
      if (!open) controller.close();
    },
    cancel() {
      cancelled = true;
    },
  });
  return { stream, cancelled: () => cancelled };
}

async function collect(chunks: string[]) {
  const events = [];
  for await (const event of chatEvents(body(chunks).stream)) events.push(event);
  return events;
}

const expected = [
  { type: 'delta', text: 'Hel' },
  { type: 'delta', text: 'lo' },
  { type: 'done', data: { ok: true } },
];

describe('chatEvents', () => {
  it('reads events whose lines end in LF, CRLF or CR', async () => {
    const lf =
      'event: delta\ndata: {"text":"Hel"}\n\nevent: delta\ndata: {"text":"lo"}\n\nevent: done\ndata: {"ok":true}\n\n';
    expect(await collect([lf])).toEqual(expected);
    expect(await collect([lf.replaceAll('\n', '\r\n')])).toEqual(expected);
    expect(await collect([lf.replaceAll('\n', '\r')])).toEqual(expected);
  });

  it('reads a CRLF stream cut anywhere, a CR and its LF in different chunks included', async () => {
    const crlf =
      'event: delta\r\ndata: {"text":"Hel"}\r\n\r\nevent: delta\r\ndata: {"text":"lo"}\r\n\r\nevent: done\r\ndata: {"ok":true}\r\n\r\n';
    for (let cut = 1; cut < crlf.length; cut++) {
      expect(await collect([crlf.slice(0, cut), crlf.slice(cut)])).toEqual(expected);
    }
    // One character a chunk.
    expect(await collect([...crlf])).toEqual(expected);
  });

  it('skips comments and unknown events, and drops an event the stream ends inside of', async () => {
    const text =
      ': keep-alive\r\n\r\nevent: ping\r\ndata: not json\r\n\r\nevent: delta\r\ndata: {"text":"a"}\r\n\r\nevent: done\r\ndata: {';
    expect(await collect([text])).toEqual([{ type: 'delta', text: 'a' }]);
  });

  it('throws EngramClientError event_stream_invalid for data that is not JSON', async () => {
    const error = await collect(['event: delta\ndata: {"text":\n\n']).catch((thrown: unknown) => thrown);
    expect(error).toBeInstanceOf(EngramClientError);
    expect(error).toMatchObject({
      status: 0,
      code: 'event_stream_invalid',
      details: { event: 'delta', data: '{"text":' },
    });
    expect((error as Error).cause).toBeInstanceOf(SyntaxError);
  });

  it('cancels the body when the consumer stops early, and when a malformed event throws', async () => {
    const early = body(['event: delta\ndata: {"text":"a"}\n\n'], { open: true });
    for await (const event of chatEvents(early.stream)) {
      expect(event).toEqual({ type: 'delta', text: 'a' });
      break;
    }
    expect(early.cancelled()).toBe(true);
    expect(early.stream.locked).toBe(false);

    const malformed = body(['event: delta\ndata: nope\n\n'], { open: true });
    await expect(collect0(malformed.stream)).rejects.toMatchObject({ code: 'event_stream_invalid' });
    expect(malformed.cancelled()).toBe(true);
  });
});

async function collect0(stream: ReadableStream<Uint8Array>) {
  for await (const _event of chatEvents(stream)) {
    // drain
  }
}
