import { createHash } from 'node:crypto';
import { z } from 'zod';
import { NotFoundError, parseWith, ValidationError } from '../../core/errors.js';
import type { JsonObject } from '../../core/schemas/json.js';
import {
  dateRangeSchema,
  type MemoryFilterInput,
  type MemoryRecord,
} from '../../core/schemas/memory-record.js';
import { LlmError, llmNotConfiguredError } from '../../providers/llm/llm-error.js';
import type { LlmProvider } from '../../providers/llm/llm-provider.js';
import type { DocumentStore } from '../../stores/document-store.js';
import type { Job } from '../../stores/job-store.js';
import type { JobRunner } from '../jobs/job-runner.js';
import { newId } from '../new-id.js';
import type { LongTermMemory } from './long-term-memory.js';

/** The job type of a full run; AMS clients read it as the task's `type`. */
export const SUMMARY_VIEW_FULL_RUN = 'summary_view_full_run';
const VIEWS = 'summary-views';
const PARTITIONS = 'summary-view-partitions';
/** At most this many memories (newest first) and characters of their text go into one summary. */
export const MAX_PARTITION_MEMORIES = 1_000;
export const MAX_PARTITION_CHARS = 200_000;
const PAGE = 1_000;
const DAY_MS = 86_400_000;

/** Fields a view may partition by (AMS: user_id, namespace, session_id, memory_type). */
export const summaryGroupFields = ['userId', 'namespace', 'sessionId', 'memoryType'] as const;
export type SummaryGroupField = (typeof summaryGroupFields)[number];

const tag = z.string().min(1).max(256);
/** Static conditions of every run: equality on scalar fields, `topics` any-of, an `eventDate` range. */
export const summaryViewFiltersSchema = z
  .object({
    userId: tag.optional(),
    namespace: tag.optional(),
    sessionId: tag.optional(),
    memoryType: z.enum(['semantic', 'episodic', 'message']).optional(),
    /** AMS's extraction strategy, kept in a record's `__ams` metadata extras (absent: `discrete`). */
    extractionStrategy: tag.optional(),
    topics: z.array(tag).min(1).max(100).optional(),
    eventDate: dateRangeSchema.optional(),
  })
  .strict();
export type SummaryViewFilters = z.output<typeof summaryViewFiltersSchema>;

export const summaryViewInputSchema = z.object({
  name: z.string().max(256).nullable().default(null),
  /** Only long-term memory is summarized (as in AMS). */
  source: z.literal('long_term'),
  groupBy: z
    .array(z.enum(summaryGroupFields))
    .max(summaryGroupFields.length)
    .refine((fields) => new Set(fields).size === fields.length, 'groupBy fields must be distinct')
    .default([]),
  filters: summaryViewFiltersSchema.default({}),
  /** Only memories created in the last N days (counted from each run). */
  timeWindowDays: z.number().int().min(1).max(36_500).nullable().default(null),
  /** Stored and returned; engram has no periodic refresh (run the view to refresh it). */
  continuous: z.boolean().default(false),
  /** Instructions for the model; default: a concise summary of facts, preferences and events. */
  prompt: z.string().max(20_000).nullable().default(null),
  /** Stored and returned; summaries use the configured LLM's model. */
  modelName: z.string().max(256).nullable().default(null),
});
export type SummaryViewInput = z.input<typeof summaryViewInputSchema>;
export type SummaryView = z.output<typeof summaryViewInputSchema> & { id: string; createdAt: string };

/** A partition's group: a value per group-by field of the view. */
export type SummaryGroup = Partial<Record<SummaryGroupField, string>>;
const groupSchema = z.partialRecord(z.enum(summaryGroupFields), z.string().max(256));

/** The summary of one partition, as stored. */
export interface SummaryPartition {
  viewId: string;
  group: SummaryGroup;
  summary: string;
  /** Memories given to the model (at most MAX_PARTITION_MEMORIES). */
  memoryCount: number;
  /** No memory matched: nothing was summarized and no model was called. */
  empty: boolean;
  emptyReason: string | null;
  computedAt: string;
}

/** Summary views: stored definitions, per-partition LLM summaries, and full runs as durable jobs. */
export interface SummaryViews {
  create(tenantId: string, input: SummaryViewInput): Promise<SummaryView>;
  get(tenantId: string, id: string): Promise<SummaryView | null>;
  /** Every view of the tenant, oldest first. */
  list(tenantId: string): Promise<SummaryView[]>;
  /** Deletes the view and its stored partitions; resolves whether the view existed. */
  delete(tenantId: string, id: string): Promise<boolean>;
  /**
   * Summarizes one partition now (one LLM call unless it is empty) and stores the result. The
   * group's keys must be exactly the view's `groupBy`. Throws NotFoundError, ValidationError, or
   * LlmError (`llm_not_configured` without an LLM).
   */
  runPartition(
    tenantId: string,
    viewId: string,
    group: SummaryGroup,
    signal?: AbortSignal,
  ): Promise<SummaryPartition>;
  /** Stored partitions whose group has every given value. */
  listPartitions(tenantId: string, viewId: string, where?: SummaryGroup): Promise<SummaryPartition[]>;
  /** Enqueues a full run (every partition); a repeated `idempotencyKey` returns the same job. */
  startFullRun(tenantId: string, viewId: string, idempotencyKey?: string): Promise<Job>;
}

export interface SummaryViewsOptions {
  documents: DocumentStore;
  memories: LongTermMemory;
  llm: LlmProvider | null;
  /** While false (the LLM's circuit is open), full-run jobs wait unclaimed (docs/jobs.md). */
  llmReady?: () => boolean;
  /** The `summary_view_full_run` handler is registered here. */
  jobs: JobRunner;
  clock: () => Date;
}

const DEFAULT_PROMPT =
  'You are a summarization assistant. Given a set of long-term memories, write a concise summary ' +
  'of the key facts, stable preferences and important events they record. Answer with the summary only.';

const labels: Record<SummaryGroupField, string> = {
  userId: 'user',
  namespace: 'namespace',
  sessionId: 'session',
  memoryType: 'memory type',
};

/** A fixed-length document id per (view, group), independent of key order. */
function partitionId(viewId: string, group: SummaryGroup): string {
  const canonical = JSON.stringify(summaryGroupFields.map((field) => group[field] ?? null));
  return `${viewId}:${createHash('sha256').update(canonical).digest('hex')}`;
}

function strategyOf(memory: MemoryRecord): string {
  const extras = memory.metadata.__ams as { extraction_strategy?: unknown } | undefined;
  return typeof extras?.extraction_strategy === 'string' ? extras.extraction_strategy : 'discrete';
}

/** Creates the service and registers the full-run job handler on `options.jobs`. */
export function createSummaryViews(options: SummaryViewsOptions): SummaryViews {
  const { documents, memories, llm, jobs, clock } = options;

  async function get(tenantId: string, id: string): Promise<SummaryView | null> {
    const stored = await documents.getDocument(tenantId, VIEWS, id);
    return stored ? (stored.value as unknown as SummaryView) : null;
  }
  async function existing(tenantId: string, id: string): Promise<SummaryView> {
    const view = await get(tenantId, id);
    if (!view) throw new NotFoundError('SummaryView', id);
    return view;
  }

  /** The store filter of a view (and group); the extraction strategy is checked per record. */
  function filterOf(view: SummaryView, group: SummaryGroup): MemoryFilterInput {
    const { filters } = view;
    const equal = (value: string | undefined) => (value === undefined ? undefined : { eq: value });
    const scope = { ...filters, ...group };
    // Memories only: an agent's procedures and knowledge chunks are not what a view summarizes
    // (a thousand chunks would crowd out the memories they sit beside).
    const filter: MemoryFilterInput = {
      memoryType: { none: ['procedural'], ...equal(scope.memoryType) },
      documentId: { exists: false },
    };
    for (const field of ['userId', 'namespace', 'sessionId'] as const) {
      const condition = equal(scope[field]);
      if (condition) filter[field] = condition;
    }
    // A group value and a static filter on the same field must both hold.
    for (const field of summaryGroupFields) {
      const fixed = filters[field];
      const wanted = group[field];
      if (fixed !== undefined && wanted !== undefined && fixed !== wanted) filter.ids = [];
    }
    if (filters.topics) filter.topics = { any: filters.topics };
    if (filters.eventDate) filter.eventDate = filters.eventDate;
    if (view.timeWindowDays !== null) {
      filter.createdAt = { gte: new Date(clock().getTime() - view.timeWindowDays * DAY_MS).toISOString() };
    }
    return filter;
  }

  /** Visits the view's memories newest first, page by page, until `visit` returns false. */
  async function scan(
    tenantId: string,
    view: SummaryView,
    group: SummaryGroup,
    visit: (memory: MemoryRecord) => boolean,
  ): Promise<void> {
    const filter = filterOf(view, group);
    const strategy = view.filters.extractionStrategy;
    for (let offset = 0; ; offset += PAGE) {
      const page = await memories.list(tenantId, filter, { limit: PAGE, offset, order: 'created_desc' });
      for (const memory of page.memories) {
        if (strategy !== undefined && strategyOf(memory) !== strategy) continue;
        if (!visit(memory)) return;
      }
      if (page.memories.length < PAGE || offset + PAGE >= page.total) return;
    }
  }

  async function summarize(
    tenantId: string,
    view: SummaryView,
    group: SummaryGroup,
    signal?: AbortSignal,
  ): Promise<SummaryPartition> {
    if (!llm) throw llmNotConfiguredError('Running a summary view');
    const texts: string[] = [];
    let characters = 0;
    await scan(tenantId, view, group, (memory) => {
      if (texts.length >= MAX_PARTITION_MEMORIES || characters + memory.text.length > MAX_PARTITION_CHARS) {
        return false;
      }
      texts.push(memory.text);
      characters += memory.text.length;
      return true;
    });
    const base = { viewId: view.id, group, computedAt: clock().toISOString() };
    const described = summaryGroupFields
      .filter((field) => group[field] !== undefined)
      .map((field) => `${labels[field]}: ${group[field]}`)
      .join(', ');
    if (texts.length === 0) {
      const where = described === '' ? 'this view' : `group ${described}`;
      return {
        ...base,
        summary: '',
        memoryCount: 0,
        empty: true,
        emptyReason: `No memories found for ${where}`,
      };
    }
    const answer = await llm.complete({
      messages: [
        { role: 'system', content: view.prompt ?? DEFAULT_PROMPT },
        {
          role: 'user',
          content: `GROUP: ${described || 'all memories'}\n\nMEMORIES (newest first):\n${texts
            .map((text) => `- ${text}`)
            .join('\n')}\n\nSUMMARY:`,
        },
      ],
      ...(signal ? { signal } : {}),
    });
    const summary = answer.content.trim();
    if (summary === '') throw new LlmError('llm_output_invalid', 'The model answered an empty summary');
    return { ...base, summary, memoryCount: texts.length, empty: false, emptyReason: null };
  }

  async function save(tenantId: string, partition: SummaryPartition): Promise<void> {
    await documents.putDocument(
      tenantId,
      PARTITIONS,
      partitionId(partition.viewId, partition.group),
      partition as unknown as JsonObject,
    );
  }

  async function allPartitions(tenantId: string, viewId: string): Promise<SummaryPartition[]> {
    const found: SummaryPartition[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await documents.listDocuments(tenantId, PARTITIONS, {
        prefix: `${viewId}:`,
        limit: PAGE,
        offset,
      });
      found.push(...page.documents.map((document) => document.value as unknown as SummaryPartition));
      if (page.documents.length < PAGE) return found;
    }
  }

  jobs.register(
    SUMMARY_VIEW_FULL_RUN,
    async (payload, { job, signal }): Promise<JsonObject> => {
      const viewId = typeof payload.view_id === 'string' ? payload.view_id : '';
      const view = await get(job.tenantId, viewId);
      // A deleted view stays deleted: no retry.
      if (!view) throw Object.assign(new NotFoundError('SummaryView', viewId), { retryable: false });
      if (!llm) throw llmNotConfiguredError('Running a summary view');
      const groups = new Map<string, SummaryGroup>();
      await scan(job.tenantId, view, {}, (memory) => {
        const group: SummaryGroup = {};
        for (const field of view.groupBy) {
          const value = memory[field];
          // As in AMS, a memory without a value for a group-by field is in no partition.
          if (value === null) return true;
          group[field] = value;
        }
        groups.set(partitionId(view.id, group), group);
        return true;
      });
      let memoryCount = 0;
      for (const group of groups.values()) {
        signal.throwIfAborted();
        const partition = await summarize(job.tenantId, view, group, signal);
        if (!(await get(job.tenantId, view.id))) return { partitions: 0, memories: 0, deleted: true };
        await save(job.tenantId, partition);
        memoryCount += partition.memoryCount;
      }
      return { partitions: groups.size, memories: memoryCount, deleted: false };
    },
    options.llmReady ? { isReady: options.llmReady } : {},
  );

  return {
    async create(tenantId, input) {
      const parsed = parseWith(summaryViewInputSchema, input, 'summary view');
      const view: SummaryView = { id: newId(), ...parsed, createdAt: clock().toISOString() };
      await documents.putDocument(tenantId, VIEWS, view.id, view as unknown as JsonObject, {
        expectedVersion: 0,
      });
      return view;
    },
    get,
    async list(tenantId) {
      const views: SummaryView[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const page = await documents.listDocuments(tenantId, VIEWS, { limit: PAGE, offset });
        views.push(...page.documents.map((document) => document.value as unknown as SummaryView));
        if (page.documents.length < PAGE) return views;
      }
    },
    async delete(tenantId, id) {
      const existed = await documents.deleteDocument(tenantId, VIEWS, id);
      for (const partition of await allPartitions(tenantId, id)) {
        await documents.deleteDocument(tenantId, PARTITIONS, partitionId(id, partition.group));
      }
      return existed;
    },
    async runPartition(tenantId, viewId, group, signal) {
      const view = await existing(tenantId, viewId);
      const parsed = parseWith(groupSchema, group, 'group') as SummaryGroup;
      const keys = Object.keys(parsed).sort();
      const expected = [...view.groupBy].sort();
      if (keys.join('\0') !== expected.join('\0')) {
        throw new ValidationError(
          `group keys [${keys.join(', ')}] must exactly match the view's groupBy [${expected.join(', ')}]`,
        );
      }
      const partition = await summarize(tenantId, view, parsed, signal);
      await save(tenantId, partition);
      return partition;
    },
    async listPartitions(tenantId, viewId, where = {}) {
      await existing(tenantId, viewId);
      const wanted = Object.entries(where).filter(([, value]) => value !== undefined);
      return (await allPartitions(tenantId, viewId)).filter((partition) =>
        wanted.every(([field, value]) => partition.group[field as SummaryGroupField] === value),
      );
    },
    async startFullRun(tenantId, viewId, idempotencyKey) {
      await existing(tenantId, viewId);
      if (!llm) throw llmNotConfiguredError('Running a summary view');
      return jobs.enqueue(
        tenantId,
        SUMMARY_VIEW_FULL_RUN,
        { view_id: viewId },
        {
          ...(idempotencyKey ? { idempotencyKey: `summary-view-run:${viewId}:${idempotencyKey}` } : {}),
        },
      );
    },
  };
}
