import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import { recencyBlendSchema, recencyScore } from '../../retrieval/recency-blend.js';
import type { ForgetPolicy } from './long-term-memory-schemas.js';

const DAY_MS = 86_400_000;
const budgetRanking = recencyBlendSchema.parse({});

/**
 * Which candidates a forget policy deletes (§4.13). Pinned records, `pinnedIds` and types outside
 * the allowlist are never eligible. With both age limits: older than max_age × multiplier, or older
 * than max_age and inactive longer than max_inactive; with one: that limit exceeded. Then, of the
 * eligible records left, all but the `budget` most recent (AMS's recency score) go too.
 */
export function selectForgotten(
  candidates: readonly MemoryRecord[],
  policy: ForgetPolicy,
  pinnedIds: ReadonlySet<string>,
  now: Date,
): string[] {
  const days = (iso: string) => (now.getTime() - Date.parse(iso)) / DAY_MS;
  const allow = policy.memory_type_allowlist ? new Set(policy.memory_type_allowlist) : null;
  const eligible = candidates.filter(
    (memory) =>
      !memory.pinned && !pinnedIds.has(memory.id) && (allow === null || allow.has(memory.memoryType)),
  );
  const maxAge = policy.max_age_days ?? null;
  const maxInactive = policy.max_inactive_days ?? null;
  const multiplier = policy.hard_age_multiplier ?? 12;
  const tooOld = (memory: MemoryRecord) => {
    const age = days(memory.createdAt);
    const inactive = days(memory.lastAccessed);
    if (maxAge !== null && maxInactive !== null) {
      return age > maxAge * multiplier || (age > maxAge && inactive > maxInactive);
    }
    if (maxAge !== null) return age > maxAge;
    if (maxInactive !== null) return inactive > maxInactive;
    return false;
  };
  const forgotten = eligible.filter(tooOld);
  const budget = policy.budget ?? null;
  if (budget !== null) {
    const gone = new Set(forgotten);
    const kept = eligible
      .filter((memory) => !gone.has(memory))
      .map((memory) => ({ memory, score: recencyScore(memory, budgetRanking, now) }))
      .sort((a, b) => b.score - a.score || (a.memory.id < b.memory.id ? -1 : 1));
    forgotten.push(...kept.slice(budget).map(({ memory }) => memory));
  }
  return forgotten.map((memory) => memory.id);
}
