import type { SessionNeighbors } from '../stores/memory-record-store.js';

/** A scored candidate and the conversation it belongs to. */
export interface ContextCandidate {
  id: string;
  score: number;
  /** The conversation it belongs to; null = no neighbours. */
  sessionId: string | null;
  /** Whether the turn asks a question (see `asksQuestion`): its reply is likely the turn after. */
  asks?: boolean;
}

export interface NeighborOptions {
  /** How many turns on each side receive context from a hit. */
  window: number;
  /** Share of a hit's score that its adjacent turns receive; halves with each further step. */
  weight: number;
  /** How many of the best candidates lend context (the rest are too weak to matter). */
  sources: number;
  /** Factor on what a turn that asks a question lends to the turns after it (its reply). */
  replyWeight: number;
}

/**
 * The candidates that lend context: the `sources` best with a session and a positive score (ties
 * by id, so the choice is deterministic).
 */
export function contextSources(
  candidates: readonly ContextCandidate[],
  options: NeighborOptions,
): ContextCandidate[] {
  if (options.window <= 0 || options.weight <= 0 || options.sources <= 0) return [];
  return candidates
    .filter((candidate) => candidate.sessionId !== null && candidate.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, options.sources);
}

/**
 * Conversational context: in a dialogue the answer often sits in the turn after the question that
 * names the topic ("What did you do at the picnic?" → "We played frisbee!"), or the other way round.
 * Each source lends `weight × 0.5^(distance − 1)` of its score to the turns up to `window` places
 * before and after it in its session (`neighbors`, from the store's `sessionNeighbors`), so a turn
 * that shares no words with the query can still rank, or enter the results, through its neighbour.
 * Returns the context each turn received, by id.
 */
export function addNeighborContext(
  sources: readonly ContextCandidate[],
  neighbors: readonly SessionNeighbors[],
  options: NeighborOptions,
): Map<string, number> {
  const context = new Map<string, number>();
  const adjacent = new Map(neighbors.map((entry) => [entry.id, entry]));
  for (const source of sources) {
    const entry = adjacent.get(source.id);
    if (!entry) continue;
    const forward = source.asks ? options.replyWeight : 1;
    for (let distance = 1; distance <= options.window; distance++) {
      const share = options.weight * 0.5 ** (distance - 1) * source.score;
      const before = entry.before[distance - 1];
      const after = entry.after[distance - 1];
      if (before !== undefined) context.set(before, (context.get(before) ?? 0) + share);
      if (after !== undefined) context.set(after, (context.get(after) ?? 0) + share * forward);
    }
  }
  return context;
}

/**
 * Whether a chat turn asks something: its last sentence ends in a question mark (a trailing
 * bracketed attachment note such as "[shared a photo: …]" and closing quotes are ignored).
 */
export function asksQuestion(text: string): boolean {
  return /[?？]["'”’)]*\s*$/.test(text.replace(/(?:\s*\[[^\]]*\])+\s*$/, ''));
}
