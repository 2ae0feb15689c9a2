import type { ChatEvent } from './client-types.js';
import { EngramClientError } from './engram-client-error.js';

/** A line's end in an event stream: CRLF, LF or CR (the SSE spec allows all three). */
const lineEnd = /\r\n|\r|\n/;

/**
 * The events of a chat answer (`text/event-stream`: `event: <type>` and one `data: <JSON>` line per
 * event, docs/chat.md) as they arrive. Lines may end in CRLF, LF or CR; comments (`:`) and unknown
 * event types are skipped, and an event the stream ends inside of is dropped (as the SSE spec
 * says). An event whose data is not JSON throws `EngramClientError` `event_stream_invalid`.
 * Leaving early (a `break` out of `for await`, a throw) cancels the body, which frees the connection.
 */
export async function* chatEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  const decoder = new TextDecoder();
  const reader = body.getReader();
  let buffer = '';
  let type = '';
  let data: string[] = [];
  let finished = false;
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      for (let match = lineEnd.exec(buffer); match; match = lineEnd.exec(buffer)) {
        // A CR that ends the buffer may be the first half of a CRLF still on its way.
        if (match[0] === '\r' && match.index === buffer.length - 1 && !done) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        if (line === '') {
          // A blank line ends the event.
          const event = data.length > 0 ? toEvent(type || 'message', data.join('\n')) : undefined;
          type = '';
          data = [];
          if (event) yield event;
          continue;
        }
        if (line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const field = colon < 0 ? line : line.slice(0, colon);
        let fieldValue = colon < 0 ? '' : line.slice(colon + 1);
        if (fieldValue.startsWith(' ')) fieldValue = fieldValue.slice(1);
        if (field === 'event') type = fieldValue;
        else if (field === 'data') data.push(fieldValue);
      }
      if (done) {
        finished = true;
        return;
      }
    }
  } finally {
    // Stopped before the end (by the consumer or an error): cancel the body to free the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}

function toEvent(type: string, data: string): ChatEvent | undefined {
  if (type !== 'delta' && type !== 'done' && type !== 'error') return undefined;
  let value: unknown;
  try {
    value = JSON.parse(data);
  } catch (error) {
    throw new EngramClientError(
      0,
      'event_stream_invalid',
      `The chat stream sent a \`${type}\` event whose data is not JSON: ${data.slice(0, 200)}`,
      undefined,
      { details: { event: type, data: data.slice(0, 500) }, cause: error },
    );
  }
  if (type === 'delta') return { type, text: (value as { text: string }).text };
  if (type === 'done') return { type, data: value as never };
  return { type, error: value as never };
}
