import { ValidationError } from '../errors.js';

/** Tokenizer encodings engram can count with (both shipped by gpt-tokenizer). */
export type Encoding = 'o200k_base' | 'cl100k_base';

/** What engram knows about a model: how to count its tokens and how large its window is. */
export interface ModelInfo {
  /** The name as the caller gave it. */
  name: string;
  family: string;
  encoding: Encoding;
  contextWindow: number;
  /**
   * 1 for OpenAI models (counted exactly). For other families, the factor applied to the
   * encoding's count to estimate the model's own tokenizer, rounded up so budgets stay safe.
   */
  approximationFactor: number;
}

interface ModelRule {
  family: string;
  pattern: RegExp;
  encoding: Encoding;
  contextWindow: number;
  approximationFactor: number;
}

const exact = (family: string, pattern: RegExp, encoding: Encoding, contextWindow: number): ModelRule => ({
  family,
  pattern,
  encoding,
  contextWindow,
  approximationFactor: 1,
});

const approximate = (family: string, pattern: RegExp, contextWindow: number, factor: number): ModelRule => ({
  family,
  pattern,
  encoding: 'o200k_base',
  contextWindow,
  approximationFactor: factor,
});

/**
 * First match wins, so more specific patterns come first. OpenAI windows follow OpenAI's model
 * pages; dated snapshots (`gpt-4o-2024-08-06`) match their family's pattern.
 *
 * Approximations: other vendors' tokenizers are not shipped on npm for offline use, so their counts
 * are o200k counts times a factor measured on English prose and code to err on the high side
 * (Claude's tokenizer yields ~10-20% more tokens than o200k; Llama 3 / Mistral / Gemini / Qwen are
 * close to cl100k, which yields up to ~10% more than o200k).
 */
const rules: ModelRule[] = [
  exact(
    'gpt-5',
    /^gpt-5(\.\d+)?(-(mini|nano|pro|codex|chat-latest)[\w.-]*)?(-\d{4}-\d{2}-\d{2})?$/,
    'o200k_base',
    400_000,
  ),
  exact('gpt-4.1', /^gpt-4\.1(-(mini|nano))?(-\d{4}-\d{2}-\d{2})?$/, 'o200k_base', 1_047_576),
  exact('gpt-4o', /^(gpt-4o|chatgpt-4o)([\w.-]*)$/, 'o200k_base', 128_000),
  exact('o-series', /^o1-mini(-\d{4}-\d{2}-\d{2})?$/, 'o200k_base', 128_000),
  exact('o-series', /^o[134](-(mini|pro|preview))?(-\d{4}-\d{2}-\d{2})?$/, 'o200k_base', 200_000),
  exact('gpt-oss', /^gpt-oss-(20b|120b)$/, 'o200k_base', 131_072),
  exact('gpt-4-turbo', /^gpt-4-(turbo|\d{4}-preview|vision-preview)([\w.-]*)$/, 'cl100k_base', 128_000),
  exact('gpt-4-32k', /^gpt-4-32k([\w.-]*)$/, 'cl100k_base', 32_768),
  exact('gpt-4', /^gpt-4(-\d{4})?$/, 'cl100k_base', 8_192),
  exact('gpt-3.5-turbo-16k', /^gpt-3\.5-turbo-16k([\w.-]*)$/, 'cl100k_base', 16_385),
  exact('gpt-3.5-turbo', /^gpt-3\.5-turbo(-\d{4})?$/, 'cl100k_base', 16_385),
  exact('openai-embedding', /^text-embedding-(ada-002|3-small|3-large)$/, 'cl100k_base', 8_191),
  approximate('claude', /^claude-/, 200_000, 1.2),
  approximate('gemini', /^gemini-/, 1_048_576, 1.1),
  approximate('llama', /^(meta-llama\/)?(llama|Llama)-?3/, 128_000, 1.1),
  approximate('mistral', /^(mistral|mixtral|codestral|ministral)/, 128_000, 1.15),
  approximate('qwen', /^qwen/i, 131_072, 1.1),
];

const cache = new Map<string, ModelInfo>();

/**
 * Resolves a model name. Unknown names are a ValidationError rather than a silent default,
 * because a wrong tokenizer or window would break the budget guarantee.
 */
export function resolveModel(name: string): ModelInfo {
  const cached = cache.get(name);
  if (cached) return cached;
  const rule = rules.find((candidate) => candidate.pattern.test(name));
  if (!rule) {
    throw new ValidationError(
      `Unknown model "${name}". Known families: ${[...new Set(rules.map((r) => r.family))].join(', ')}`,
      [{ path: ['model'], message: `Unknown model "${name}"` }],
    );
  }
  const info: ModelInfo = {
    name,
    family: rule.family,
    encoding: rule.encoding,
    contextWindow: rule.contextWindow,
    approximationFactor: rule.approximationFactor,
  };
  cache.set(name, info);
  return info;
}
