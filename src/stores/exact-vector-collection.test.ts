import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../core/schemas/memory-record.js';
import { dotProduct, unitDistance } from '../core/vectors/dot-product.js';
import { ExactVectorCollection } from './exact-vector-collection.js';
import { compareCodePoints } from './memory/list-order.js';
import { compileStableMemoryFilter } from './memory-filter.js';

const DIMENSIONS = 5;

interface Row {
  id: string;
  userId: string | null;
  agentId: string | null;
  memoryType: 'semantic' | 'episodic';
  documentId: string | null;
  validTo: string | null;
}

/** The unit vector the collection keeps, computed the same way (float32 components). */
function unit(vector: number[]): Float32Array {
  const raw = Float32Array.from(vector);
  const norm = Math.sqrt(dotProduct(raw, 0, raw, 0, raw.length));
  return raw.map((value) => (norm > 0 ? value / norm : 0));
}

/** Every accepted live row by distance, ties by id: what an exact scan in SQL answers. */
function bruteForce(
  live: Map<number, { row: Row; vector: number[] }>,
  query: number[],
  limit: number,
  filter: MemoryFilter,
) {
  const accept = compileStableMemoryFilter(filter);
  const target = unit(query);
  return [...live.values()]
    .filter(({ row }) => accept(row as never))
    .map(({ row, vector }) => ({
      id: row.id,
      distance: unitDistance(dotProduct(unit(vector), 0, target, 0, DIMENSIONS)),
    }))
    .sort((left, right) => left.distance - right.distance || compareCodePoints(left.id, right.id))
    .slice(0, limit);
}

const filters: MemoryFilter[] = [
  {},
  { userId: { eq: 'u1' } },
  { userId: { eq: 'u2' }, memoryType: { eq: 'episodic' } },
  { memoryType: { any: ['semantic', 'episodic'] } },
  { memoryType: { eq: 'semantic' } },
  { agentId: { any: ['a1', 'a2'] } },
] as MemoryFilter[];

describe('exact vector collection', () => {
  it('answers what a brute-force scan answers, through growth, replacements, deletes and kept filter answers', () => {
    const vector = fc.array(fc.integer({ min: -3, max: 3 }), {
      minLength: DIMENSIONS,
      maxLength: DIMENSIONS,
    });
    const operation = fc.oneof(
      {
        weight: 4,
        arbitrary: fc.record({
          set: fc.nat({ max: 700 }),
          vector,
          user: fc.nat({ max: 7 }),
          agent: fc.nat({ max: 3 }),
          episodic: fc.boolean(),
          closed: fc.boolean(),
        }),
      },
      { weight: 1, arbitrary: fc.record({ remove: fc.nat({ max: 700 }) }) },
      {
        weight: 1,
        arbitrary: fc.record({
          search: fc.nat({ max: filters.length - 1 }),
          query: vector,
          limit: fc.integer({ min: 0, max: 12 }),
        }),
      },
    );
    fc.assert(
      fc.property(
        fc.array(operation, { minLength: 400, maxLength: 900 }),
        fc.boolean(),
        (operations, screened) => {
          // Screened by int8 codes from the first row on, or never (the plain exact scan).
          const collection = new ExactVectorCollection<Row>(
            DIMENSIONS,
            screened ? 0 : Number.POSITIVE_INFINITY,
          );
          const live = new Map<number, { row: Row; vector: number[] }>();
          for (const step of operations) {
            if ('set' in step) {
              const row: Row = {
                id: `m${String(step.set).padStart(4, '0')}`,
                userId: `u${step.user}`,
                agentId: step.agent === 0 ? null : `a${step.agent}`,
                memoryType: step.episodic ? 'episodic' : 'semantic',
                documentId: null,
                validTo: step.closed ? '2026-01-01T00:00:00.000Z' : null,
              };
              collection.set(step.set, row, Float32Array.from(step.vector));
              live.set(step.set, { row, vector: step.vector });
            } else if ('remove' in step) {
              expect(collection.delete(step.remove)).toBe(live.delete(step.remove));
            } else {
              const filter = filters[step.search] as MemoryFilter;
              const accept = compileStableMemoryFilter(filter);
              const found = collection.nearestRows(
                Float32Array.from(step.query),
                step.limit,
                (row) => accept(row as never),
                filter,
              );
              expect(found.map(({ row, distance }) => ({ id: row.id, distance }))).toEqual(
                bruteForce(live, step.query, step.limit, filter),
              );
            }
          }
          expect(collection.size).toBe(live.size);
        },
      ),
      { numRuns: 100 },
    );
  });

  it('asks a kept filter again about a row whose fields changed under the same key', () => {
    const collection = new ExactVectorCollection<Row>(2);
    const row = (userId: string): Row => ({
      id: 'm1',
      userId,
      agentId: null,
      memoryType: 'semantic',
      documentId: null,
      validTo: null,
    });
    for (let key = 2; key < 40; key += 1) {
      collection.set(key, { ...row('u9'), id: `m${key}` }, Float32Array.of(1, key));
    }
    const filter = { userId: { eq: 'u1' } } as MemoryFilter;
    const accept = compileStableMemoryFilter(filter);
    const search = () =>
      collection
        .nearestRows(Float32Array.of(1, 0), 5, (found) => accept(found as never), filter)
        .map((hit) => hit.row.id);
    collection.set(1, row('u2'), Float32Array.of(1, 0));
    expect(search()).toEqual([]);
    collection.set(1, row('u1'), Float32Array.of(1, 0));
    expect(search()).toEqual(['m1']);
  });

  it('keeps zero vectors at distance 1 and refuses a vector of another dimension count', () => {
    const collection = new ExactVectorCollection<Row>(3);
    const row: Row = {
      id: 'zero',
      userId: null,
      agentId: null,
      memoryType: 'semantic',
      documentId: null,
      validTo: null,
    };
    collection.set(7, row, new Float32Array(3));
    expect(collection.nearestRows(Float32Array.of(1, 0, 0), 3, () => true)).toEqual([{ row, distance: 1 }]);
    expect(() => collection.set(8, row, new Float32Array(4))).toThrow(/4 dimensions in a collection of 3/);
  });
});
