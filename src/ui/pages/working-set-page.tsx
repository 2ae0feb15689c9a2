import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { ContextAnswer, TraceRecord, WorkingSet } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { ScoreBar } from '../components/score-bar.js';
import { SessionPicker } from '../components/session-picker.js';
import { TraceView } from '../components/trace-view.js';
import { sessionOf } from '../route.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';

type Session = ReturnType<typeof sessionOf>;

/**
 * A message typed in shows the context engram would assemble now; nothing is written. Mounted per
 * session and agent (`key`): an answer or an agent typed for one session never shows for another.
 */
function PreviewBox({ session, agent }: { session: Session; agent: string }) {
  const [message, setMessage] = useState('');
  const [agentId, setAgentId] = useState(agent);
  const [answer, setAnswer] = useState<{ data?: ContextAnswer; error?: unknown } | null>(null);
  const record = (data: ContextAnswer): TraceRecord => ({
    id: 'preview',
    session_id: session.session_id,
    namespace: session.namespace || null,
    user_id: session.user_id || null,
    agent_id: data.agent.id,
    created_at: new Date().toISOString(),
    trace: data.trace,
  });
  return (
    <section class="panel" aria-label="Context preview">
      <h2>Preview the next context</h2>
      <form
        onSubmit={(event) => {
          event.preventDefault();
          api<ContextAnswer>('POST', '/v1/context/preview', {
            body: {
              agent_id: agentId || undefined,
              session_id: session.session_id,
              namespace: session.namespace || null,
              user_id: session.user_id || null,
              message,
              format: 'neutral',
            },
          }).then(
            (data) => setAnswer({ data }),
            (error: unknown) => setAnswer({ error }),
          );
        }}
      >
        <label>
          Agent
          <input name="agent_id" value={agentId} onInput={(event) => setAgentId(event.currentTarget.value)} />
        </label>
        <label>
          Message
          <textarea
            name="preview-message"
            rows={2}
            value={message}
            onInput={(event) => setMessage(event.currentTarget.value)}
          />
        </label>
        <button type="submit" disabled={message.trim() === ''}>
          Preview (no write)
        </button>
      </form>
      <ErrorNotice error={answer?.error} />
      {answer?.data ? (
        <>
          <ol class="messages preview">
            {answer.data.messages.map((entry, index) => (
              <li key={`${entry.section}-${index}`} class={`message section-${entry.section}`}>
                <span class="role">{entry.section}</span> <span class="muted">{entry.role}</span>
                <div class="text">{entry.content}</div>
              </li>
            ))}
          </ol>
          <TraceView record={record(answer.data)} />
        </>
      ) : null}
    </section>
  );
}

/** The session user's memories ranked for a query, with every score part; pin, unpin, remove, restore. */
export function WorkingSetPage({ params }: { params: URLSearchParams }) {
  const session = sessionOf(params);
  const query = params.get('query') ?? '';
  const can = useCan();
  const [changeError, setChangeError] = useState<unknown>(null);
  const path = `/v1/working-memory/${encodeURIComponent(session.session_id)}/working-set`;
  const scope = { namespace: session.namespace, user_id: session.user_id };
  const set = useLoad(session.session_id && query ? JSON.stringify([session, query]) : null, () =>
    api<WorkingSet>('GET', path, { query: { ...scope, query, limit: 20 } }),
  );
  // Pin, remove and restore act on the shown list only once it is this session's (and query's):
  // while another session's list is still shown, its ids would be posted to this session.
  const actionable = set.current && !set.loading;
  const change = (body: Record<string, string[]>) => {
    if (!actionable) return;
    setChangeError(null);
    api('POST', path, { query: scope, body }).then(set.reload, setChangeError);
  };
  const writable = can('write');
  return (
    <div>
      <SessionPicker
        page="working-set"
        value={session}
        extra={{ query: query || 'what matters now', agent_id: params.get('agent_id') ?? '' }}
      />
      <form
        class="toolbar"
        aria-label="Working set query"
        onSubmit={(event) => {
          event.preventDefault();
          const value = new FormData(event.currentTarget).get('query');
          const next = new URLSearchParams(params);
          next.set('query', String(value ?? ''));
          location.hash = `#/working-set?${next}`;
        }}
      >
        <label>
          Query
          <input name="query" defaultValue={query} key={query} />
        </label>
        <button type="submit">Rank</button>
      </form>
      <ErrorNotice error={set.error ?? changeError} />
      {!writable && set.data ? <p class="notice">Read only: your role cannot pin or remove.</p> : null}
      {set.data ? (
        <div class="split">
          <section aria-label="Working set">
            <h2>Working set ({set.data.items.length})</h2>
            <ol class="cards">
              {set.data.items.map((item) => (
                <li key={item.id} class="card">
                  <div class="card-head">
                    <code>{item.id}</code>
                    {item.pinned ? <span class="badge pinned">pinned</span> : null}
                    <span class="muted">{item.memory.memory_type}</span>
                  </div>
                  <p>{item.memory.text}</p>
                  <ScoreBar label="score" value={item.score} />
                  <ScoreBar
                    label={`similarity ×${item.components.weights.similarity}`}
                    value={item.components.similarity}
                  />
                  <ScoreBar
                    label={`salience (decayed) ×${item.components.weights.salience}`}
                    value={item.components.decayed_salience}
                  />
                  <ScoreBar
                    label={`confidence ×${item.components.weights.confidence}`}
                    value={item.components.confidence}
                  />
                  {writable ? (
                    <div class="actions">
                      {item.pinned ? (
                        <button
                          type="button"
                          disabled={!actionable}
                          onClick={() => change({ unpin: [item.id] })}
                          aria-label={`Unpin ${item.id}`}
                        >
                          Unpin
                        </button>
                      ) : (
                        <button
                          type="button"
                          disabled={!actionable}
                          onClick={() => change({ pin: [item.id] })}
                          aria-label={`Pin ${item.id}`}
                        >
                          Pin
                        </button>
                      )}
                      <button
                        type="button"
                        class="danger"
                        disabled={!actionable}
                        onClick={() => change({ remove: [item.id] })}
                        aria-label={`Remove ${item.id}`}
                      >
                        Remove
                      </button>
                    </div>
                  ) : null}
                </li>
              ))}
            </ol>
            <h3>Excluded</h3>
            <ul class="excluded-list">
              {set.data.excluded.map((entry) => (
                <li key={entry.id}>
                  <code>{entry.id}</code> <span class={`reason reason-${entry.reason}`}>{entry.reason}</span>{' '}
                  {writable && entry.reason === 'removed_by_user' ? (
                    <button
                      type="button"
                      class="small"
                      disabled={!actionable}
                      onClick={() => change({ restore: [entry.id] })}
                      aria-label={`Restore ${entry.id}`}
                    >
                      Restore
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
          </section>
          <PreviewBox
            key={JSON.stringify([session, params.get('agent_id') ?? 'default'])}
            session={session}
            agent={params.get('agent_id') ?? 'default'}
          />
        </div>
      ) : null}
      {!query && session.session_id ? (
        <p class="muted">Type a query to rank the session user’s memories.</p>
      ) : null}
    </div>
  );
}
