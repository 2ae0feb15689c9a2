import type { StoredMessage } from '../../core/schemas/message.js';
import { loadTokenCounter } from '../../core/tokens/token-counter.js';
import { amsModelWindows } from './ams-model-windows.js';

/** AMS summarizes once messages pass this share of the window. */
const SUMMARIZATION_THRESHOLD = 0.7;

/** The two `context_percentage_*` fields of a working-memory response. */
export interface ContextUsage {
  totalUsed: number;
  untilSummarization: number;
}

/** The window from the query: `context_window_max` wins over `model_name`; none → null (no usage). */
export function contextWindowOf(query: { model_name?: string; context_window_max?: number }): number | null {
  if (query.context_window_max !== undefined) return query.context_window_max;
  if (query.model_name !== undefined) return amsModelWindows[query.model_name] ?? null;
  return null;
}

/**
 * Counts messages as AMS does (`"<role>: <content>"`, cl100k) against `window`. With `truncate`
 * (GET), drops the oldest messages until the rest fit, always keeping the newest one; the stored
 * session is not touched. Percentages are capped at 100 and are 0 without messages.
 */
export async function fitContextWindow(
  messages: StoredMessage[],
  window: number,
  options: { truncate: boolean },
): Promise<{ messages: StoredMessage[]; usage: ContextUsage }> {
  const counter = await loadTokenCounter('cl100k_base');
  const counts = messages.map((message) => counter.count(`${message.role}: ${message.content}`));
  let total = counts.reduce((sum, count) => sum + count, 0);
  let first = 0;
  if (options.truncate) {
    while (total > window && first < messages.length - 1) total -= counts[first++] ?? 0;
  }
  const kept = first === 0 ? messages : messages.slice(first);
  const threshold = Math.floor(SUMMARIZATION_THRESHOLD * window);
  const percent = (limit: number) =>
    kept.length === 0 ? 0 : limit <= 0 ? 100 : Math.min(100, (100 * total) / limit);
  return { messages: kept, usage: { totalUsed: percent(window), untilSummarization: percent(threshold) } };
}
