import { describe, expect, it } from 'vitest';
import { addNeighborContext, type SequencedCandidate } from './add-neighbor-context.js';

const turn = (id: string, second: number, score: number, sessionId: string | null = 's1') =>
  ({
    id,
    score,
    sessionId,
    createdAt: new Date(Date.UTC(2024, 0, 1, 12, 0, second)).toISOString(),
  }) satisfies SequencedCandidate;

describe('addNeighborContext', () => {
  it('lends a hit’s score to the turns around it in its session, halving per step', () => {
    const candidates = [
      turn('question', 1, 1),
      turn('answer', 2, 0),
      turn('later', 3, 0),
      turn('much-later', 4, 0),
      turn('before', 0, 0),
      turn('elsewhere', 2, 0, 's2'),
      turn('unsessioned', 2, 0, null),
    ];
    const context = addNeighborContext(candidates, { window: 2, weight: 0.5, sources: 10 });
    expect(Object.fromEntries(context)).toEqual({ before: 0.5, answer: 0.5, later: 0.25 });
  });

  it('orders by creation time (ties by id), adds up several sources, and can be turned off', () => {
    const candidates = [turn('b', 5, 0), turn('a', 5, 1), turn('c', 9, 1)];
    const context = addNeighborContext(candidates, { window: 1, weight: 0.5, sources: 10 });
    // Order a, b, c: b sits between both hits.
    expect(context.get('b')).toBe(1);
    expect(context.has('a')).toBe(false);
    expect(addNeighborContext(candidates, { window: 1, weight: 0.5, sources: 1 }).get('b')).toBe(0.5);
    expect(addNeighborContext(candidates, { window: 0, weight: 0.5, sources: 10 }).size).toBe(0);
  });
});
