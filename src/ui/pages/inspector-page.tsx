import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { TraceRecord } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { SessionPicker } from '../components/session-picker.js';
import { TokensChart } from '../components/tokens-chart.js';
import { TraceView } from '../components/trace-view.js';
import { sessionOf } from '../route.js';
import { compareTraces } from '../trace-math.js';
import { useInterval, useLoad } from '../use-load.js';

/** How often the turn list is refreshed while "Live" is on. */
const POLL_MS = 2_000;

function Comparison({ earlier, later }: { earlier: TraceRecord; later: TraceRecord }) {
  const { entered, left, kept } = compareTraces(earlier, later);
  const list = (items: typeof entered) =>
    items.length === 0 ? (
      <p class="muted">Nothing.</p>
    ) : (
      <ul>
        {items.map((item) => (
          <li key={`${item.section}:${item.id}`}>
            <code>{item.id}</code>{' '}
            <span class="muted">
              ({item.section}, {item.tokens} tokens)
            </span>
          </li>
        ))}
      </ul>
    );
  return (
    <section class="panel compare" aria-label="Comparison of two turns">
      <h3>
        From {new Date(earlier.created_at).toLocaleTimeString()} to{' '}
        {new Date(later.created_at).toLocaleTimeString()}: {kept} kept
      </h3>
      <div class="columns">
        <div>
          <h4>Entered</h4>
          {list(entered)}
        </div>
        <div>
          <h4>Left</h4>
          {list(left)}
        </div>
      </div>
    </section>
  );
}

/** A session's turns (traces), newest first and live; one turn in detail; two compared. */
export function InspectorPage({ params }: { params: URLSearchParams }) {
  const session = sessionOf(params);
  const [live, setLive] = useState(true);
  const [selectedId, setSelectedId] = useState<string | null>(null);
  const [compared, setCompared] = useState<string[]>([]);
  const traces = useLoad(session.session_id ? JSON.stringify(session) : null, () =>
    api<{ traces: TraceRecord[]; total: number }>(
      'GET',
      `/v1/inspector/sessions/${encodeURIComponent(session.session_id)}/traces`,
      { query: { namespace: session.namespace, user_id: session.user_id, limit: 50 } },
    ),
  );
  useInterval(traces.reload, POLL_MS, live && session.session_id !== '' && !traces.error);
  const records = traces.data?.traces ?? [];
  // Turns are numbered from the oldest kept one; the list is newest first.
  const total = traces.data?.total ?? records.length;
  const selected = records.find((record) => record.id === selectedId) ?? records[0];
  const pair = compared
    .map((id) => records.find((record) => record.id === id))
    .filter((record): record is TraceRecord => record !== undefined)
    .sort((a, b) => a.id.localeCompare(b.id));
  return (
    <div>
      <SessionPicker page="inspector" value={session} />
      <ErrorNotice error={traces.error} />
      {session.session_id === '' ? <p class="muted">Open a session to see its turns.</p> : null}
      {traces.data ? (
        <>
          <div class="toolbar">
            <label class="inline">
              <input
                type="checkbox"
                checked={live}
                onChange={(event) => setLive(event.currentTarget.checked)}
              />{' '}
              Live (new turns appear as they happen)
            </label>
            <span class="muted" aria-live="polite">
              {traces.data.total} turns kept
            </span>
          </div>
          <TokensChart records={records} />
          <div class="split">
            <section aria-label="Turns">
              <h2>Turns</h2>
              <ol class="turns">
                {records.map((record, index) => (
                  <li key={record.id} class={record.id === selected?.id ? 'selected' : ''}>
                    <button
                      type="button"
                      class="link"
                      onClick={() => setSelectedId(record.id)}
                      aria-pressed={record.id === selected?.id}
                    >
                      {new Date(record.created_at).toLocaleTimeString()} · {record.trace.budget.used} tokens
                      {record.trace.degraded ? ' · degraded' : ''}
                    </button>
                    <label class="inline">
                      <input
                        type="checkbox"
                        // Named by its turn: a list of checkboxes all called "compare" says nothing.
                        aria-label={`Compare turn ${total - index}, ${new Date(record.created_at).toLocaleTimeString()}`}
                        checked={compared.includes(record.id)}
                        onChange={(event) =>
                          setCompared(
                            event.currentTarget.checked
                              ? [...compared.filter((id) => id !== record.id), record.id].slice(-2)
                              : compared.filter((id) => id !== record.id),
                          )
                        }
                      />{' '}
                      compare
                    </label>
                  </li>
                ))}
              </ol>
            </section>
            <div>
              {pair.length === 2 && pair[0] && pair[1] ? (
                <Comparison earlier={pair[0]} later={pair[1]} />
              ) : null}
              {selected ? <TraceView record={selected} /> : <p class="muted">No turns recorded yet.</p>}
            </div>
          </div>
        </>
      ) : null}
    </div>
  );
}
