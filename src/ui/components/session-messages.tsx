import { useState } from 'preact/hooks';
import type { AmsMessage } from '../api-types.js';

function MessageList({ messages }: { messages: AmsMessage[] }) {
  return (
    <ol class="messages">
      {messages.map((message) => (
        <li
          key={message.id}
          class={`message role-${message.role}${message.summarized ? ' summarized-message' : ''}`}
        >
          <span class="role">{message.role}</span>{' '}
          <span class="muted">{new Date(message.created_at).toLocaleString()}</span>
          {message.summarized ? (
            <>
              {' '}
              <span class="badge">summarized</span>
            </>
          ) : null}
          <div class="text">{message.content}</div>
        </li>
      ))}
    </ol>
  );
}

/**
 * A session's messages read with `include_summarized`: the running summary, the messages it covers
 * in a fold (collapsed, with their count), then the ones after it.
 */
export function SessionMessages({ messages, summary }: { messages: AmsMessage[]; summary: string | null }) {
  // The fold's list is rendered only while open: a long session's history costs nothing folded.
  const [open, setOpen] = useState(false);
  const summarized = messages.filter((message) => message.summarized);
  const recent = messages.filter((message) => !message.summarized);
  const count = `${summarized.length} summarized message${summarized.length === 1 ? '' : 's'}`;
  return (
    <>
      {summary ? (
        <details class="summarized">
          <summary>Earlier messages are summarized: show the running summary</summary>
          <pre class="content">{summary}</pre>
        </details>
      ) : null}
      {summarized.length > 0 ? (
        <details
          class="summarized summarized-messages"
          onToggle={(event) => setOpen(event.currentTarget.open)}
        >
          <summary>{count}: show them</summary>
          {open ? <MessageList messages={summarized} /> : null}
        </details>
      ) : null}
      <MessageList messages={recent} />
    </>
  );
}
