import { z } from 'zod';

const DAY_MS = 86_400_000;
const MIN_HALF_LIFE_DAYS = 0.001;

/**
 * AMS's recency re-rank (agent-memory-server 0.15): relevance and recency blended linearly, so an
 * AMS client sees the same ordering from engram. Defaults are AMS's.
 */
export const recencyBlendSchema = z.object({
  relevanceWeight: z.number().min(0).max(10).default(0.8),
  recencyWeight: z.number().min(0).max(10).default(0.2),
  /** Weight of the decay since last access inside the recency term. */
  freshnessWeight: z.number().min(0).max(10).default(0.6),
  /** Weight of the decay since creation inside the recency term. */
  noveltyWeight: z.number().min(0).max(10).default(0.4),
  halfLifeLastAccessDays: z.number().min(0).max(36_500).default(7),
  halfLifeCreatedDays: z.number().min(0).max(36_500).default(30),
});
export type RecencyBlend = z.output<typeof recencyBlendSchema>;
export type RecencyBlendInput = z.input<typeof recencyBlendSchema>;

const decay = (since: string, halfLifeDays: number, now: Date) =>
  0.5 **
  (Math.max(0, (now.getTime() - Date.parse(since)) / DAY_MS) / Math.max(MIN_HALF_LIFE_DAYS, halfLifeDays));

/**
 * clamp01(freshness × 0.5^(days since lastAccessed / half-life) + novelty × 0.5^(days since
 * createdAt / half-life)); half-lives are floored at 0.001 days and ages at 0.
 */
export function recencyScore(
  memory: { lastAccessed: string; createdAt: string },
  blend: RecencyBlend,
  now: Date,
): number {
  const score =
    blend.freshnessWeight * decay(memory.lastAccessed, blend.halfLifeLastAccessDays, now) +
    blend.noveltyWeight * decay(memory.createdAt, blend.halfLifeCreatedDays, now);
  return Math.min(1, Math.max(0, score));
}

/** relevanceWeight × similarity + recencyWeight × recencyScore: what the re-rank sorts by. */
export function blendedScore(
  similarity: number,
  memory: { lastAccessed: string; createdAt: string },
  blend: RecencyBlend,
  now: Date,
): number {
  return blend.relevanceWeight * similarity + blend.recencyWeight * recencyScore(memory, blend, now);
}
