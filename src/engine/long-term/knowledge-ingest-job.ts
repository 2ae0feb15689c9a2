import { parseWith } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { Job } from '../../stores/job-store.js';
import type { JobRunner } from '../jobs/job-runner.js';
import type { TaskProgressLog } from '../jobs/task-progress.js';
import {
  type DocumentInput,
  documentIdOf,
  documentInputSchema,
  type IngestProgress,
  type KnowledgeBase,
} from './knowledge-base.js';

/** The job type of a document ingested in the background. */
export const INGEST_DOCUMENT_JOB = 'ingest_document';

/**
 * Documents longer than this (characters) are ingested as a background job by the REST upload
 * (202 with the task id); shorter ones are ingested before the answer (201). About 25,000 tokens:
 * a few hundred milliseconds of chunking and embedding, in slices.
 */
export const BACKGROUND_DOCUMENT_CHARS = 100_000;

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
}

/** Adds background ingestion to `knowledge` and registers the job's handler on `jobs`. */
export function withBackgroundIngest(
  knowledge: KnowledgeBase,
  jobs: JobRunner,
  progress: TaskProgressLog,
): KnowledgeService {
  jobs.register(INGEST_DOCUMENT_JOB, async (payload, { job, signal }) => {
    const input = parseWith(documentInputSchema, payload.document, 'document');
    let lastReport = 0;
    const report = async (state: IngestProgress) => {
      if (state.phase !== 'done' && performance.now() - lastReport < REPORT_INTERVAL_MS) return;
      lastReport = performance.now();
      await progress.report(job.tenantId, job.id, { ...state, unit: 'chunks' });
    };
    const document = await knowledge.ingest(job.tenantId, input, { signal, onProgress: report });
    return { document_id: document.documentId, chunks: document.chunks };
  });
  return {
    ...knowledge,
    async ingestInBackground(tenantId, input) {
      const document = parseWith(documentInputSchema, input, 'document');
      const documentId = document.documentId ?? documentIdOf(document.agentId, document.name);
      const payload = { document: { ...document, documentId } } as unknown as JsonObject;
      const task = await jobs.enqueue(tenantId, INGEST_DOCUMENT_JOB, payload);
      await progress.report(tenantId, task.id, {
        phase: 'queued',
        chunks: 0,
        stored: 0,
        total: null,
        unit: 'chunks',
      });
      return { task, documentId };
    },
  };
}
