import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { JsonObject } from '../../core/schemas/json.js';
import type { Engram } from '../../engram.js';
import type { Job, JobStatus } from '../../stores/job-store.js';
import { tenantOf } from '../auth/principal.js';
import { readPath } from '../request-parts.js';
import { formatAmsDateTime } from './ams-datetime.js';

const taskPathSchema = z.object({ task_id: z.string().min(1).max(256) });

const amsTaskStatuses = ['pending', 'running', 'success', 'failed'] as const;

/** AMS Task (spec §4.16), the view of one background job. */
export const amsTaskSchema = z.object({
  id: z.string(),
  /** The job type, e.g. `extract_memories`; AMS's own summary runs say `summary_view_full_run`. */
  type: z.string(),
  status: z.enum(amsTaskStatuses),
  view_id: z.string().nullable(),
  created_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  /** The last failure: the final one when failed, the one awaiting retry while pending. */
  error_message: z.string().nullable(),
  /**
   * engram extension: how far a long job has got, when it reports (a large knowledge document:
   * `{phase: queued|chunking|storing|done, chunks, stored, total, unit: "chunks"}`); absent otherwise,
   * so other tasks keep AMS's exact shape.
   */
  progress: z.record(z.string(), z.unknown()).optional(),
});

const statusNames: Record<JobStatus, (typeof amsTaskStatuses)[number]> = {
  pending: 'pending',
  running: 'running',
  succeeded: 'success',
  failed: 'failed',
};

const amsTime = (iso: string | null) => (iso === null ? null : formatAmsDateTime(iso));

/** Maps a job to the AMS Task body. */
export function toAmsTask(job: Job, progress: JsonObject | null = null): z.output<typeof amsTaskSchema> {
  const viewId = job.payload.view_id;
  return {
    id: job.id,
    type: job.type,
    status: statusNames[job.status],
    view_id: typeof viewId === 'string' ? viewId : null,
    created_at: formatAmsDateTime(job.createdAt),
    started_at: amsTime(job.startedAt),
    completed_at: amsTime(job.completedAt),
    error_message: job.error?.message ?? null,
    ...(progress ? { progress } : {}),
  };
}

/** `GET /v1/tasks/{task_id}`: the status of a background job of the caller's tenant. */
export function registerTaskRoutes(app: FastifyInstance, engram: Engram): void {
  app.get(
    '/v1/tasks/:task_id',
    {
      config: {
        docs: {
          summary: 'Status of a background task (a durable job: extraction, summaries, …)',
          tags: ['tasks'],
          params: taskPathSchema,
          response: amsTaskSchema,
        },
      },
    },
    async (request, reply) => {
      const { task_id } = readPath(request, taskPathSchema);
      const tenantId = tenantOf(request);
      const job = await engram.jobs.get(tenantId, task_id);
      if (!job) return reply.status(404).send({ detail: `Task ${task_id} not found` });
      return toAmsTask(job, await engram.taskProgress.get(tenantId, task_id));
    },
  );
}
