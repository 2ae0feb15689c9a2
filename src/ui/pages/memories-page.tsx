import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { AmsMemory } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { Pager } from '../components/pager.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';
import { ForgetPanel } from './forget-panel.js';
import { MemoryDetail } from './memory-detail.js';

const LIMIT = 25;

interface Filters {
  text: string;
  mode: 'hybrid' | 'keyword' | 'semantic';
  memory_type: string;
  topics: string;
  entities: string;
  user_id: string;
  namespace: string;
  from: string;
  to: string;
  sort: 'score' | 'newest' | 'oldest';
}

const emptyFilters: Filters = {
  text: '',
  mode: 'hybrid',
  memory_type: '',
  topics: '',
  entities: '',
  user_id: '',
  namespace: '',
  from: '',
  to: '',
  sort: 'score',
};

const list = (text: string) =>
  text
    .split(',')
    .map((entry) => entry.trim())
    .filter(Boolean);

/** The AMS search body of the filters (§4.8): tags as `any`, dates as a `created_at` range. */
export function searchBodyOf(filters: Filters, offset: number): Record<string, unknown> {
  const created = {
    ...(filters.from ? { gte: `${filters.from}T00:00:00Z` } : {}),
    ...(filters.to ? { lte: `${filters.to}T23:59:59Z` } : {}),
  };
  return {
    text: filters.text.trim() || null,
    search_mode: filters.mode,
    limit: LIMIT,
    offset,
    ...(filters.memory_type ? { memory_type: { eq: filters.memory_type } } : {}),
    ...(list(filters.topics).length ? { topics: { any: list(filters.topics) } } : {}),
    ...(list(filters.entities).length ? { entities: { any: list(filters.entities) } } : {}),
    ...(filters.user_id ? { user_id: { eq: filters.user_id } } : {}),
    ...(filters.namespace ? { namespace: { eq: filters.namespace } } : {}),
    ...(Object.keys(created).length ? { created_at: created } : {}),
    // engram's `sort` extension orders the whole result on the server, before paging.
    ...(filters.sort === 'score' ? {} : { sort: filters.sort === 'newest' ? 'created_desc' : 'created_asc' }),
  };
}

/** Hybrid search with filters and sort; open one, select many to delete, forget by policy. */
export function MemoriesPage() {
  const can = useCan();
  const [filters, setFilters] = useState(emptyFilters);
  const [applied, setApplied] = useState(emptyFilters);
  const [offset, setOffset] = useState(0);
  const [selected, setSelected] = useState<Set<string>>(new Set());
  const [openId, setOpenId] = useState<string | null>(null);
  const [error, setError] = useState<unknown>(null);
  const results = useLoad(JSON.stringify([applied, offset]), () =>
    api<{ memories: AmsMemory[]; total: number }>('POST', '/v1/long-term-memory/search', {
      body: searchBodyOf(applied, offset),
    }),
  );
  const memories = results.data?.memories ?? [];
  const input = (name: keyof Filters, label: string, type = 'text') => (
    <label>
      {label}
      <input
        name={name}
        type={type}
        value={filters[name]}
        onInput={(event) => setFilters({ ...filters, [name]: event.currentTarget.value })}
      />
    </label>
  );
  const select = (name: keyof Filters, label: string, options: [string, string][]) => (
    <label>
      {label}
      <select
        name={name}
        value={filters[name]}
        onChange={(event) => setFilters({ ...filters, [name]: event.currentTarget.value })}
      >
        {options.map(([value, text]) => (
          <option key={value} value={value}>
            {text}
          </option>
        ))}
      </select>
    </label>
  );
  return (
    <div>
      <form
        class="toolbar filters"
        aria-label="Search long-term memory"
        onSubmit={(event) => {
          event.preventDefault();
          setError(null);
          setOffset(0);
          setSelected(new Set());
          setApplied(filters);
        }}
      >
        {input('text', 'Search')}
        {select('mode', 'Mode', [
          ['hybrid', 'hybrid'],
          ['keyword', 'keyword'],
          ['semantic', 'semantic'],
        ])}
        {select('memory_type', 'Type', [
          ['', 'any'],
          ['semantic', 'semantic'],
          ['episodic', 'episodic'],
          ['message', 'message'],
        ])}
        {input('topics', 'Topics (comma-separated)')}
        {input('entities', 'Entities')}
        {input('user_id', 'User id')}
        {input('namespace', 'Namespace')}
        {input('from', 'Created from', 'date')}
        {input('to', 'Created to', 'date')}
        {select('sort', 'Sort', [
          ['score', 'by score'],
          ['newest', 'newest first'],
          ['oldest', 'oldest first'],
        ])}
        <button type="submit">Search</button>
      </form>
      <ErrorNotice error={results.error ?? error} />
      <div class="split">
        <section aria-label="Results">
          {can('write') ? (
            <p class="actions">
              <button
                type="button"
                class="danger"
                disabled={selected.size === 0}
                onClick={() => {
                  if (!confirm(`Delete ${selected.size} memories with all their versions?`)) return;
                  setError(null);
                  api('DELETE', '/v1/long-term-memory', { query: { memory_ids: [...selected] } }).then(() => {
                    setError(null);
                    setSelected(new Set());
                    results.reload();
                  }, setError);
                }}
              >
                Delete selected ({selected.size})
              </button>
            </p>
          ) : null}
          <div class="table-wrap">
            <table>
              <thead>
                <tr>
                  <th>
                    <span class="visually-hidden">select</span>
                  </th>
                  <th>text</th>
                  <th>type</th>
                  <th>user</th>
                  <th>created</th>
                  <th class="number">score</th>
                </tr>
              </thead>
              <tbody>
                {memories.map((memory) => (
                  <tr key={memory.id} class={memory.id === openId ? 'selected' : ''}>
                    <td>
                      <input
                        type="checkbox"
                        aria-label={`Select ${memory.text.slice(0, 40)}`}
                        checked={selected.has(memory.id)}
                        onChange={(event) => {
                          const next = new Set(selected);
                          if (event.currentTarget.checked) next.add(memory.id);
                          else next.delete(memory.id);
                          setSelected(next);
                        }}
                      />
                    </td>
                    <td>
                      <button type="button" class="link" onClick={() => setOpenId(memory.id)}>
                        {memory.text.length > 140 ? `${memory.text.slice(0, 140)}…` : memory.text}
                      </button>
                      {memory.topics?.length ? <div class="muted">{memory.topics.join(', ')}</div> : null}
                    </td>
                    <td>{memory.memory_type}</td>
                    <td>{memory.user_id ?? '—'}</td>
                    <td>{new Date(memory.created_at).toLocaleDateString()}</td>
                    <td class="number">{typeof memory.score === 'number' ? memory.score.toFixed(3) : ''}</td>
                  </tr>
                ))}
              </tbody>
            </table>
          </div>
          {results.data ? (
            <Pager
              label="Pages of search results"
              offset={offset}
              limit={LIMIT}
              total={results.data.total}
              onChange={setOffset}
            />
          ) : null}
          {can('write') ? <ForgetPanel onDone={results.reload} /> : null}
        </section>
        {openId ? (
          // One mount per memory: a draft, an error or a loaded record never carries over to another.
          <MemoryDetail
            key={openId}
            id={openId}
            onChanged={(id) => {
              setOpenId(id);
              results.reload();
            }}
          />
        ) : (
          <p class="muted panel">Open a memory to see it, edit it or read its history.</p>
        )}
      </div>
    </div>
  );
}
