import { z } from 'zod';
import { MAX_BUDGET_TOKENS, type MemoryConfig, pruningStrategySchema } from '../../core/schemas/agent.js';
import type { StoredAgent } from '../../engine/access/agent-registry.js';

const tokens = (minimum = 0) => z.number().int().min(minimum).max(MAX_BUDGET_TOKENS);
const sections = <T extends z.ZodType>(value: T) =>
  z.strictObject({ procedure: value.optional(), knowledge: value.optional(), episodes: value.optional() });

/**
 * An agent's memory config on the wire (snake_case). Every key is optional: on create the engine
 * fills the defaults, on PATCH the keys given replace the stored ones (nested objects as a whole).
 * Unknown keys are refused, so that a misspelt setting is not silently ignored.
 */
export const memoryConfigBodySchema = z.strictObject({
  max_working_memory_tokens: tokens(64).optional(),
  reserved_output_tokens: tokens().optional(),
  model: z.string().min(1).max(128).optional(),
  pruning_strategy: pruningStrategySchema.optional(),
  sliding_window_turns: z.number().int().positive().max(100_000).optional(),
  semantic_top_k: z.number().int().nonnegative().max(1_000).optional(),
  episodic_top_k: z.number().int().nonnegative().max(1_000).optional(),
  section_caps: sections(tokens()).extend({ history: tokens().optional() }).optional(),
  min_relevance: sections(z.number().min(0).max(1)).optional(),
  source_timeout_ms: z.number().int().positive().max(60_000).optional(),
});
type MemoryConfigBody = z.output<typeof memoryConfigBodySchema>;

/** Wire key → engine key of the memory config. */
const engineKeys = {
  max_working_memory_tokens: 'maxWorkingMemoryTokens',
  reserved_output_tokens: 'reservedOutputTokens',
  model: 'model',
  pruning_strategy: 'pruningStrategy',
  sliding_window_turns: 'slidingWindowTurns',
  semantic_top_k: 'semanticTopK',
  episodic_top_k: 'episodicTopK',
  section_caps: 'sectionCaps',
  min_relevance: 'minRelevance',
  source_timeout_ms: 'sourceTimeoutMs',
} as const satisfies Record<keyof MemoryConfigBody, keyof MemoryConfig>;

export const agentIdField = z.string().min(1).max(256);
export const agentPathSchema = z.object({ agent_id: agentIdField });

/** `POST /v1/agents`. */
export const createAgentBodySchema = z.strictObject({
  /** Default: a fresh `agent_<ULID>`. */
  id: agentIdField.optional(),
  system_prompt: z.string().max(1_000_000).optional(),
  memory: memoryConfigBodySchema.optional(),
});

/** `PATCH /v1/agents/{agent_id}`: the prompt is replaced, memory keys merged over the stored ones. */
export const updateAgentBodySchema = z.strictObject({
  system_prompt: z.string().max(1_000_000).optional(),
  memory: memoryConfigBodySchema.optional(),
});

export const listAgentsQuerySchema = z.object({
  limit: z.coerce.number().int().min(1).max(1_000).default(100),
  offset: z.coerce.number().int().nonnegative().default(0),
});

export const agentResponseSchema = z.object({
  id: z.string(),
  system_prompt: z.string(),
  memory: memoryConfigBodySchema.required(),
  /** Also the ETag; 0 for the built-in default agent that was never stored. */
  version: z.number().int(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export const listAgentsResponseSchema = z.object({ agents: z.array(agentResponseSchema), total: z.number() });

/** The engine's memory config from the wire's (only the keys given). */
export function toMemoryConfigInput(body: MemoryConfigBody): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(body)
      .filter(([, value]) => value !== undefined)
      .map(([key, value]) => [engineKeys[key as keyof MemoryConfigBody], value]),
  );
}

export function toAgentBody(agent: StoredAgent): z.output<typeof agentResponseSchema> {
  const memory = Object.fromEntries(
    Object.entries(engineKeys).map(([wire, engine]) => [wire, agent.memory[engine]]),
  ) as z.output<typeof agentResponseSchema>['memory'];
  return {
    id: agent.id,
    system_prompt: agent.systemPrompt,
    memory,
    version: agent.version,
    created_at: agent.createdAt,
    updated_at: agent.updatedAt,
  };
}
