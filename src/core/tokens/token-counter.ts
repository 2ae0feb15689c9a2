import type { ToolCall } from '../schemas/message.js';
import { boundedPieces, MAX_PIECE_CHARS, MAX_RUN_CHARS, TOKENS_PER_CUT } from './bounded-pieces.js';
import type { Encoding, ModelInfo } from './model-registry.js';
import { memoizePieces } from './piece-memo.js';
import { tokensAtLeast } from './tokens-at-least.js';

/** Counts tokens of plain text in one encoding. */
export interface TokenCounter {
  readonly encoding: Encoding;
  count(text: string): number;
  /**
   * `count(text)` when that is at most `limit`; otherwise some number above `limit`, found by
   * counting only until the running count passed it: the cost follows `limit`, not the text. A
   * counter without it is asked `count` (`countUpTo` below).
   */
  countUpTo?(text: string, limit: number): number;
  /**
   * `count(text)` as steps: the same number, pausing (yielding) between the pieces it counts, so
   * a caller on the event loop can count a megabyte without holding it (`countSteps` below).
   */
  countSteps?(text: string): Generator<void, number>;
}

/** `counter.countSteps(text)` where the counter has it, else `counter.count(text)` in one step. */
export function* countSteps(counter: TokenCounter, text: string): Generator<void, number> {
  return counter.countSteps ? yield* counter.countSteps(text) : counter.count(text);
}

/**
 * `counter.countUpTo(text, limit)` where the counter has it, else `counter.count(text)`: the exact
 * count when it is at most `limit`, otherwise a number above `limit`.
 */
export function countUpTo(counter: TokenCounter, text: string, limit: number): number {
  return counter.countUpTo ? counter.countUpTo(text, limit) : counter.count(text);
}

/**
 * Chat-format overhead, as OpenAI's chat format charges it: every message costs 3 framing tokens
 * plus its role (1 token for each of our roles); every reply is primed with 3 tokens; a `name`
 * costs 1 token plus the name itself. Checked against gpt-tokenizer's encodeChat in the tests.
 */
export const MESSAGE_OVERHEAD_TOKENS = 4;
export const REPLY_PRIMING_TOKENS = 3;
export const NAME_OVERHEAD_TOKENS = 1;

const loaded = new Map<Encoding, Promise<TokenCounter>>();

/** Loads (once per process) the counter for an encoding; the first load takes a few hundred ms. */
export function loadTokenCounter(encoding: Encoding): Promise<TokenCounter> {
  let counter = loaded.get(encoding);
  if (!counter) {
    counter = importEncoding(encoding).then((countTokens) => boundedCounter(encoding, countTokens));
    loaded.set(encoding, counter);
  }
  return counter;
}

/**
 * A counter that hands `encode` only pieces whose runs are at most MAX_RUN_CHARS long, so its cost
 * is linear in the text's length. Text without such a run is counted exactly; each cut inside a
 * long run adds TOKENS_PER_CUT, which keeps the count at or above the exact one (docs/architecture.md,
 * "Budget decisions").
 */
export function boundedCounter(encoding: Encoding, encode: (text: string) => number): TokenCounter {
  // Pieces are found lazily, so a text far over a limit is never scanned whole.
  const countUpTo = (text: string, limit: number): number => {
    // Within both bounds a text is one piece: no split (and nothing allocated) for the usual
    // short message.
    if (text.length <= MAX_RUN_CHARS) return encode(text);
    // A text of several pieces whose word starts alone pass the limit is over it, whatever its
    // pieces encode to: a scan of ~1 ns a character, stopped at the limit, instead of encoding up
    // to the limit (a memory of 20,000 characters weighed for the little room a section has
    // left). No text has more word starts than characters, so only a limit below the length can
    // be passed. A one-piece text is encoded whole, as before: its count stays exact.
    if (text.length > MAX_PIECE_CHARS && limit < text.length) {
      const least = tokensAtLeast(text, limit);
      if (least > limit) return least;
    }
    let total = -TOKENS_PER_CUT;
    let pieces = 0;
    for (const piece of boundedPieces(text)) {
      if (pieces++ === 0 && piece.length === text.length) return encode(text);
      total += TOKENS_PER_CUT + encode(piece);
      if (total > limit) return total;
    }
    return total;
  };
  return {
    encoding,
    count: (text) => countUpTo(text, Number.POSITIVE_INFINITY),
    countUpTo,
    *countSteps(text) {
      if (text.length <= MAX_RUN_CHARS) return encode(text);
      let total = -TOKENS_PER_CUT;
      let pieces = 0;
      for (const piece of boundedPieces(text)) {
        if (pieces++ === 0 && piece.length === text.length) return encode(text);
        yield;
        total += TOKENS_PER_CUT + encode(piece);
      }
      return total;
    },
  };
}

async function importEncoding(encoding: Encoding): Promise<(text: string) => number> {
  // Special-token text inside user content is counted as plain text, never as control tokens.
  const options = { disallowedSpecial: new Set<string>() };
  // The encodings' own pre-tokenizer patterns, from the package's exported files.
  const { CL100K_TOKEN_SPLIT_REGEX, O200K_TOKEN_SPLIT_REGEX } = await import(
    'gpt-tokenizer/encodingParams/constants'
  );
  if (encoding === 'o200k_base') {
    const module = await import('gpt-tokenizer/encoding/o200k_base');
    return memoizePieces(O200K_TOKEN_SPLIT_REGEX, (text) => module.countTokens(text, options));
  }
  const module = await import('gpt-tokenizer/encoding/cl100k_base');
  return memoizePieces(CL100K_TOKEN_SPLIT_REGEX, (text) => module.countTokens(text, options));
}

/** The parts of a message whose size varies: what gets counted once and cached. */
export interface CountableMessage {
  content: string;
  name?: string | undefined;
  toolCalls?: ToolCall[] | undefined;
}

/** Content tokens of a message (content, name, tool calls), without the per-message overhead. */
export function countContentTokens(counter: TokenCounter, message: CountableMessage): number {
  let total = counter.count(message.content);
  if (message.name) total += NAME_OVERHEAD_TOKENS + counter.count(message.name);
  for (const call of message.toolCalls ?? []) {
    // id, name and arguments are what the model sees of a tool call.
    total +=
      counter.count(call.id) + counter.count(call.function.name) + counter.count(call.function.arguments);
  }
  return total;
}

/**
 * Counts like `counter.count`, but piece by piece (the same pieces the built-in counters use, so the
 * same number), awaiting `pause()` between pieces: counting a megabyte lets other work run meanwhile.
 */
export async function countInSlices(
  counter: TokenCounter,
  text: string,
  pause: () => Promise<unknown> | undefined,
): Promise<number> {
  if (text.length <= MAX_PIECE_CHARS) return counter.count(text);
  // Pieces are found lazily, so no step scans more than one piece of the text.
  let total = -TOKENS_PER_CUT;
  for (const piece of boundedPieces(text)) {
    await pause();
    total += TOKENS_PER_CUT + counter.count(piece);
  }
  return total;
}

/**
 * Whether a message is counted in one short step anyway (content of at most one piece, no tool
 * calls): `countContentTokensInSlices` would neither cut nor pause it.
 */
export function isShortMessage(message: CountableMessage): boolean {
  return message.content.length <= MAX_PIECE_CHARS && (message.toolCalls?.length ?? 0) === 0;
}

/** countContentTokens with countInSlices: the same number, pausing inside long texts. */
export async function countContentTokensInSlices(
  counter: TokenCounter,
  message: CountableMessage,
  pause: () => Promise<unknown> | undefined,
): Promise<number> {
  if (isShortMessage(message)) return countContentTokens(counter, message);
  let total = await countInSlices(counter, message.content, pause);
  if (message.name) total += NAME_OVERHEAD_TOKENS + counter.count(message.name);
  for (const call of message.toolCalls ?? []) {
    total +=
      counter.count(call.id) +
      counter.count(call.function.name) +
      (await countInSlices(counter, call.function.arguments, pause));
  }
  return total;
}

/**
 * Budget cost of a message from its cached content count: the model's approximation factor is
 * applied (rounded up) and the fixed overhead added. Pure arithmetic, no tokenizing.
 */
export function messageCost(contentTokens: number, model: ModelInfo): number {
  return Math.ceil(contentTokens * model.approximationFactor) + MESSAGE_OVERHEAD_TOKENS;
}
