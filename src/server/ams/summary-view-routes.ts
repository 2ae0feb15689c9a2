import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../../engram.js';
import { tenantOf } from '../auth/principal.js';
import { readBody, readPath, readQuery } from '../request-parts.js';
import { AmsHttpError } from './ams-http-error.js';
import { ackSchema } from './long-term-memory-schemas.js';
import {
  groupKeysMismatch,
  toAmsPartition,
  toAmsSummaryView,
  toEngineGroup,
  toSummaryViewInput,
} from './summary-view-mapper.js';
import {
  createSummaryViewBodySchema,
  partitionResultSchema,
  partitionsQuerySchema,
  runPartitionBodySchema,
  runViewBodySchema,
  summaryViewSchema,
  viewPathSchema,
} from './summary-view-schemas.js';
import { amsTaskSchema, toAmsTask } from './task-routes.js';

const tags = ['summary-views'];
const notFound = { 404: 'No such summary view (or one of another tenant)' };
const llmOff = {
  503: 'No LLM is configured ("… needs an LLM, and none is configured …"), or the model failed',
};

/**
 * AMS summary views (spec §4.15), scoped to the caller's tenant: stored definitions, a partition
 * summarized now by the LLM (`partitions/run`), stored results, and full runs as durable jobs
 * reported by `GET /v1/tasks/{id}`. See docs/server.md.
 */
export function registerSummaryViewRoutes(app: FastifyInstance, engram: Engram): void {
  const views = engram.summaryViews;
  const viewOf = async (request: FastifyRequest) => {
    const { view_id } = readPath(request, viewPathSchema);
    const view = await views.get(tenantOf(request), view_id);
    if (!view) throw new AmsHttpError(404, `SummaryView ${view_id} not found`);
    return view;
  };

  app.post(
    '/v1/summary-views',
    {
      config: {
        docs: {
          summary: 'Create a summary view (long-term memories summarized per group)',
          tags,
          body: createSummaryViewBodySchema,
          response: summaryViewSchema,
          errors: { 400: 'source is not long_term, or unsupported group_by or filter fields or values' },
        },
      },
    },
    async (request) => {
      const input = toSummaryViewInput(readBody(request, createSummaryViewBodySchema));
      return toAmsSummaryView(await views.create(tenantOf(request), input));
    },
  );

  app.get(
    '/v1/summary-views',
    { config: { docs: { summary: 'List summary views', tags, response: z.array(summaryViewSchema) } } },
    async (request) => (await views.list(tenantOf(request))).map(toAmsSummaryView),
  );

  app.get(
    '/v1/summary-views/:view_id',
    {
      config: {
        docs: {
          summary: 'Read a summary view',
          tags,
          params: viewPathSchema,
          response: summaryViewSchema,
          errors: notFound,
        },
      },
    },
    async (request) => toAmsSummaryView(await viewOf(request)),
  );

  app.delete(
    '/v1/summary-views/:view_id',
    {
      config: {
        docs: {
          summary: 'Delete a summary view and its stored partitions ("ok" also when absent)',
          tags,
          params: viewPathSchema,
          response: ackSchema,
        },
      },
    },
    async (request) => {
      const { view_id } = readPath(request, viewPathSchema);
      await views.delete(tenantOf(request), view_id);
      return { status: 'ok' };
    },
  );

  app.post(
    '/v1/summary-views/:view_id/partitions/run',
    {
      config: {
        docs: {
          summary: "Summarize one partition now with the LLM and store it (group keys = the view's group_by)",
          tags,
          params: viewPathSchema,
          body: runPartitionBodySchema,
          response: partitionResultSchema,
          errors: { ...notFound, 400: "The group's keys differ from the view's group_by", ...llmOff },
        },
      },
    },
    async (request) => {
      const view = await viewOf(request);
      const { group } = readBody(request, runPartitionBodySchema);
      const groupBy = toAmsSummaryView(view).group_by;
      const keys = Object.keys(group);
      if (keys.length !== groupBy.length || !keys.every((key) => (groupBy as string[]).includes(key))) {
        throw groupKeysMismatch(keys, groupBy);
      }
      const partition = await views.runPartition(tenantOf(request), view.id, toEngineGroup(group));
      return toAmsPartition(partition);
    },
  );

  app.get(
    '/v1/summary-views/:view_id/partitions',
    {
      config: {
        docs: {
          summary: 'Stored partition summaries of a view, filtered by group values',
          tags,
          params: viewPathSchema,
          query: partitionsQuerySchema,
          response: z.array(partitionResultSchema),
          errors: notFound,
        },
      },
    },
    async (request) => {
      const view = await viewOf(request);
      const query = readQuery(request, partitionsQuerySchema);
      const partitions = await views.listPartitions(tenantOf(request), view.id, toEngineGroup(query));
      return partitions.map(toAmsPartition);
    },
  );

  app.post(
    '/v1/summary-views/:view_id/run',
    {
      config: {
        docs: {
          summary: 'Recompute every partition in the background: a task (GET /v1/tasks/{task_id})',
          tags,
          params: viewPathSchema,
          body: runViewBodySchema,
          response: amsTaskSchema,
          errors: { ...notFound, ...llmOff },
        },
      },
    },
    async (request) => {
      const view = await viewOf(request);
      const { task_id } = readBody(request, runViewBodySchema);
      const job = await views.startFullRun(tenantOf(request), view.id, task_id ?? undefined);
      return toAmsTask(job);
    },
  );
}
