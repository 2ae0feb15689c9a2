import { parseWith, ValidationError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { DocumentStore } from '../../stores/document-store.js';
import type { Job } from '../../stores/job-store.js';
import { isRetryable } from '../jobs/job-retry.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { TaskProgressLog } from '../jobs/task-progress.js';
import { newId } from '../new-id.js';
import {
  type DocumentInput,
  documentIdOf,
  documentInputSchema,
  type IngestProgress,
  type KnowledgeBase,
  type KnowledgeDocument,
} from './knowledge-base.js';

/** The job type of a document ingested in the background. */
export const INGEST_DOCUMENT_JOB = 'ingest_document';

/**
 * Documents longer than this (characters) are ingested as a background job by `upload` (REST: 202
 * with the task id; MCP: the task id); shorter ones are ingested before the answer (201). About 25,000 tokens:
 * a few hundred milliseconds of chunking and embedding, in slices.
 */
export const BACKGROUND_DOCUMENT_CHARS = 100_000;

/**
 * Where the document's text waits for its job: a job payload is at most 1 MiB (MAX_DATA_BYTES) and
 * a document up to 5 MB, so the payload names the upload instead of carrying it.
 */
export const KNOWLEDGE_UPLOADS = 'knowledge_uploads';
const UPLOADS = KNOWLEDGE_UPLOADS;

/** Progress reports are written at most this often (each is one store write). */
const REPORT_INTERVAL_MS = 200;

/** Knowledge documents, with large ones ingested by a durable job whose progress is visible. */
export interface KnowledgeService extends KnowledgeBase {
  /**
   * Validates the document now, then ingests it in a background job (`ingest_document`): the
   * returned task is visible at `engram.jobs.get` and `GET /v1/tasks/{id}`, its progress at
   * `engram.taskProgress.get` (and in the task's `progress`), its result `{document_id, chunks}`.
   */
  ingestInBackground(tenantId: string, input: DocumentInput): Promise<{ task: Job; documentId: string }>;
  /**
   * What an upload (REST, MCP) does: a document up to BACKGROUND_DOCUMENT_CHARS is ingested before
   * this resolves (`document`), a longer one by `ingestInBackground` (`task`).
   */
  upload(
    tenantId: string,
    input: DocumentInput,
  ): Promise<
    | { document: KnowledgeDocument; task?: undefined }
    | { document?: undefined; task: Job; documentId: string }
  >;
}

/** Adds background ingestion to `knowledge` and registers the job's handler on `jobs`. */
export function withBackgroundIngest(
  knowledge: KnowledgeBase,
  jobs: JobRunner,
  progress: TaskProgressLog,
  documents: DocumentStore,
): KnowledgeService {
  jobs.register(INGEST_DOCUMENT_JOB, async (payload, { job, signal }) => {
    const uploadId = String(payload.upload_id);
    const upload = await documents.getDocument(job.tenantId, UPLOADS, uploadId);
    if (!upload)
      throw new ValidationError(`The text of upload ${uploadId} is gone; upload the document again`);
    const input = parseWith(
      documentInputSchema,
      { ...(payload.document as JsonObject), content: upload.value.content },
      'document',
    );
    let lastReport = 0;
    const report = async (state: IngestProgress) => {
      if (state.phase !== 'done' && performance.now() - lastReport < REPORT_INTERVAL_MS) return;
      lastReport = performance.now();
      await progress.report(job.tenantId, job.id, { ...state, unit: 'chunks' });
    };
    let document: Awaited<ReturnType<typeof knowledge.ingest>>;
    try {
      document = await knowledge.ingest(job.tenantId, input, { signal, onProgress: report });
    } catch (error) {
      // A failure for good (invalid, or the last attempt) will not read the text again: drop it.
      const final = !isRetryable(error) || job.attempts >= job.maxAttempts;
      if (final && !signal.aborted) await documents.deleteDocument(job.tenantId, UPLOADS, uploadId);
      throw error;
    }
    await documents.deleteDocument(job.tenantId, UPLOADS, uploadId);
    return { document_id: document.documentId, chunks: document.chunks };
  });
  const service: KnowledgeService = {
    ...knowledge,
    async upload(tenantId, input) {
      if (input.content.length > BACKGROUND_DOCUMENT_CHARS)
        return service.ingestInBackground(tenantId, input);
      return { document: await knowledge.ingest(tenantId, input) };
    },
    async ingestInBackground(tenantId, input) {
      const document = parseWith(documentInputSchema, input, 'document');
      const documentId = document.documentId ?? documentIdOf(document.agentId, document.name);
      const { content, ...described } = document;
      const uploadId = newId(Date.now());
      await documents.putDocument(tenantId, UPLOADS, uploadId, { content });
      const payload = {
        document: { ...described, documentId },
        upload_id: uploadId,
      } as unknown as JsonObject;
      const task = await jobs.enqueue(tenantId, INGEST_DOCUMENT_JOB, payload);
      const queued = { phase: 'queued', chunks: 0, stored: 0, total: null, unit: 'chunks' };
      // Only if the job has not reported yet (it may already be running): never overwrite its progress.
      await progress.report(tenantId, task.id, queued, { onlyIfNone: true });
      return { task, documentId };
    },
  };
  return service;
}
