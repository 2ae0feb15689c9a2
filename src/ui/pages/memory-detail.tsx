import { useState } from 'preact/hooks';
import { ApiError, api } from '../api-client.js';
import type { AmsMemory, MemoryVersion } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { hrefOf } from '../route.js';
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

interface MemoryOwner {
  kind: 'knowledge' | 'procedure';
  agentId: string;
  documentId: string | null;
}

/**
 * Who owns the memory, from its newest version: a knowledge chunk (a `document_id`) or a procedure
 * (`procedural`) changes only through its agent's routes; the generic edit and delete answer 409.
 * `undefined` while unknown; `null` for a free-standing memory (or a server without history).
 */
function useOwner(id: string): MemoryOwner | null | undefined {
  const newest = useLoad(id, () =>
    api<HistoryPage>('GET', `/v1/long-term-memory/${encodeURIComponent(id)}/history`, {
      query: { limit: 1 },
    }),
  );
  if (!newest.current) return newest.error && !newest.loading ? null : undefined;
  const version = newest.data?.versions[0];
  if (!version) return null;
  if (version.document_id) {
    return { kind: 'knowledge', agentId: version.agent_id ?? '', documentId: version.document_id };
  }
  if (version.memory_type === 'procedural') {
    return { kind: 'procedure', agentId: version.agent_id ?? '', documentId: null };
  }
  return null;
}

/**
 * One memory: its fields, an editor (an edit is a new version), delete, and its version history.
 * Mounted per memory (`key={id}`): a draft or an error never carries over to another memory, and
 * Edit, Save and Delete wait until the shown memory is the one asked for.
 */
export function MemoryDetail({ id, onChanged }: { id: string; onChanged: (id: string | null) => void }) {
  const can = useCan();
  const [refresh, setRefresh] = useState(0);
  const memory = useLoad(`${id}:${refresh}`, () =>
    api<AmsMemory>('GET', `/v1/long-term-memory/${encodeURIComponent(id)}`),
  );
  const owner = useOwner(id);
  const [draft, setDraft] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const data = memory.data;
  // The answer for this id (and this version): not the previous memory's while this one loads.
  const ready = memory.current && owner !== undefined;
  const editable = ready && owner === null;
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
                if (!editable) return;
                setError(null);
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
              <button type="submit" disabled={!editable}>
                Save as a new version
              </button>{' '}
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
          {owner ? (
            <p class="notice owned">
              {owner.kind === 'knowledge'
                ? `A chunk of knowledge document ${owner.documentId} of agent ${owner.agentId}: it changes with its document (upload it again, or delete it) under `
                : `A procedure of agent ${owner.agentId}: it is edited, approved or rejected under `}
              <a href={hrefOf('procedures', { agent_id: owner.agentId })}>Procedures &amp; knowledge</a>, not
              here.
            </p>
          ) : null}
          {can('write') && !owner ? (
            <p class="actions">
              {draft === null ? (
                <button type="button" disabled={!editable} onClick={() => setDraft(data.text)}>
                  Edit
                </button>
              ) : null}
              <button
                type="button"
                class="danger"
                disabled={!editable}
                onClick={() => {
                  if (!editable || !confirm('Delete this memory with all its versions?')) return;
                  setError(null);
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
