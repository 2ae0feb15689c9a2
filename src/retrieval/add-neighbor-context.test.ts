import { describe, expect, it } from 'vitest';
import type { SessionNeighbors } from '../stores/memory-record-store.js';
import {
  addNeighborContext,
  asksQuestion,
  type ContextCandidate,
  contextSources,
} from './add-neighbor-context.js';

const options = { window: 2, weight: 0.5, sources: 3, replyWeight: 1 };
const candidate = (id: string, score: number, sessionId: string | null = 's1'): ContextCandidate => ({
  id,
  score,
  sessionId,
});
const around = (id: string, before: string[], after: string[]): SessionNeighbors => ({
  id,
  sessionId: 's1',
  before,
  after,
});

describe('contextSources', () => {
  it('picks the best candidates that have a session and a positive score, ties by id', () => {
    const candidates = [
      candidate('weak', 0.1),
      candidate('b', 1),
      candidate('a', 1),
      candidate('alone', 5, null),
      candidate('zero', 0),
    ];
    expect(contextSources(candidates, { ...options, sources: 2 }).map((source) => source.id)).toEqual([
      'a',
      'b',
    ]);
    expect(contextSources(candidates, options).map((source) => source.id)).toEqual(['a', 'b', 'weak']);
  });

  it('picks none when context is off', () => {
    const candidates = [candidate('a', 1)];
    expect(contextSources(candidates, { ...options, window: 0 })).toEqual([]);
    expect(contextSources(candidates, { ...options, weight: 0 })).toEqual([]);
  });
});

describe('addNeighborContext', () => {
  it('lends a source’s score to the turns around it, halving per step', () => {
    const context = addNeighborContext(
      [candidate('question', 1)],
      [around('question', ['before', 'long-before'], ['answer', 'later'])],
      options,
    );
    expect(Object.fromEntries(context)).toEqual({
      before: 0.5,
      'long-before': 0.25,
      answer: 0.5,
      later: 0.25,
    });
  });

  it('adds up several sources, stops at the window and at the session’s ends', () => {
    const context = addNeighborContext(
      [candidate('a', 1), candidate('c', 2)],
      [around('a', [], ['b', 'c', 'd']), around('c', ['b', 'a'], [])],
      { ...options, window: 1 },
    );
    // b sits between both sources; c and d are beyond a's window of 1, a is beyond c's.
    expect(Object.fromEntries(context)).toEqual({ b: 1.5 });
  });

  it('lends `replyWeight` times as much to the turns after a source that asks a question', () => {
    const context = addNeighborContext(
      [{ ...candidate('question', 1), asks: true }],
      [around('question', ['before'], ['reply', 'later'])],
      { ...options, replyWeight: 1.5 },
    );
    expect(Object.fromEntries(context)).toEqual({ before: 0.5, reply: 0.75, later: 0.375 });
  });

  it('ignores neighbours of ids that are not sources', () => {
    const context = addNeighborContext([candidate('a', 1)], [around('x', ['y'], ['z'])], options);
    expect(context.size).toBe(0);
  });
});

describe('asksQuestion', () => {
  it('tells a turn that ends in a question, ignoring attachment notes and closing quotes', () => {
    expect(asksQuestion('Ada: How was the picnic?')).toBe(true);
    expect(asksQuestion('Ada: Look! Do you like it? [shared a photo: a lake at dusk]')).toBe(true);
    expect(asksQuestion('Bob: She asked "why not?"')).toBe(true);
    expect(asksQuestion('Bob: 你好吗？')).toBe(true);
    expect(asksQuestion('Bob: Why? Because I said so.')).toBe(false);
    expect(asksQuestion('Bob: We played frisbee [is that ok?]')).toBe(false);
    expect(asksQuestion('')).toBe(false);
  });
});
