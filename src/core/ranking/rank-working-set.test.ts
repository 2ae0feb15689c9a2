import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { rankWorkingSet, type WorkingSetCandidate } from './rank-working-set.js';

const now = new Date('2026-06-01T00:00:00Z');
const candidate = (id: string, overrides: Partial<WorkingSetCandidate> = {}): WorkingSetCandidate => ({
  id,
  similarity: 0.5,
  salience: 0.5,
  confidence: 0.9,
  createdAt: '2026-05-31T00:00:00Z',
  lastAccessed: null,
  supersededBy: null,
  validTo: null,
  memoryType: 'semantic',
  topics: ['travel'],
  ...overrides,
});

describe('rankWorkingSet', () => {
  it('ranks by weighted similarity, decayed salience and confidence, returning every component', () => {
    const set = rankWorkingSet(
      [candidate('low', { similarity: 0.2 }), candidate('high', { similarity: 0.9 })],
      { now },
    );
    expect(set.items.map((item) => item.id)).toEqual(['high', 'low']);
    const components = set.items[0]?.components;
    expect(components?.decay).toBeCloseTo(0.5 ** (1 / 30));
    expect(set.items[0]?.score).toBeCloseTo(0.6 * 0.9 + 0.25 * 0.5 * (components?.decay ?? 0) + 0.15 * 0.9);
  });

  it('decays salience with time since last access', () => {
    const set = rankWorkingSet(
      [
        candidate('stale', { salience: 0.9, lastAccessed: '2025-06-01T00:00:00Z' }),
        candidate('fresh', { salience: 0.9, lastAccessed: '2026-05-31T00:00:00Z' }),
      ],
      { now },
    );
    // The stale memory ranks lower but is not dropped: decay affects rank, not inclusion.
    expect(set.items.map((item) => item.id)).toEqual(['fresh', 'stale']);
  });

  it('keeps only the latest valid version, honours pins and removals, and explains exclusions', () => {
    const set = rankWorkingSet(
      [
        candidate('v1', { supersededBy: 'v2' }),
        candidate('v2'),
        candidate('closed', { validTo: '2026-01-01T00:00:00Z' }),
        candidate('dull', { salience: 0.01 }),
        candidate('unsure', { confidence: 0.1 }),
        candidate('pinned-but-dull', { salience: 0, similarity: 0 }),
        candidate('removed', { similarity: 1 }),
      ],
      { now, pins: new Set(['pinned-but-dull']), removals: new Set(['removed']) },
    );
    expect(set.items.map((item) => [item.id, item.pinned])).toEqual([
      ['pinned-but-dull', true],
      ['v2', false],
    ]);
    expect(Object.fromEntries(set.excluded.map((entry) => [entry.id, entry.reason]))).toEqual({
      v1: 'superseded',
      closed: 'expired_version',
      dull: 'low_salience',
      unsure: 'low_confidence',
      removed: 'removed_by_user',
    });
  });

  it('groups into packs by topic or memory type', () => {
    const candidates = [
      candidate('a', { topics: ['food'] }),
      candidate('b', { topics: [] }),
      candidate('c', { topics: ['food'], memoryType: 'episodic' }),
    ];
    expect(
      rankWorkingSet(candidates, { now })
        .packs.map((pack) => pack.key)
        .sort(),
    ).toEqual(['food', 'general']);
    expect(
      rankWorkingSet(candidates, { now, packBy: 'memory_type' })
        .packs.map((pack) => pack.key)
        .sort(),
    ).toEqual(['episodic', 'semantic']);
  });

  it('property: capped at the limit plus pins, never a removed or superseded item, sorted', () => {
    const arbitraryCandidate = fc.record({
      id: fc.integer({ min: 0, max: 40 }).map(String),
      similarity: fc.double({ min: 0, max: 1, noNaN: true }),
      salience: fc.double({ min: 0, max: 1, noNaN: true }),
      confidence: fc.double({ min: 0, max: 1, noNaN: true }),
      createdAt: fc.constant('2026-01-01T00:00:00Z'),
      lastAccessed: fc.constant(null),
      supersededBy: fc.option(fc.constant('newer')),
      validTo: fc.constant(null),
      memoryType: fc.constant('semantic'),
      topics: fc.constant<string[]>([]),
    });
    fc.assert(
      fc.property(
        fc.array(arbitraryCandidate, { maxLength: 60 }),
        fc.integer({ min: 1, max: 15 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }).map(String), { maxLength: 5 }),
        fc.uniqueArray(fc.integer({ min: 0, max: 40 }).map(String), { maxLength: 5 }),
        (candidates, limit, pins, removals) => {
          const set = rankWorkingSet(candidates, {
            now,
            limit,
            pins: new Set(pins),
            removals: new Set(removals),
          });
          const pinnedCount = set.items.filter((item) => item.pinned).length;
          expect(set.items.length).toBeLessThanOrEqual(Math.max(limit, pinnedCount));
          for (const item of set.items) {
            expect(removals).not.toContain(item.id);
            if (!item.pinned) {
              const source = candidates.find((entry) => entry.id === item.id);
              expect(source?.supersededBy).toBeNull();
            }
          }
          const unpinned = set.items.filter((item) => !item.pinned).map((item) => item.score);
          expect(unpinned).toEqual([...unpinned].sort((a, b) => b - a));
        },
      ),
    );
  });
});
