import { VersionConflictError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { StoredDocument } from '../../stores/document-store.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { unclaimedFailure } from '../../stores/job-store.js';
import { sweepOrphanUploads, UPLOAD_GRACE_MS } from '../long-term/sweep-orphan-uploads.js';
import { EXTRACTION_CURSORS } from '../write-path/session-cursors.js';
import { SESSION_ENDS_COLLECTION } from '../write-path/session-end-marks.js';
import { TASK_PROGRESS_COLLECTION } from './task-progress.js';

/** Rows removed (or kept and refreshed) per collection and sweep, so one sweep stays short. */
const BATCH = 500;

/** What one sweep did. */
export interface RetentionSweep {
  /** Jobs failed because nobody claimed them for the whole retention (`job_unclaimed`). */
  unclaimed: number;
  jobs: number;
  documents: number;
  /** Stale documents kept because their session still exists (their clock restarted). */
  kept: number;
  /** Texts of knowledge uploads whose ingest job ended without deleting them. */
  uploads: number;
}

/** The session an extraction cursor or end mark belongs to; null when the document does not say. */
function sessionOf(collection: string, tenantId: string, document: StoredDocument): SessionKey | null {
  const value: JsonObject = document.value;
  if (collection === SESSION_ENDS_COLLECTION) {
    try {
      const [namespace, userId, sessionId] = JSON.parse(document.id) as [
        string | null,
        string | null,
        string,
      ];
      return typeof sessionId === 'string' ? { tenantId, namespace, userId, sessionId } : null;
    } catch {
      return null;
    }
  }
  // Cursors written before they carried the whole key have no `namespace`/`userId`: age alone decides.
  if (!('namespace' in value) || !('userId' in value) || typeof value.sessionId !== 'string') return null;
  const text = (field: unknown) => (typeof field === 'string' ? field : null);
  return {
    tenantId,
    namespace: text(value.namespace),
    userId: text(value.userId),
    sessionId: value.sessionId,
  };
}

/**
 * Deletes what background work leaves behind once it is older than `retentionMs`: finished jobs
 * (succeeded or failed, by completion time), extraction cursors, session end marks and task
 * progress reports (by last write). A cursor or mark whose session still exists (same
 * incarnation) is kept, its write time refreshed, since deleting it would make that session's
 * messages be extracted or ended again; a progress report is kept while its job exists, so it goes
 * with the job (finished jobs are pruned first, in the same sweep). A job due for the whole
 * retention that nobody claimed (no process handles its type) is failed, and pruned a retention later. The text of a knowledge upload
 * goes an hour after its last write once no unfinished ingest job names it (sweep-orphan-uploads.ts).
 */
export function createRetentionSweeper(options: {
  store: EngramStore;
  clock: () => Date;
  retentionMs: number;
}) {
  const { store, clock, retentionMs } = options;
  /** Whether the document's owner (its session, or its task's job) still needs it. */
  const owned = async (collection: string, tenantId: string, document: StoredDocument) => {
    if (collection === TASK_PROGRESS_COLLECTION)
      return (await store.jobs.getJob(tenantId, document.id)) !== null;
    const key = sessionOf(collection, tenantId, document);
    const session = key ? await store.getSession(key) : null;
    return session !== null && session.createdAt === document.value.sessionCreatedAt;
  };
  return async function sweep(): Promise<RetentionSweep> {
    const before = new Date(clock().getTime() - retentionMs).toISOString();
    // Due for the whole retention and never claimed: no process handles the type. Failed, they show
    // why on their task, and go with the next retention like any finished job.
    const days = Number((retentionMs / 86_400_000).toFixed(2));
    const unclaimed = await store.jobs.failUnclaimedJobs(before, unclaimedFailure(days), BATCH);
    const result: RetentionSweep = {
      unclaimed,
      jobs: await store.jobs.pruneJobs(before, BATCH),
      documents: 0,
      kept: 0,
      // Not kept for the retention: an orphaned upload (up to 5 MB) is no history worth keeping.
      uploads: await sweepOrphanUploads(store, new Date(clock().getTime() - UPLOAD_GRACE_MS).toISOString()),
    };
    for (const collection of [EXTRACTION_CURSORS, SESSION_ENDS_COLLECTION, TASK_PROGRESS_COLLECTION]) {
      for (const { tenantId, document } of await store.documents.listStaleDocuments(
        collection,
        before,
        BATCH,
      )) {
        if (await owned(collection, tenantId, document)) {
          await store.documents
            .putDocument(tenantId, collection, document.id, document.value, {
              expectedVersion: document.version,
            })
            .catch((error: unknown) => {
              // Written meanwhile: it is fresh anyway.
              if (!(error instanceof VersionConflictError)) throw error;
            });
          result.kept += 1;
        } else if (await store.documents.deleteDocument(tenantId, collection, document.id)) {
          result.documents += 1;
        }
      }
    }
    return result;
  };
}
