import { useState } from 'preact/hooks';
import { api } from '../api-client.js';
import type { Procedure } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';
import { KnowledgePanel } from './knowledge-panel.js';

const lines = (text: string) =>
  text
    .split('\n')
    .map((line) => line.trim())
    .filter(Boolean);

function ProcedureEditor({ procedure, onSaved }: { procedure: Procedure; onSaved: () => void }) {
  const [draft, setDraft] = useState({
    name: procedure.name,
    steps: procedure.steps.join('\n'),
    triggers: procedure.triggers.join('\n'),
  });
  const [error, setError] = useState<unknown>(null);
  const path = `/v1/agents/${encodeURIComponent(procedure.agent_id)}/procedures/${encodeURIComponent(procedure.id)}`;
  return (
    <form
      class="editor"
      aria-label={`Edit ${procedure.name}`}
      onSubmit={(event) => {
        event.preventDefault();
        api('PATCH', path, {
          body: { name: draft.name, steps: lines(draft.steps), triggers: lines(draft.triggers) },
        }).then(onSaved, setError);
      }}
    >
      <label>
        Name
        <input
          value={draft.name}
          onInput={(event) => setDraft({ ...draft, name: event.currentTarget.value })}
        />
      </label>
      <label>
        Steps (one a line)
        <textarea
          rows={4}
          value={draft.steps}
          onInput={(event) => setDraft({ ...draft, steps: event.currentTarget.value })}
        />
      </label>
      <label>
        Triggers (regular expressions, one a line)
        <textarea
          rows={2}
          value={draft.triggers}
          onInput={(event) => setDraft({ ...draft, triggers: event.currentTarget.value })}
        />
      </label>
      <button type="submit">Save as a new version</button>
      <ErrorNotice error={error} />
    </form>
  );
}

function ProcedureCard({ procedure, onChanged }: { procedure: Procedure; onChanged: () => void }) {
  const can = useCan();
  const [editing, setEditing] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const path = `/v1/agents/${encodeURIComponent(procedure.agent_id)}/procedures/${encodeURIComponent(procedure.id)}`;
  const decide = (action: 'approve' | 'reject') =>
    api('POST', `${path}/${action}`, { body: {} }).then(onChanged, setError);
  return (
    <li class="card">
      <div class="card-head">
        <strong>{procedure.name}</strong>{' '}
        <span class={`badge status-${procedure.status}`}>{procedure.status}</span>{' '}
        <span class="muted">v{procedure.version}</span>
      </div>
      <ol>
        {procedure.steps.map((step, index) => (
          <li key={`${index}-${step}`}>{step}</li>
        ))}
      </ol>
      {procedure.triggers.length ? <p class="muted">Triggers: {procedure.triggers.join(' · ')}</p> : null}
      <div class="actions">
        {can('admin') && procedure.status === 'pending' ? (
          <>
            <button type="button" onClick={() => decide('approve')} aria-label={`Approve ${procedure.name}`}>
              Approve
            </button>
            <button
              type="button"
              class="danger"
              onClick={() => decide('reject')}
              aria-label={`Reject ${procedure.name}`}
            >
              Reject
            </button>
          </>
        ) : null}
        {can('write') ? (
          <button type="button" onClick={() => setEditing(!editing)} aria-expanded={editing}>
            {editing ? 'Close editor' : 'Edit'}
          </button>
        ) : null}
      </div>
      <ErrorNotice error={error} />
      {editing ? (
        <ProcedureEditor
          procedure={procedure}
          onSaved={() => {
            setEditing(false);
            onChanged();
          }}
        />
      ) : null}
    </li>
  );
}

/** An agent's procedures (the proposed ones first: approve, edit, reject) and its knowledge. */
export function ProceduresPage({ params }: { params: URLSearchParams }) {
  const [agentId, setAgentId] = useState(params.get('agent_id') ?? 'default');
  const [status, setStatus] = useState('pending');
  const agents = useLoad('agents', () =>
    api<{ agents: { id: string }[] }>('GET', '/v1/agents', { query: { limit: 1000 } }),
  );
  const procedures = useLoad(JSON.stringify([agentId, status]), () =>
    api<{ procedures: Procedure[] }>('GET', `/v1/agents/${encodeURIComponent(agentId)}/procedures`, {
      query: { status: status || undefined },
    }),
  );
  const agentIds = [...new Set(['default', ...(agents.data?.agents.map((agent) => agent.id) ?? [])])];
  return (
    <div>
      <div class="toolbar">
        <label>
          Agent
          <select value={agentId} onChange={(event) => setAgentId(event.currentTarget.value)}>
            {agentIds.map((id) => (
              <option key={id} value={id}>
                {id}
              </option>
            ))}
          </select>
        </label>
        <label>
          Status
          <select value={status} onChange={(event) => setStatus(event.currentTarget.value)}>
            <option value="pending">proposed (pending)</option>
            <option value="approved">approved</option>
            <option value="rejected">rejected</option>
            <option value="">all</option>
          </select>
        </label>
      </div>
      <div class="split">
        <section aria-label="Procedures">
          <h2>Procedures</h2>
          <ErrorNotice error={procedures.error} />
          {procedures.data?.procedures.length === 0 ? (
            <p class="muted">No {status || ''} procedures.</p>
          ) : null}
          <ul class="cards">
            {procedures.data?.procedures.map((procedure) => (
              <ProcedureCard key={procedure.id} procedure={procedure} onChanged={procedures.reload} />
            ))}
          </ul>
        </section>
        <KnowledgePanel agentId={agentId} />
      </div>
    </div>
  );
}
