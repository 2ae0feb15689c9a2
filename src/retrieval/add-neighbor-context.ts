/** A scored candidate and where it sits in its conversation. */
export interface SequencedCandidate {
  id: string;
  score: number;
  /** The conversation it belongs to; null = no neighbours. */
  sessionId: string | null;
  /** Its creation time (ISO); the order within a session, ties by id. */
  createdAt: string;
}

export interface NeighborOptions {
  /** How many turns on each side receive context from a hit. */
  window: number;
  /** Share of a hit's score that its adjacent turns receive; halves with each further step. */
  weight: number;
  /** How many of the best candidates lend context (the rest are too weak to matter). */
  sources: number;
}

/**
 * Conversational context: in a dialogue the answer often sits in the turn after the question that
 * names the topic ("What did you do at the picnic?" → "We played frisbee!"), or the other way round.
 * The best `sources` candidates lend `weight × 0.5^(distance − 1)` of their score to the candidates
 * up to `window` turns before and after them in the same session, so a turn that shares no words with
 * the query can still rank through its neighbour. Neighbours are found among the candidates (ordered
 * by creation time within each session, ties by id), not fetched: a turn that is not a candidate is
 * skipped over, so context reaches the nearest candidates on each side. Returns the context each
 * candidate received, by id.
 */
export function addNeighborContext(
  candidates: readonly SequencedCandidate[],
  options: NeighborOptions,
): Map<string, number> {
  const context = new Map<string, number>();
  if (options.window <= 0 || options.weight <= 0 || options.sources <= 0) return context;
  const sessions = new Map<string, SequencedCandidate[]>();
  for (const candidate of candidates) {
    if (candidate.sessionId === null) continue;
    const turns = sessions.get(candidate.sessionId) ?? [];
    sessions.set(candidate.sessionId, turns);
    turns.push(candidate);
  }
  const time = new Map(candidates.map((candidate) => [candidate.id, Date.parse(candidate.createdAt)]));
  const position = new Map<string, number>();
  for (const turns of sessions.values()) {
    turns.sort(
      (a, b) => (time.get(a.id) ?? 0) - (time.get(b.id) ?? 0) || (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
    );
    turns.forEach((turn, index) => {
      position.set(turn.id, index);
    });
  }
  const sources = [...candidates]
    .filter((candidate) => candidate.sessionId !== null && candidate.score > 0)
    .sort((a, b) => b.score - a.score || (a.id < b.id ? -1 : 1))
    .slice(0, options.sources);
  for (const source of sources) {
    const turns = sessions.get(source.sessionId as string) ?? [];
    const at = position.get(source.id) ?? 0;
    for (let distance = 1; distance <= options.window; distance++) {
      const share = options.weight * 0.5 ** (distance - 1) * source.score;
      for (const neighbor of [turns[at - distance], turns[at + distance]]) {
        if (neighbor) context.set(neighbor.id, (context.get(neighbor.id) ?? 0) + share);
      }
    }
  }
  return context;
}
