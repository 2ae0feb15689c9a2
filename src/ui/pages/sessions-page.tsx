import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { SessionSummary, WorkingMemory } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Pager } from '../components/pager.js';
import { SessionMessages } from '../components/session-messages.js';
import { hrefOf, sessionOf } from '../route.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';

const LIMIT = 20;
/** Messages read at a time, newest first (`recent_messages_limit`): "Show earlier" reads as many more. */
export const MESSAGE_PAGE = 100;

function SessionDetail({
  session_id,
  namespace,
  user_id,
}: {
  session_id: string;
  namespace: string;
  user_id: string;
}) {
  const can = useCan();
  const scope = { namespace, user_id };
  const path = `/v1/working-memory/${encodeURIComponent(session_id)}`;
  // The newest `shown` messages only: a session of thousands is never read (or drawn) whole.
  const [shown, setShown] = useState(MESSAGE_PAGE);
  const memory = useLoad(JSON.stringify([session_id, namespace, user_id, shown]), () =>
    // With the messages the summary covers, which the page folds.
    api<WorkingMemory>('GET', path, {
      query: { ...scope, include_summarized: true, recent_messages_limit: shown },
    }),
  );
  const [ended, setEnded] = useState<{ text?: string; error?: unknown } | null>(null);
  const links = { session_id, namespace, user_id };
  const data = memory.data;
  return (
    <section class="panel" aria-label={`Session ${session_id}`}>
      <h2>Session {session_id}</h2>
      <p class="actions">
        <a href={hrefOf('inspector', links)}>Inspect its turns</a>
        <a href={hrefOf('working-set', links)}>Working set</a>
        {can('write') ? (
          <button
            type="button"
            onClick={() =>
              api<{ task: { id: string } | null }>('POST', `${path}/end`, { query: scope, body: {} }).then(
                (answer) => {
                  setEnded({ text: answer.task ? `Ending: task ${answer.task.id}` : 'Nothing to end' });
                  memory.reload();
                },
                (error: unknown) => setEnded({ error }),
              )
            }
          >
            End session
          </button>
        ) : null}
      </p>
      {ended?.text ? <p class="notice">{ended.text}</p> : null}
      <ErrorNotice error={ended?.error ?? memory.error} />
      {data ? (
        <>
          <dl class="facts">
            <dt>Namespace</dt>
            <dd>{data.namespace ?? '—'}</dd>
            <dt>User</dt>
            <dd>{data.user_id ?? '—'}</dd>
            <dt>TTL</dt>
            <dd>{data.ttl_seconds === null ? 'none' : `${data.ttl_seconds} s`}</dd>
            <dt>Tokens</dt>
            <dd>{data.tokens}</dd>
            <dt>Updated</dt>
            <dd>{new Date(data.updated_at).toLocaleString()}</dd>
          </dl>
          <h3>Messages</h3>
          {data.messages.length >= shown ? (
            <p class="muted earlier">
              The newest {data.messages.length} messages.{' '}
              <button type="button" disabled={memory.loading} onClick={() => setShown(shown + MESSAGE_PAGE)}>
                Show {MESSAGE_PAGE} earlier messages
              </button>
            </p>
          ) : null}
          <SessionMessages messages={data.messages} summary={data.context} />
          <h3>Pending memories</h3>
          {data.memories.length === 0 ? (
            <p class="muted">None.</p>
          ) : (
            <ul>
              {data.memories.map((entry) => (
                <li key={entry.id}>
                  {entry.text}{' '}
                  <span class="badge">{entry.persisted_at ? 'promoted' : 'waiting for promotion'}</span>
                </li>
              ))}
            </ul>
          )}
          <h3>Data</h3>
          <pre class="content">{JSON.stringify(data.data ?? {}, null, 2)}</pre>
        </>
      ) : null}
    </section>
  );
}

/** Sessions, newest first, filtered by namespace and user; one opens beside the list. */
export function SessionsPage({ params }: { params: URLSearchParams }) {
  const [filters, setFilters] = useState({ namespace: '', user_id: '' });
  const [applied, setApplied] = useState(filters);
  const [offset, setOffset] = useState(0);
  const list = useLoad(JSON.stringify([applied, offset]), () =>
    api<{ sessions: SessionSummary[]; total: number }>('GET', '/v1/sessions', {
      query: { ...applied, limit: LIMIT, offset },
    }),
  );
  const selected = sessionOf(params);
  return (
    <div class="split">
      <section aria-label="Session list">
        <form
          class="toolbar"
          aria-label="Filter sessions"
          onSubmit={(event) => {
            event.preventDefault();
            setOffset(0);
            setApplied(filters);
          }}
        >
          <label>
            Namespace
            <input
              value={filters.namespace}
              onInput={(event) => setFilters({ ...filters, namespace: event.currentTarget.value })}
            />
          </label>
          <label>
            User id
            <input
              value={filters.user_id}
              onInput={(event) => setFilters({ ...filters, user_id: event.currentTarget.value })}
            />
          </label>
          <button type="submit">Filter</button>
        </form>
        <ErrorNotice error={list.error} />
        <div class="table-wrap">
          <table>
            <thead>
              <tr>
                <th>session</th>
                <th>namespace</th>
                <th>user</th>
                <th class="number">messages</th>
                <th>updated</th>
              </tr>
            </thead>
            <tbody>
              {list.data?.sessions.map((session) => (
                <tr
                  key={`${session.namespace}/${session.user_id}/${session.session_id}`}
                  class={session.session_id === selected.session_id ? 'selected' : ''}
                >
                  <td>
                    <a
                      href={hrefOf('sessions', {
                        session_id: session.session_id,
                        namespace: session.namespace,
                        user_id: session.user_id,
                      })}
                    >
                      {session.session_id}
                    </a>
                  </td>
                  <td>{session.namespace ?? '—'}</td>
                  <td>{session.user_id ?? '—'}</td>
                  <td class="number">{session.message_count}</td>
                  <td>{new Date(session.updated_at).toLocaleString()}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        {list.data ? (
          <Pager
            label="Pages of sessions"
            offset={offset}
            limit={LIMIT}
            total={list.data.total}
            onChange={setOffset}
          />
        ) : null}
      </section>
      {selected.session_id ? (
        // One mount per session: a notice ("Ending: task …") or a window of messages stays with its session.
        <SessionDetail key={JSON.stringify(selected)} {...selected} />
      ) : (
        <p class="muted panel">Choose a session to see its messages, summary, data and pending memories.</p>
      )}
    </div>
  );
}
