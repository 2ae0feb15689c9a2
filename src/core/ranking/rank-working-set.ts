import { z } from 'zod';

/** A long-term memory as the working set sees it: its search similarity plus its own scores. */
export interface WorkingSetCandidate {
  id: string;
  /** Similarity to the query in [0, 1] (from hybrid search). */
  similarity: number;
  salience: number;
  confidence: number;
  createdAt: string;
  lastAccessed: string | null;
  supersededBy: string | null;
  validTo: string | null;
  memoryType: string;
  topics: string[];
}

export const workingSetOptionsSchema = z.object({
  limit: z.number().int().positive().max(1_000).default(10),
  minSalience: z.number().min(0).max(1).default(0.1),
  minConfidence: z.number().min(0).max(1).default(0.3),
  weights: z
    .object({
      similarity: z.number().nonnegative().default(0.6),
      salience: z.number().nonnegative().default(0.25),
      confidence: z.number().nonnegative().default(0.15),
    })
    .default({ similarity: 0.6, salience: 0.25, confidence: 0.15 }),
  /** Salience halves after this many days without access. */
  salienceHalfLifeDays: z.number().positive().max(36_500).default(30),
  packBy: z.enum(['topic', 'memory_type']).default('topic'),
});
export type WorkingSetOptions = z.input<typeof workingSetOptionsSchema>;

/** Every part of an item's score, so an inspector can show why it ranks where it does. */
export interface ScoreComponents {
  similarity: number;
  salience: number;
  /** Multiplier in (0, 1] from time since last access. */
  decay: number;
  decayedSalience: number;
  confidence: number;
  weights: { similarity: number; salience: number; confidence: number };
}

export interface WorkingSetItem {
  id: string;
  score: number;
  components: ScoreComponents;
  pinned: boolean;
  pack: string;
}

export type WorkingSetExclusion =
  | 'removed_by_user'
  | 'superseded'
  | 'expired_version'
  | 'low_salience'
  | 'low_confidence'
  | 'over_limit';

export interface WorkingSet {
  items: WorkingSetItem[];
  packs: { key: string; ids: string[] }[];
  excluded: { id: string; reason: WorkingSetExclusion; score?: number }[];
}

const DAY_MS = 86_400_000;

/**
 * Ranks candidates into the working set: removals never, pins always (first, beyond the cap if
 * need be); superseded or closed versions out; low salience or confidence out; the rest by
 * weighted similarity + decayed salience + confidence, capped at `limit`, grouped into packs.
 */
export function rankWorkingSet(
  candidates: readonly WorkingSetCandidate[],
  options: WorkingSetOptions & { pins?: ReadonlySet<string>; removals?: ReadonlySet<string>; now: Date },
): WorkingSet {
  const settings = workingSetOptionsSchema.parse(options);
  const pins = options.pins ?? new Set<string>();
  const removals = options.removals ?? new Set<string>();
  const now = options.now.getTime();
  const excluded: WorkingSet['excluded'] = [];
  const pinned: WorkingSetItem[] = [];
  const ranked: WorkingSetItem[] = [];
  const seen = new Set<string>();

  for (const candidate of candidates) {
    if (seen.has(candidate.id)) continue;
    seen.add(candidate.id);
    const item = score(candidate, settings, now);
    if (removals.has(candidate.id)) excluded.push({ id: candidate.id, reason: 'removed_by_user' });
    else if (pins.has(candidate.id)) pinned.push({ ...item, pinned: true });
    else if (candidate.supersededBy) excluded.push({ id: candidate.id, reason: 'superseded' });
    else if (candidate.validTo && Date.parse(candidate.validTo) <= now) {
      excluded.push({ id: candidate.id, reason: 'expired_version' });
    } else if (candidate.salience < settings.minSalience) {
      // Intrinsic salience decides inclusion; decay only lowers the rank of long-unused memories,
      // so an old but relevant fact still reaches the context.
      excluded.push({ id: candidate.id, reason: 'low_salience', score: item.score });
    } else if (candidate.confidence < settings.minConfidence) {
      excluded.push({ id: candidate.id, reason: 'low_confidence', score: item.score });
    } else ranked.push(item);
  }

  ranked.sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1));
  const room = Math.max(0, settings.limit - pinned.length);
  for (const item of ranked.slice(room))
    excluded.push({ id: item.id, reason: 'over_limit', score: item.score });
  const items = [...pinned, ...ranked.slice(0, room)];

  const packs = new Map<string, string[]>();
  for (const item of items) {
    const ids = packs.get(item.pack) ?? [];
    ids.push(item.id);
    packs.set(item.pack, ids);
  }
  return { items, packs: [...packs].map(([key, ids]) => ({ key, ids })), excluded };
}

function score(
  candidate: WorkingSetCandidate,
  settings: z.output<typeof workingSetOptionsSchema>,
  now: number,
): WorkingSetItem {
  const lastTouched = Date.parse(candidate.lastAccessed ?? candidate.createdAt);
  const ageDays = Math.max(0, (now - lastTouched) / DAY_MS);
  const decay = 0.5 ** (ageDays / settings.salienceHalfLifeDays);
  const decayedSalience = candidate.salience * decay;
  const { weights } = settings;
  const total = weights.similarity + weights.salience + weights.confidence || 1;
  const value =
    (weights.similarity * candidate.similarity +
      weights.salience * decayedSalience +
      weights.confidence * candidate.confidence) /
    total;
  return {
    id: candidate.id,
    score: value,
    components: {
      similarity: candidate.similarity,
      salience: candidate.salience,
      decay,
      decayedSalience,
      confidence: candidate.confidence,
      weights,
    },
    pinned: false,
    pack: settings.packBy === 'topic' ? (candidate.topics[0] ?? 'general') : candidate.memoryType,
  };
}
