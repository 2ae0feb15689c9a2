import type { EngramStore } from '../../stores/engram-store.js';
import type { JobStore } from '../../stores/job-store.js';
import { INGEST_DOCUMENT_JOB, KNOWLEDGE_UPLOADS } from './knowledge-ingest-job.js';

/**
 * An upload is written right before its job is enqueued: one older than this that no unfinished
 * job names is an orphan (its job ended without deleting it: the worker died on the last attempt,
 * or the process died between the upload and the enqueue).
 */
export const UPLOAD_GRACE_MS = 3_600_000;

/** Uploads looked at per sweep: each document is read whole (up to 5 MB). */
const BATCH = 20;

/** Jobs listed per page when collecting the uploads still needed. */
const PAGE = 500;

/**
 * Deletes the texts of knowledge uploads (`knowledge_uploads`) last written before `writtenBefore`
 * that no pending or running `ingest_document` job names; resolves how many went.
 */
export async function sweepOrphanUploads(
  store: Pick<EngramStore, 'documents' | 'jobs'>,
  writtenBefore: string,
): Promise<number> {
  const stale = await store.documents.listStaleDocuments(KNOWLEDGE_UPLOADS, writtenBefore, BATCH);
  const needed = new Map<string, Set<string>>();
  let deleted = 0;
  for (const { tenantId, document } of stale) {
    let named = needed.get(tenantId);
    if (!named) {
      named = await uploadsOfUnfinishedJobs(store.jobs, tenantId);
      needed.set(tenantId, named);
    }
    if (named.has(document.id)) continue;
    if (await store.documents.deleteDocument(tenantId, KNOWLEDGE_UPLOADS, document.id)) deleted += 1;
  }
  return deleted;
}

/**
 * The uploads the tenant's unfinished ingest jobs name. Listed by type alone, not by status: a job
 * changing status while the pages are read then moves no other job past a page boundary.
 */
async function uploadsOfUnfinishedJobs(jobs: JobStore, tenantId: string): Promise<Set<string>> {
  const named = new Set<string>();
  for (let offset = 0; ; offset += PAGE) {
    const page = await jobs.listJobs(tenantId, { type: INGEST_DOCUMENT_JOB, limit: PAGE, offset });
    for (const job of page.jobs) {
      if (job.status === 'pending' || job.status === 'running') named.add(String(job.payload.upload_id));
    }
    if (page.jobs.length < PAGE) return named;
  }
}
