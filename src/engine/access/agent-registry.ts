import { z } from 'zod';
import { NotFoundError, parseWith, VersionConflictError } from '../../core/errors.js';
import { type Agent, agentSchema, memoryConfigChangesSchema } from '../../core/schemas/agent.js';
import type { JsonObject } from '../../core/schemas/json.js';
import type { DocumentStore, StoredDocument } from '../../stores/document-store.js';
import { newId } from '../new-id.js';

/** The `store.documents` collection agents live in. */
export const AGENTS_COLLECTION = 'agents';

/** The agent used when a request names none; it exists even before anyone stores it. */
export const DEFAULT_AGENT_ID = 'default';

const tenantSchema = z.string().min(1).max(256);
const agentIdSchema = z.string().min(1).max(256);

/**
 * A new agent: its id defaults to a fresh `agent_<ULID>`. Strict like an edit, so a misspelt
 * field (`systemPromt`) is refused instead of creating an agent with the default prompt.
 */
export const agentCreateSchema = z
  .object({
    id: agentIdSchema.optional(),
    systemPrompt: agentSchema.shape.systemPrompt,
    memory: memoryConfigChangesSchema.optional(),
  })
  .strict();
export type AgentCreateInput = z.input<typeof agentCreateSchema>;

/** An edit: `systemPrompt` is replaced; `memory` keys are merged over the stored memory config. */
export const agentEditSchema = z
  .object({
    systemPrompt: agentSchema.shape.systemPrompt.optional(),
    memory: memoryConfigChangesSchema.optional(),
  })
  .strict();
export type AgentEdit = z.input<typeof agentEditSchema>;

const listSchema = z.object({
  limit: z.number().int().min(1).max(1_000).default(100),
  offset: z.number().int().nonnegative().default(0),
});

/** A stored agent: the engine's Agent plus its version (optimistic concurrency) and times. */
export interface StoredAgent extends Agent {
  /** 0 for the built-in default agent that was never stored. */
  version: number;
  createdAt: string | null;
  updatedAt: string | null;
}

/** Agents (system prompt + memory config) per tenant, stored in `store.documents`. */
export interface AgentRegistry {
  /** Stores a new agent; an existing id is a VersionConflictError (409). */
  create(tenantId: string, input: AgentCreateInput): Promise<StoredAgent>;
  /** The stored agent, else NotFoundError. */
  get(tenantId: string, id: string): Promise<StoredAgent>;
  /**
   * The agent a turn runs with: the stored one, or for `default` (and no id) the built-in
   * defaults when none is stored. Any other unknown id is a NotFoundError.
   */
  resolve(tenantId: string, id?: string | null): Promise<StoredAgent>;
  /**
   * Applies `changes`. With `expectedVersion` the write happens only at that version (else
   * VersionConflictError); without it, a concurrent write is retried on the fresh state, never lost.
   */
  update(
    tenantId: string,
    id: string,
    changes: AgentEdit,
    options?: { expectedVersion?: number },
  ): Promise<StoredAgent>;
  list(
    tenantId: string,
    page?: z.input<typeof listSchema>,
  ): Promise<{ agents: StoredAgent[]; total: number }>;
  /** Deletes the agent; NotFoundError when it does not exist. Its knowledge and procedures stay. */
  delete(tenantId: string, id: string): Promise<void>;
}

const MAX_UPDATE_RETRIES = 8;

function toStoredAgent(document: StoredDocument): StoredAgent {
  const agent = parseWith(agentSchema, { ...document.value, id: document.id }, 'stored agent');
  return {
    ...agent,
    version: document.version,
    createdAt: document.createdAt,
    updatedAt: document.updatedAt,
  };
}

/** What is stored: the validated agent without its id (the document's key). */
function toValue(agent: Agent): JsonObject {
  return JSON.parse(JSON.stringify({ systemPrompt: agent.systemPrompt, memory: agent.memory })) as JsonObject;
}

export function createAgentRegistry(documents: DocumentStore): AgentRegistry {
  async function find(tenantId: string, id: string): Promise<StoredDocument | null> {
    return documents.getDocument(parseWith(tenantSchema, tenantId, 'tenant'), AGENTS_COLLECTION, id);
  }

  const registry: AgentRegistry = {
    async create(tenantId, input) {
      const parsed = parseWith(agentCreateSchema, input, 'agent');
      const agent = parseWith(
        agentSchema,
        {
          id: parsed.id ?? `agent_${newId()}`,
          systemPrompt: parsed.systemPrompt,
          memory: parsed.memory ?? {},
        },
        'agent',
      );
      const tenant = parseWith(tenantSchema, tenantId, 'tenant');
      const document = await documents
        .putDocument(tenant, AGENTS_COLLECTION, agent.id, toValue(agent), { expectedVersion: 0 })
        .catch((error: unknown) => {
          // Version 0 means "must not exist": the conflict is an agent of that id, said as such
          // (the class and code stay, for callers that tell conflicts apart).
          if (error instanceof VersionConflictError) error.message = `Agent ${agent.id} already exists`;
          throw error;
        });
      return toStoredAgent(document);
    },

    async get(tenantId, id) {
      const document = await find(tenantId, parseWith(agentIdSchema, id, 'agent id'));
      if (!document) throw new NotFoundError('Agent', id);
      return toStoredAgent(document);
    },

    async resolve(tenantId, id) {
      const wanted = id ?? DEFAULT_AGENT_ID;
      const document = await find(tenantId, parseWith(agentIdSchema, wanted, 'agent id'));
      if (document) return toStoredAgent(document);
      if (wanted !== DEFAULT_AGENT_ID) throw new NotFoundError('Agent', wanted);
      return { ...agentSchema.parse({ id: DEFAULT_AGENT_ID }), version: 0, createdAt: null, updatedAt: null };
    },

    async update(tenantId, id, changes, options = {}) {
      const edit = parseWith(agentEditSchema, changes, 'agent changes');
      const expected = options.expectedVersion;
      for (let attempt = 1; ; attempt++) {
        const current = await registry.get(tenantId, id);
        if (expected !== undefined && current.version !== expected) {
          throw new VersionConflictError(expected, current.version, 'agent');
        }
        const next = parseWith(
          agentSchema,
          {
            id: current.id,
            systemPrompt: edit.systemPrompt ?? current.systemPrompt,
            // Re-validated as a whole: a merged config must still satisfy the cross-field rules.
            memory: { ...current.memory, ...edit.memory },
          },
          'agent',
        );
        try {
          const document = await documents.putDocument(tenantId, AGENTS_COLLECTION, id, toValue(next), {
            expectedVersion: current.version,
          });
          return toStoredAgent(document);
        } catch (error) {
          const retry = expected === undefined && attempt < MAX_UPDATE_RETRIES;
          if (!(error instanceof VersionConflictError) || !retry) throw error;
        }
      }
    },

    async list(tenantId, page = {}) {
      const { limit, offset } = parseWith(listSchema, page, 'agent list');
      const tenant = parseWith(tenantSchema, tenantId, 'tenant');
      const { documents: found, total } = await documents.listDocuments(tenant, AGENTS_COLLECTION, {
        limit,
        offset,
        order: 'id-asc',
      });
      return { agents: found.map(toStoredAgent), total };
    },

    async delete(tenantId, id) {
      const tenant = parseWith(tenantSchema, tenantId, 'tenant');
      const deleted = await documents.deleteDocument(
        tenant,
        AGENTS_COLLECTION,
        parseWith(agentIdSchema, id, 'agent id'),
      );
      if (!deleted) throw new NotFoundError('Agent', id);
    },
  };
  return registry;
}
