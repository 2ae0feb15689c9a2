import { useState } from 'preact/hooks';
import { ApiError, api } from '../api-client.js';
import type { AmsMemory, MemoryVersion } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';

function History({ id, refresh }: { id: string; refresh: number }) {
  const history = useLoad(`${id}:${refresh}`, () =>
    api<{ id: string; versions: MemoryVersion[] }>(
      'GET',
      `/v1/long-term-memory/${encodeURIComponent(id)}/history`,
    ),
  );
  if (history.error instanceof ApiError && history.error.status === 404) {
    return <p class="muted">No version history is available for this memory on this server.</p>;
  }
  if (history.error) return <ErrorNotice error={history.error} />;
  return (
    <ol class="versions" aria-label="Versions, newest first">
      {history.data?.versions.map((version) => (
        <li key={version.version}>
          <strong>v{version.version}</strong>{' '}
          <span class="muted">
            {new Date(version.valid_from).toLocaleString()} –{' '}
            {version.valid_to ? new Date(version.valid_to).toLocaleString() : 'current'}
            {version.written_by ? ` · by ${version.written_by}` : ''}
          </span>
          <div class="text">{version.text}</div>
        </li>
      ))}
    </ol>
  );
}

/** One memory: its fields, an editor (an edit is a new version), delete, and its version history. */
export function MemoryDetail({ id, onChanged }: { id: string; onChanged: (id: string | null) => void }) {
  const can = useCan();
  const [refresh, setRefresh] = useState(0);
  const memory = useLoad(`${id}:${refresh}`, () =>
    api<AmsMemory>('GET', `/v1/long-term-memory/${encodeURIComponent(id)}`),
  );
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const data = memory.data;
  return (
    <section class="panel" aria-label="Memory">
      <h2>Memory</h2>
      <ErrorNotice error={memory.error ?? error} />
      {data ? (
        <>
          {draft === null ? (
            <p class="memory-text">{data.text}</p>
          ) : (
            <form
              onSubmit={(event) => {
                event.preventDefault();
                api<AmsMemory>('PATCH', `/v1/long-term-memory/${encodeURIComponent(data.id)}`, {
                  body: { text: draft },
                }).then((updated) => {
                  setDraft(null);
                  setRefresh(refresh + 1);
                  onChanged(updated.id);
                }, setError);
              }}
            >
              <label>
                Text
                <textarea
                  name="memory-text"
                  rows={4}
                  value={draft}
                  onInput={(event) => setDraft(event.currentTarget.value)}
                />
              </label>
              <button type="submit">Save as a new version</button>{' '}
              <button type="button" onClick={() => setDraft(null)}>
                Cancel
              </button>
            </form>
          )}
          <dl class="facts">
            <dt>Id</dt>
            <dd>
              <code>{data.id}</code>
            </dd>
            <dt>Type</dt>
            <dd>{data.memory_type}</dd>
            <dt>User / namespace</dt>
            <dd>
              {data.user_id ?? '—'} / {data.namespace ?? '—'}
            </dd>
            <dt>Topics</dt>
            <dd>{(data.topics ?? []).join(', ') || '—'}</dd>
            <dt>Entities</dt>
            <dd>{(data.entities ?? []).join(', ') || '—'}</dd>
            <dt>Created</dt>
            <dd>{new Date(data.created_at).toLocaleString()}</dd>
            <dt>Last accessed</dt>
            <dd>{new Date(data.last_accessed).toLocaleString()}</dd>
          </dl>
          {can('write') ? (
            <p class="actions">
              {draft === null ? (
                <button type="button" onClick={() => setDraft(data.text)}>
                  Edit
                </button>
              ) : null}
              <button
                type="button"
                class="danger"
                onClick={() => {
                  if (!confirm('Delete this memory with all its versions?')) return;
                  api('DELETE', '/v1/long-term-memory', { query: { memory_ids: [data.id] } }).then(
                    () => onChanged(null),
                    setError,
                  );
                }}
              >
                Delete (all versions)
              </button>
            </p>
          ) : null}
          <h3>History</h3>
          <History id={data.id} refresh={refresh} />
        </>
      ) : null}
    </section>
  );
}
