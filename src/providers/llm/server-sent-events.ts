/** One Server-Sent Event: its `event` name (`message` by default) and its joined `data` lines. */
export interface ServerSentEvent {
  event: string;
  data: string;
}

const LINE_END = /\r\n|\r|\n/;

/**
 * Parses a `text/event-stream` body (WHATWG rules: `data:` lines joined by newlines, a blank line
 * ends an event, `:` lines are comments, any line ending). An event cut off by the end of the body
 * is still delivered, since some servers omit the final blank line. Stopping the iteration cancels
 * the body.
 */
export async function* readServerSentEvents(
  body: ReadableStream<Uint8Array>,
): AsyncGenerator<ServerSentEvent> {
  const reader = body.getReader();
  const decoder = new TextDecoder();
  let buffer = '';
  let data: string[] = [];
  let event = '';
  /** Handles one line; returns the event it completes, if any. */
  const takeLine = (line: string): ServerSentEvent | undefined => {
    if (line === '') {
      const complete = data.length > 0 ? { event: event || 'message', data: data.join('\n') } : undefined;
      data = [];
      event = '';
      return complete;
    }
    if (line.startsWith(':')) return undefined;
    const colon = line.indexOf(':');
    const field = colon === -1 ? line : line.slice(0, colon);
    let value = colon === -1 ? '' : line.slice(colon + 1);
    if (value.startsWith(' ')) value = value.slice(1);
    if (field === 'data') data.push(value);
    else if (field === 'event') event = value;
    return undefined;
  };
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += done ? decoder.decode() : decoder.decode(value, { stream: true });
      for (let match = LINE_END.exec(buffer); match; match = LINE_END.exec(buffer)) {
        // A lone CR at the end may be the first half of a CRLF still in flight.
        if (!done && match[0] === '\r' && match.index === buffer.length - 1) break;
        const line = buffer.slice(0, match.index);
        buffer = buffer.slice(match.index + match[0].length);
        const complete = takeLine(line);
        if (complete) yield complete;
      }
      if (done) break;
    }
    const last = takeLine(buffer) ?? takeLine('');
    if (last) yield last;
  } finally {
    // Cancelling tells the server we stopped reading; a failure to do so changes nothing for us.
    await reader.cancel().catch(() => undefined);
    reader.releaseLock();
  }
}
