import type { TokenCounter } from './token-counter.js';

/**
 * Wraps a counter with a bounded memo for long texts. System prompts (and often rendered
 * sections) repeat every turn; hashing a string is far cheaper than tokenizing it. Short texts
 * are counted directly: for them the memo would cost more than it saves.
 */
export function memoizeCounter(
  counter: TokenCounter,
  options: { maxEntries?: number; minLength?: number } = {},
): TokenCounter {
  const maxEntries = options.maxEntries ?? 512;
  const minLength = options.minLength ?? 256;
  const memo = new Map<string, number>();
  return {
    encoding: counter.encoding,
    count(text) {
      if (text.length < minLength) return counter.count(text);
      const known = memo.get(text);
      if (known !== undefined) return known;
      const counted = counter.count(text);
      // Evict the oldest entry (Map keeps insertion order): a simple, bounded FIFO.
      if (memo.size >= maxEntries) memo.delete(memo.keys().next().value as string);
      memo.set(text, counted);
      return counted;
    },
  };
}
