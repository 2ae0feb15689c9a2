import { useState } from 'preact/hooks';
import { api, upload } from '../api-client.js';
import type { KnowledgeChunk, KnowledgeDocument } from '../api-types.js';
import { ErrorNotice } from '../components/error-notice.js';
import { useLoad } from '../use-load.js';
import { useCan } from '../whoami-context.js';

function Chunks({ agentId, documentId }: { agentId: string; documentId: string }) {
  const chunks = useLoad(`${agentId}/${documentId}`, () =>
    api<{ chunks: KnowledgeChunk[]; total: number }>(
      'GET',
      `/v1/agents/${encodeURIComponent(agentId)}/knowledge/${encodeURIComponent(documentId)}/chunks`,
      { query: { limit: 200 } },
    ),
  );
  return (
    <>
      <ErrorNotice error={chunks.error} />
      <ol class="chunks">
        {chunks.data?.chunks.map((chunk) => (
          <li key={chunk.id}>
            {chunk.headings.length ? <div class="muted">{chunk.headings.join(' › ')}</div> : null}
            <pre class="content">{chunk.text}</pre>
          </li>
        ))}
      </ol>
      {chunks.data && chunks.data.total > chunks.data.chunks.length ? (
        <p class="muted">
          First {chunks.data.chunks.length} of {chunks.data.total} chunks.
        </p>
      ) : null}
    </>
  );
}

function UploadForm({ agentId, onDone }: { agentId: string; onDone: () => void }) {
  const [progress, setProgress] = useState<number | null>(null);
  const [error, setError] = useState<unknown>(null);
  return (
    <form
      class="toolbar"
      aria-label="Upload a document"
      onSubmit={(event) => {
        event.preventDefault();
        const file = new FormData(event.currentTarget).get('document');
        if (!(file instanceof File) || file.size === 0) return;
        setError(null);
        setProgress(0);
        const type = file.name.endsWith('.txt') ? 'text/plain' : 'text/markdown';
        const path = `/v1/agents/${encodeURIComponent(agentId)}/knowledge?name=${encodeURIComponent(file.name)}`;
        upload(path, file, type, setProgress).then(onDone, (reason: unknown) => {
          setProgress(null);
          setError(reason);
        });
      }}
    >
      <label>
        Document (Markdown or text)
        <input type="file" name="document" accept=".md,.markdown,.txt,text/markdown,text/plain" />
      </label>
      <button type="submit">Upload</button>
      {progress === null ? null : (
        <label class="inline">
          Upload progress <progress max={1} value={progress} /> {Math.round(progress * 100)}%
        </label>
      )}
      <ErrorNotice error={error} />
    </form>
  );
}

/**
 * One document, collapsed; its chunks are read (and drawn) only while it is open: an agent with
 * many documents costs one request for the list, not one per document.
 */
function DocumentEntry({
  agentId,
  document,
  onDelete,
}: {
  agentId: string;
  document: KnowledgeDocument;
  onDelete: () => void;
}) {
  const can = useCan();
  const [open, setOpen] = useState(false);
  return (
    <details onToggle={(event) => setOpen(event.currentTarget.open)}>
      <summary>
        {document.name} <span class="muted">({document.chunks} chunks)</span>
      </summary>
      {can('admin') ? (
        <button type="button" class="danger small" onClick={onDelete}>
          Delete document
        </button>
      ) : null}
      {open ? <Chunks agentId={agentId} documentId={document.document_id} /> : null}
    </details>
  );
}

/** An agent's knowledge documents, their chunks, upload (with progress) and delete. */
export function KnowledgePanel({ agentId }: { agentId: string }) {
  const can = useCan();
  const [error, setError] = useState<unknown>(null);
  const documents = useLoad(agentId, () =>
    api<{ documents: KnowledgeDocument[] }>('GET', `/v1/agents/${encodeURIComponent(agentId)}/knowledge`),
  );
  return (
    <section class="panel" aria-label="Knowledge">
      <h2>Knowledge of {agentId}</h2>
      {can('admin') ? <UploadForm agentId={agentId} onDone={documents.reload} /> : null}
      <ErrorNotice error={documents.error ?? error} />
      {documents.data?.documents.length === 0 ? <p class="muted">No documents.</p> : null}
      {documents.data?.documents.map((document) => (
        <DocumentEntry
          key={document.document_id}
          agentId={agentId}
          document={document}
          onDelete={() =>
            confirm(`Delete ${document.name}?`) &&
            api(
              'DELETE',
              `/v1/agents/${encodeURIComponent(agentId)}/knowledge/${encodeURIComponent(document.document_id)}`,
            ).then(documents.reload, setError)
          }
        />
      ))}
    </section>
  );
}
