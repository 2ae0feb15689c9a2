import { VersionConflictError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { DocumentStore } from '../../stores/document-store.js';

/** The document collection of task progress reports (pruned with their jobs by the retention sweep). */
export const TASK_PROGRESS_COLLECTION = 'task_progress';

/**
 * Progress of long background jobs (a large knowledge document), shown with the task at
 * `GET /v1/tasks/{id}`. Kept in `store.documents` beside the job, one small document per task, so
 * the job store's schema stays as it is and any process running the job can report.
 */
export interface TaskProgressLog {
  /** Records the task's progress; with `onlyIfNone`, only when nothing was reported yet. */
  report(
    tenantId: string,
    taskId: string,
    progress: JsonObject,
    options?: { onlyIfNone?: boolean },
  ): Promise<void>;
  /** The latest report for the task, or null (none yet, or another tenant's task). */
  get(tenantId: string, taskId: string): Promise<JsonObject | null>;
}

export function createTaskProgressLog(documents: DocumentStore): TaskProgressLog {
  return {
    async report(tenantId, taskId, progress, options = {}) {
      if (!options.onlyIfNone) {
        await documents.putDocument(tenantId, TASK_PROGRESS_COLLECTION, taskId, progress);
        return;
      }
      await documents
        .putDocument(tenantId, TASK_PROGRESS_COLLECTION, taskId, progress, { expectedVersion: 0 })
        .catch((error) => {
          if (!(error instanceof VersionConflictError)) throw error;
        });
    },
    async get(tenantId, taskId) {
      return (await documents.getDocument(tenantId, TASK_PROGRESS_COLLECTION, taskId))?.value ?? null;
    },
  };
}
