import type { ChatEvent } from './client-types.js';

/**
 * The events of a chat answer (`text/event-stream`: `event: <type>` and one `data: <JSON>` line per
 * event, docs/chat.md) as they arrive. Unknown event types are skipped.
 */
export async function* chatEvents(body: ReadableStream<Uint8Array>): AsyncGenerator<ChatEvent> {
  const decoder = new TextDecoder();
  let buffer = '';
  const reader = body.getReader();
  try {
    for (;;) {
      const { value, done } = await reader.read();
      buffer += decoder.decode(value, { stream: !done });
      let end = buffer.indexOf('\n\n');
      while (end >= 0) {
        const event = toEvent(buffer.slice(0, end));
        buffer = buffer.slice(end + 2);
        if (event) yield event;
        end = buffer.indexOf('\n\n');
      }
      if (done) return;
    }
  } finally {
    reader.releaseLock();
  }
}

function toEvent(block: string): ChatEvent | undefined {
  let type = 'message';
  const data: string[] = [];
  for (const line of block.split('\n')) {
    if (line.startsWith('event:')) type = line.slice(6).trim();
    else if (line.startsWith('data:')) data.push(line.slice(5).trimStart());
  }
  if (data.length === 0) return undefined;
  const value = JSON.parse(data.join('\n')) as never;
  if (type === 'delta') return { type, text: (value as { text: string }).text };
  if (type === 'done') return { type, data: value };
  if (type === 'error') return { type, error: value };
  return undefined;
}
