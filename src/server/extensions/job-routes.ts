import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../../engram.js';
import type { Job } from '../../stores/job-store.js';
import { tenantOf } from '../auth/principal.js';
import { readQuery } from '../request-parts.js';
import { extensionRoute } from './extension-route.js';

export const jobsQuerySchema = z.object({
  status: z.enum(['pending', 'running', 'succeeded', 'failed']).optional(),
  type: z.string().min(1).max(200).optional(),
  limit: z.coerce.number().int().min(1).max(200).default(50),
  offset: z.coerce.number().int().min(0).max(1_000_000).default(0),
});

/** Payload values longer than this are cut: the listing shows what a job is about, not its input. */
const MAX_PAYLOAD_VALUE_CHARS = 200;

export const jobBodySchema = z.object({
  id: z.string(),
  type: z.string(),
  status: z.enum(['pending', 'running', 'succeeded', 'failed']),
  attempts: z.number(),
  max_attempts: z.number(),
  /** The payload's scalar fields (session id, namespace, …), long texts cut. */
  payload: z.record(z.string(), z.union([z.string(), z.number(), z.boolean(), z.null()])),
  error: z.object({ message: z.string(), code: z.string().nullable() }).nullable(),
  created_at: z.string(),
  updated_at: z.string(),
  started_at: z.string().nullable(),
  completed_at: z.string().nullable(),
  available_at: z.string().nullable(),
});

/** `GET /v1/jobs`'s answer. */
export const jobListResponseSchema = z.object({ jobs: z.array(jobBodySchema), total: z.number() });

function toJobBody(job: Job): z.output<typeof jobBodySchema> {
  const payload: Record<string, string | number | boolean | null> = {};
  for (const [key, value] of Object.entries(job.payload)) {
    if (typeof value === 'string') payload[key] = value.slice(0, MAX_PAYLOAD_VALUE_CHARS);
    else if (typeof value === 'number' || typeof value === 'boolean' || value === null) payload[key] = value;
  }
  return {
    id: job.id,
    type: job.type,
    status: job.status,
    attempts: job.attempts,
    max_attempts: job.maxAttempts,
    payload,
    error: job.error,
    created_at: job.createdAt,
    updated_at: job.updatedAt,
    started_at: job.startedAt,
    completed_at: job.completedAt,
    available_at: job.availableAt,
  };
}

/** `GET /v1/jobs`: the tenant's background jobs (summaries, extraction, episodes), newest first. */
export function registerJobRoutes(app: FastifyInstance, engram: Engram): void {
  app.get(
    '/v1/jobs',
    {
      config: extensionRoute({
        summary: 'List background jobs, newest first',
        description:
          'Summaries, extraction, promotion, episodes…: state, attempts and the last error. ' +
          '`status`, `type`, `limit` 1–200 (50), `offset`; `total` is the true count.',
        tags: ['tasks'],
        query: jobsQuerySchema,
        response: jobListResponseSchema,
      }),
    },
    async (request) => {
      const query = readQuery(request, jobsQuerySchema);
      const { jobs, total } = await engram.jobs.list(tenantOf(request), {
        limit: query.limit,
        offset: query.offset,
        ...(query.status ? { status: query.status } : {}),
        ...(query.type ? { type: query.type } : {}),
      });
      return { jobs: jobs.map(toJobBody), total };
    },
  );
}
