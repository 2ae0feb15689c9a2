import { useState } from 'preact/hooks';
import { ApiError, api } from '../api-client.js';
import type { AmsMemory, MemoryVersion } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';

interface HistoryPage {
  id: string;
  versions: MemoryVersion[];
  /** Absent on servers from before history pages. */
  next_before_version?: number | null;
}

/** One page of versions; the last page loaded offers the next (a page holds about 1 MB of text). */
function HistoryVersions({
  id,
  refresh,
  before,
  onOlder,
}: {
  id: string;
  refresh: number;
  before: number | undefined;
  onOlder: ((before: number) => void) | null;
}) {
  const page = useLoad(`${id}:${refresh}:${before ?? ''}`, () =>
    api<HistoryPage>('GET', `/v1/long-term-memory/${encodeURIComponent(id)}/history`, {
      query: before === undefined ? {} : { before_version: String(before) },
    }),
  );
  if (page.error instanceof ApiError && page.error.status === 404 && before === undefined) {
    return <p class="muted">No version history is available for this memory on this server.</p>;
  }
  if (page.error) return <ErrorNotice error={page.error} />;
  const next = page.data?.next_before_version ?? null;
  return (
    <>
      <ol
        class="versions"
        aria-label={before === undefined ? 'Versions, newest first' : `Versions before v${before}`}
      >
        {page.data?.versions.map((version) => (
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
      {onOlder && next !== null ? (
        <button type="button" onClick={() => onOlder(next)}>
          Older versions
        </button>
      ) : null}
    </>
  );
}

/** The memory's versions, newest first, a page at a time. */
function History({ id, refresh }: { id: string; refresh: number }) {
  const [pages, setPages] = useState<{ key: string; before: number[] }>({ key: '', before: [] });
  // Another memory or a new version starts again from the newest page.
  const key = `${id}:${refresh}`;
  const before = pages.key === key ? pages.before : [];
  const cursors: (number | undefined)[] = [undefined, ...before];
  return (
    <>
      {cursors.map((cursor, index) => (
        <HistoryVersions
          key={cursor ?? 'newest'}
          id={id}
          refresh={refresh}
          before={cursor}
          onOlder={
            index === cursors.length - 1 ? (next) => setPages({ key, before: [...before, next] }) : null
          }
        />
      ))}
    </>
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
