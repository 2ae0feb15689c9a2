import { isDeepStrictEqual } from 'node:util';
import { z } from 'zod';
import { cutText } from '../../core/cut-text.js';
import { EngramError, NotFoundError, parseEdit, parseWith } from '../../core/errors.js';
import {
  cachedLinearPattern,
  compileLinearPattern,
  type LinearPattern,
} from '../../core/patterns/linear-pattern.js';
import {
  MAX_MEMORY_TEXT_CHARS,
  type MemoryRecord,
  type MemoryWriter,
} from '../../core/schemas/memory-record.js';
import {
  type Procedure,
  type ProcedureEdit,
  type ProcedureInput,
  type ProcedureStatus,
  procedureEditSchema,
  procedureInputSchema,
} from '../../core/schemas/procedure.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { dotProduct } from '../../providers/embeddings/l2-normalize.js';
import type { LongTermMemory } from './long-term-memory.js';

/**
 * Procedures one agent may have, of any status: creating past it is refused, which bounds what a
 * match reads (concurrent creates may pass it by a few; every one is still read).
 */
export const MAX_PROCEDURES_PER_AGENT = 1_000;

/** Records read per store call while listing an agent's procedures (the engine's page maximum). */
const LIST_PAGE = 1_000;

/** Agents whose approved procedures are cached at most; past it the cache starts over. */
const CACHED_AGENTS = 1_000;

/** How much of a message trigger patterns are tried on (its start). */
export const MAX_TRIGGER_INPUT_CHARS = 2_000;

export interface ProcedureMatch {
  procedure: Procedure;
  /** 1 for a trigger match; the cosine similarity for an example match. */
  score: number;
  matchedBy: 'trigger' | 'example';
}

/** A created procedure; `deduplicated` when the same agent already has the same one (nothing stored). */
export type CreatedProcedure = Procedure & { deduplicated: boolean };

/** Who or what writes a procedure version (default: `api` for writes, `user` for decisions). */
export interface ProcedureWriteOptions {
  writtenBy?: MemoryWriter;
  /**
   * `update` only: the editor may approve, so an approved or rejected procedure whose content
   * changes keeps its status. Without it, such a procedure returns to `pending`: approval is of
   * the steps a person read, and a writer who may not approve must not change them after.
   */
  keepDecision?: boolean;
}

/** What a person approves or rejects: a change to any of these needs a new decision. */
const DECIDED_FIELDS = ['name', 'triggers', 'examples', 'steps'] as const;

/**
 * Procedures: proposed as pending, approved or rejected by a person, matched per turn. A
 * procedure's id is stable: edits, approval and rejection write new versions under it.
 */
export interface ProcedureLibrary {
  /**
   * Proposes a procedure. The same agent's current procedure with the same name, triggers,
   * examples and steps is returned instead (`deduplicated: true`), never another agent's.
   */
  create(tenantId: string, input: ProcedureInput, options?: ProcedureWriteOptions): Promise<CreatedProcedure>;
  get(tenantId: string, id: string): Promise<Procedure>;
  /**
   * Writes a new version with the changes (same id); no change, no new version. A content change
   * of a decided procedure returns it to `pending` unless `options.keepDecision`.
   */
  update(
    tenantId: string,
    id: string,
    changes: ProcedureEdit,
    options?: ProcedureWriteOptions,
  ): Promise<Procedure>;
  approve(tenantId: string, id: string, options?: ProcedureWriteOptions): Promise<Procedure>;
  reject(tenantId: string, id: string, options?: ProcedureWriteOptions): Promise<Procedure>;
  list(tenantId: string, agentId: string, status?: ProcedureStatus): Promise<Procedure[]>;
  delete(tenantId: string, id: string): Promise<boolean>;
  /** The best approved procedure for a message: triggers first, then example similarity. */
  match(tenantId: string, agentId: string, message: string): Promise<ProcedureMatch | null>;
}

const metadataSchema = z.object({
  name: z.string(),
  triggers: z.array(z.string()),
  examples: z.array(z.string()),
  steps: z.array(z.string()),
  status: z.enum(['pending', 'approved', 'rejected']),
  version: z.number().int().positive(),
});

function toProcedure(record: MemoryRecord): Procedure {
  const metadata = metadataSchema.parse(record.metadata);
  return {
    id: record.id,
    agentId: record.agentId ?? '',
    ...metadata,
    // The record's version: the same number once metadata and record agree (they always do for
    // procedures written since stable ids), the record's after a migrated chain.
    version: record.version,
    createdAt: record.createdAt,
    updatedAt: record.updatedAt,
  };
}

/**
 * What the procedure's embedding and text index see: its name and example phrasings, cut to a
 * record's MAX_MEMORY_TEXT_CHARS (a name of 200 and 20 examples of 1,000 characters, within the
 * procedure's limits, pass it; the examples are kept whole in metadata and embedded one by one).
 */
const searchableText = (name: string, examples: string[]) =>
  cutText([name, ...examples].join('\n'), MAX_MEMORY_TEXT_CHARS).trimEnd();

/** Renders a procedure as the context's procedure section shows it. */
export function renderProcedure(procedure: Procedure): string {
  return [`${procedure.name}:`, ...procedure.steps.map((step, index) => `${index + 1}. ${step}`)].join('\n');
}

/** A stored trigger compiled for RE2; one stored before RE2 that RE2 refuses never matches. */
function linearTrigger(trigger: string): LinearPattern[] {
  try {
    return [cachedLinearPattern(trigger)];
  } catch {
    return [];
  }
}

/** An agent's approved procedures as matching uses them, valid while the store's revision holds. */
interface ApprovedSet {
  revision: string;
  procedures: { procedure: Procedure; triggers: LinearPattern[] }[];
  /** The examples' vectors, in procedure then example order, embedded on first need. */
  exampleVectors: Promise<Float32Array[]> | null;
}

/** Refusal of a procedure past `MAX_PROCEDURES_PER_AGENT` (422 `procedure_limit_reached`). */
export class ProcedureLimitError extends EngramError {
  constructor(agentId: string, limit: number) {
    super(
      'procedure_limit_reached',
      'unprocessable',
      `Agent ${agentId} already has ${limit} procedures, the most one agent may have ` +
        '(MAX_PROCEDURES_PER_AGENT, pending, approved and rejected alike): delete some first',
      { details: { agentId, limit } },
    );
    this.name = 'ProcedureLimitError';
  }
}

export function createProcedureLibrary(
  memories: LongTermMemory,
  embedder: EmbeddingProvider,
  options: { exampleThreshold?: number; maxPerAgent?: number } = {},
): ProcedureLibrary {
  const threshold = options.exampleThreshold ?? 0.75;
  const maxPerAgent = options.maxPerAgent ?? MAX_PROCEDURES_PER_AGENT;

  async function load(tenantId: string, id: string): Promise<MemoryRecord> {
    // An unknown id is an unknown procedure, not "Memory … not found".
    const record = await memories.get(tenantId, id).catch((error: unknown) => {
      throw error instanceof NotFoundError ? new NotFoundError('Procedure', id) : error;
    });
    if (record.memoryType !== 'procedural') throw new NotFoundError('Procedure', id);
    return record;
  }

  async function newVersion(
    tenantId: string,
    id: string,
    changes: ProcedureEdit,
    writtenBy: MemoryWriter,
    keepDecision = true,
  ): Promise<Procedure> {
    const edit = parseEdit(procedureEditSchema, changes, 'procedure changes');
    for (const trigger of edit.triggers ?? []) compileLinearPattern(trigger);
    const record = await load(tenantId, id);
    const current = toProcedure(record);
    const stored = current as unknown as Record<string, unknown>;
    if (Object.entries(edit).every(([key, value]) => isDeepStrictEqual(stored[key], value))) return current;
    const next = { ...current, ...edit, version: current.version + 1 };
    const contentChanged = DECIDED_FIELDS.some(
      (field) => field in edit && !isDeepStrictEqual(current[field], next[field]),
    );
    if (!keepDecision && contentChanged && current.status !== 'pending' && edit.status === undefined) {
      next.status = 'pending';
    }
    const { id: _id, agentId: _agent, createdAt: _created, updatedAt: _updated, ...metadata } = next;
    const text = searchableText(next.name, next.examples);
    // The version read is the one changed: a concurrent decision is a conflict, not a lost update.
    return toProcedure(
      await memories.edit(tenantId, id, { text, metadata }, { writtenBy, expectedVersion: record.version }),
    );
  }

  // Procedures are few and change rarely, while match runs every turn: an agent's approved set is
  // kept until the store's memory revision moves (any write of any memory, by any process).
  const approvedSets = new Map<string, ApprovedSet>();

  async function approvedSet(tenantId: string, agentId: string): Promise<ApprovedSet> {
    const key = JSON.stringify([tenantId, agentId]);
    const revision = await memories.revision(tenantId);
    const held = approvedSets.get(key);
    if (held && revision !== null && held.revision === revision) return held;
    // Read after the revision: a write in between only makes the next turn read again.
    const procedures = (await listRecords(tenantId, agentId))
      .map(toProcedure)
      .filter((procedure) => procedure.status === 'approved')
      .map((procedure) => ({
        procedure,
        triggers: procedure.triggers.flatMap(linearTrigger),
      }));
    const set: ApprovedSet = { revision: revision ?? '', procedures, exampleVectors: null };
    if (revision !== null) {
      if (approvedSets.size >= CACHED_AGENTS) approvedSets.clear();
      approvedSets.set(key, set);
    }
    return set;
  }

  const agentFilter = (agentId: string) => ({
    agentId: { eq: agentId },
    memoryType: { eq: 'procedural' },
  });

  /**
   * Every procedure of the agent, newest first. Status lives in metadata, which the store cannot
   * filter on, so all are read: a fixed first page would let pending ones hide approved ones.
   */
  async function listRecords(tenantId: string, agentId: string): Promise<MemoryRecord[]> {
    const byId = new Map<string, MemoryRecord>();
    for (let offset = 0; ; offset += LIST_PAGE) {
      const page = await memories.list(tenantId, agentFilter(agentId), { limit: LIST_PAGE, offset });
      // A create between pages shifts the next page by one: the repeat is dropped here.
      for (const record of page.memories) if (!byId.has(record.id)) byId.set(record.id, record);
      if (page.memories.length < LIST_PAGE || offset + LIST_PAGE >= page.total) break;
    }
    return [...byId.values()];
  }

  async function assertRoom(tenantId: string, agentId: string): Promise<void> {
    const { total } = await memories.list(tenantId, agentFilter(agentId), { limit: 1 });
    if (total >= maxPerAgent) throw new ProcedureLimitError(agentId, maxPerAgent);
  }

  return {
    async create(tenantId, input, options = {}) {
      const procedure = parseWith(procedureInputSchema, input, 'procedure');
      for (const trigger of procedure.triggers) compileLinearPattern(trigger);
      const { agentId, ...rest } = procedure;
      await assertRoom(tenantId, agentId);
      const { inserted, duplicates } = await memories.create(
        tenantId,
        [
          {
            text: searchableText(procedure.name, procedure.examples),
            memoryType: 'procedural',
            agentId,
            metadata: { ...rest, version: 1 },
          },
        ],
        { writtenBy: options.writtenBy ?? 'api' },
      );
      const created = inserted[0];
      if (created) return { ...toProcedure(created), deduplicated: false };
      const existing = duplicates[0]?.existing;
      // The hash covers the agent, so a duplicate is always this agent's own procedure.
      if (!existing || existing.agentId !== agentId) throw new NotFoundError('Procedure', procedure.name);
      return { ...toProcedure(existing), deduplicated: true };
    },
    get: async (tenantId, id) => toProcedure(await load(tenantId, id)),
    update: (tenantId, id, changes, options = {}) =>
      newVersion(tenantId, id, changes, options.writtenBy ?? 'api', options.keepDecision ?? false),
    approve: (tenantId, id, options = {}) =>
      newVersion(tenantId, id, { status: 'approved' }, options.writtenBy ?? 'user'),
    reject: (tenantId, id, options = {}) =>
      newVersion(tenantId, id, { status: 'rejected' }, options.writtenBy ?? 'user'),

    async list(tenantId, agentId, status) {
      const procedures = (await listRecords(tenantId, agentId)).map(toProcedure);
      return status ? procedures.filter((procedure) => procedure.status === status) : procedures;
    },

    async delete(tenantId, id) {
      await load(tenantId, id);
      return (await memories.delete(tenantId, [id])) > 0;
    },

    async match(tenantId, agentId, message) {
      const set = await approvedSet(tenantId, agentId);
      if (set.procedures.length === 0) return null;
      // Triggers run on RE2 (linear time) over a bounded prefix of the message.
      const head = message.slice(0, MAX_TRIGGER_INPUT_CHARS);
      for (const { procedure, triggers } of set.procedures) {
        if (triggers.some((trigger) => trigger.test(head))) {
          return { procedure: structuredClone(procedure), score: 1, matchedBy: 'trigger' };
        }
      }
      const withExamples = set.procedures.filter(({ procedure }) => procedure.examples.length > 0);
      if (withExamples.length === 0) return null;
      // Each example on its own: a paraphrase matches one example far better than their blend.
      // Examples are embedded once per approved set, the message every turn.
      set.exampleVectors ??= embedder
        .embed(withExamples.flatMap(({ procedure }) => procedure.examples))
        .catch((error: unknown) => {
          set.exampleVectors = null; // the next turn tries again
          throw error;
        });
      const [[query], vectors] = await Promise.all([embedder.embed([message]), set.exampleVectors]);
      let best: ProcedureMatch | null = null;
      let next = 0;
      for (const { procedure } of withExamples) {
        for (const _example of procedure.examples) {
          const similarity = dotProduct(query as Float32Array, vectors[next++] as Float32Array);
          if (similarity >= threshold && similarity > (best?.score ?? 0)) {
            best = { procedure, score: similarity, matchedBy: 'example' };
          }
        }
      }
      if (best) best.procedure = structuredClone(best.procedure);
      return best;
    },
  };
}
