import { z } from 'zod';
import { type ModelInfo, resolveModel } from '../tokens/model-registry.js';

/** Upper bound for any token budget: far beyond every model's context window, to catch absurd values. */
export const MAX_BUDGET_TOKENS = 10_000_000;

export const pruningStrategySchema = z.enum(['drop-oldest', 'sliding-window', 'summarize']);
export type PruningStrategy = z.infer<typeof pruningStrategySchema>;

/** Default `semanticTopK`: the working set's candidate pool, so the token cap is what binds. */
export const DEFAULT_SEMANTIC_TOP_K = 50;

const tokenCapSchema = z.number().int().nonnegative().max(MAX_BUDGET_TOKENS);

/**
 * Per-section token caps. When a cap is absent, the default is a share of the available budget
 * (see DEFAULT_SECTION_SHARES in the assembler), so retrieved memories can never starve history.
 */
export const sectionCapsSchema = z.object({
  procedure: tokenCapSchema.optional(),
  knowledge: tokenCapSchema.optional(),
  episodes: tokenCapSchema.optional(),
  history: tokenCapSchema.optional(),
});
export type SectionCaps = z.infer<typeof sectionCapsSchema>;

/** Minimum relevance score per section; items scoring below are excluded with reason `below_threshold`. */
export const relevanceThresholdsSchema = z.object({
  procedure: z.number().min(0).max(1).default(0),
  knowledge: z.number().min(0).max(1).default(0),
  episodes: z.number().min(0).max(1).default(0),
});

/** How an agent's working memory is budgeted and filled each turn. */
export const memoryConfigSchema = z
  .object({
    maxWorkingMemoryTokens: z.number().int().min(64).max(MAX_BUDGET_TOKENS).default(8_000),
    reservedOutputTokens: z.number().int().nonnegative().max(MAX_BUDGET_TOKENS).default(1_000),
    /** Model name: picks the tokenizer and bounds the budget by its context window. */
    model: z.string().min(1).max(128).default('gpt-4o'),
    pruningStrategy: pruningStrategySchema.default('drop-oldest'),
    /** For `sliding-window`: how many of the latest turns are eligible before the budget applies. */
    slidingWindowTurns: z.number().int().positive().max(100_000).default(20),
    /**
     * Most memories the knowledge section takes (the user's facts and turns, and the agent's
     * document chunks, each source up to this many). High enough that the section's token cap
     * (`sectionCaps.knowledge`, else 30% of the available budget) decides how many fit: the budget
     * is filled with the best-ranked memories instead of stopping at a handful (see
     * docs/long-term-memory.md, "Retrieval quality on LoCoMo").
     */
    semanticTopK: z.number().int().nonnegative().max(1_000).default(DEFAULT_SEMANTIC_TOP_K),
    episodicTopK: z.number().int().nonnegative().max(1_000).default(3),
    sectionCaps: sectionCapsSchema.default({}),
    minRelevance: relevanceThresholdsSchema.default({ procedure: 0, knowledge: 0, episodes: 0 }),
    /** Default per-source timeout; a source that takes longer is recorded as degraded. */
    sourceTimeoutMs: z.number().int().positive().max(60_000).default(500),
  })
  .refine((config) => config.reservedOutputTokens < config.maxWorkingMemoryTokens, {
    message: 'reservedOutputTokens must be smaller than maxWorkingMemoryTokens',
    path: ['reservedOutputTokens'],
  })
  // Checked where the config is written (an agent's create or update), not only by the turn that
  // uses it: an agent that names no known model, or a budget over its window, fails every turn.
  .superRefine((config, context) => {
    let model: ModelInfo;
    try {
      model = resolveModel(config.model);
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error);
      context.addIssue({ code: 'custom', path: ['model'], message });
      return;
    }
    if (config.maxWorkingMemoryTokens > model.contextWindow) {
      context.addIssue({
        code: 'custom',
        path: ['maxWorkingMemoryTokens'],
        message:
          `maxWorkingMemoryTokens ${config.maxWorkingMemoryTokens} exceeds the ${model.contextWindow}-token ` +
          `context window of ${model.name}`,
      });
    }
  });
export type MemoryConfigInput = z.input<typeof memoryConfigSchema>;
export type MemoryConfig = z.output<typeof memoryConfigSchema>;

const nestedSettings: Record<string, readonly string[]> = {
  sectionCaps: Object.keys(sectionCapsSchema.shape),
  minRelevance: Object.keys(relevanceThresholdsSchema.shape),
};

/**
 * Memory settings as an agent's create or edit writes them: every key, nested ones included,
 * must be a setting, so a misspelt one (`semanticTopk`) is refused instead of silently dropped.
 * Values are checked by `memoryConfigSchema` once merged.
 */
export const memoryConfigChangesSchema = z.record(z.string(), z.unknown()).superRefine((value, context) => {
  const check = (keys: string[], known: readonly string[], path: string[]) => {
    for (const key of keys) {
      if (known.includes(key)) continue;
      const shown = key.length > 64 ? `${key.slice(0, 64)}…` : key;
      context.addIssue({
        code: 'custom',
        path: [...path, key],
        message: `Unknown memory setting "${shown}" (known: ${known.join(', ')})`,
      });
    }
  };
  check(Object.keys(value), Object.keys(memoryConfigSchema.shape), []);
  for (const [key, known] of Object.entries(nestedSettings)) {
    const nested = value[key];
    if (typeof nested === 'object' && nested !== null && !Array.isArray(nested))
      check(Object.keys(nested), known, [key]);
  }
});

/** An agent: a system prompt plus the memory config its contexts are assembled with. */
export const agentSchema = z.object({
  id: z.string().min(1).max(256).default('default'),
  systemPrompt: z.string().max(1_000_000).default('You are a helpful assistant.'),
  memory: memoryConfigSchema.default(memoryConfigSchema.parse({})),
});
export type AgentInput = z.input<typeof agentSchema>;
export type Agent = z.output<typeof agentSchema>;
