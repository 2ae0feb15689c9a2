import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cosineDistance, vectorNorm } from '../memory-rules.js';
import { VectorSpace } from './vector-space.js';

type Owner = { id: string; keep: boolean };

describe('vector space', () => {
  it('finds exactly the nearest accepted vectors through adds, removals and slot reuse', () => {
    const vector = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 3, maxLength: 3 });
    const operation = fc.oneof(
      fc.record({ add: vector, keep: fc.boolean() }),
      fc.record({ remove: fc.nat({ max: 40 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(operation, { maxLength: 120 }),
        vector,
        fc.integer({ min: 0, max: 8 }),
        (operations, query, limit) => {
          const space = new VectorSpace<Owner>(3);
          const live = new Map<number, { owner: Owner; vector: number[] }>();
          operations.forEach((operation, index) => {
            if ('add' in operation) {
              const owner = { id: `v${String(index).padStart(3, '0')}`, keep: operation.keep };
              live.set(space.add(owner, Float32Array.from(operation.add)), { owner, vector: operation.add });
            } else if (live.has(operation.remove)) {
              space.remove(operation.remove);
              live.delete(operation.remove);
            }
          });
          const expected = [...live.values()]
            .filter(({ owner }) => owner.keep)
            .map(({ owner, vector: stored }) => {
              const dot = stored.reduce((sum, value, axis) => sum + value * (query[axis] ?? 0), 0);
              return { id: owner.id, distance: cosineDistance(dot, vectorNorm(stored), vectorNorm(query)) };
            })
            .sort((left, right) => left.distance - right.distance || (left.id < right.id ? -1 : 1))
            .slice(0, limit);
          const found = space.nearest(Float32Array.from(query), (owner) => owner.keep, limit);
          // Equal distances may come out in either order after rounding, so compare distances, and
          // check each hit is a kept vector reported at its own distance.
          expect(found.map((hit) => hit.distance)).toEqual(
            expected.map((hit) => expect.closeTo(hit.distance, 9)),
          );
          const truth = new Map(expected.map((hit) => [hit.id, hit.distance]));
          for (const hit of found) {
            const kept = [...live.values()].find(({ owner }) => owner.id === hit.id);
            expect(kept?.owner.keep).toBe(true);
            if (truth.has(hit.id)) expect(hit.distance).toBeCloseTo(truth.get(hit.id) ?? 0, 9);
          }
          expect(new Set(found.map((hit) => hit.id)).size).toBe(found.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('grows past its initial capacity and keeps every vector', () => {
    const space = new VectorSpace<Owner>(2);
    for (let index = 0; index < 1_000; index += 1) {
      space.add({ id: `v${String(index).padStart(4, '0')}`, keep: true }, Float32Array.of(1, index));
    }
    const hits = space.nearest(Float32Array.of(0, 1), () => true, 1_000);
    expect(hits).toHaveLength(1_000);
    expect(hits[0]?.id).toBe('v0999');
    expect(hits.at(-1)?.id).toBe('v0000');
  });
});
