import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dotProduct, unitDistance, unitVector } from './dot-product.js';
import { IvfIndex } from './ivf-index.js';
import type { Neighbour } from './nearest-heap.js';
import type { PackedVectors } from './packed-vectors.js';
import { seededRandom } from './seeded-random.js';

const gaussian = (random: () => number) =>
  Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());

/** `count` vectors around `clusters` random centres, each coordinate with noise of `spread` / √d. */
function clusteredVectors(count: number, dimensions: number, clusters: number, seed: number): Float32Array[] {
  const random = seededRandom(seed);
  const centres = Array.from({ length: clusters }, () =>
    unitVector(Float32Array.from({ length: dimensions }, () => gaussian(random))),
  );
  const spread = 0.7 / Math.sqrt(dimensions);
  return Array.from({ length: count }, () => {
    const centre = centres[Math.floor(random() * clusters)] as Float32Array;
    return centre.map((value) => value + gaussian(random) * spread);
  });
}

/** Brute force: every accepted vector by exact cosine distance, ties by key. */
function exactNearest(
  vectors: Map<number, Float32Array>,
  query: Float32Array,
  limit: number,
  accept: (key: number) => boolean = () => true,
): Neighbour[] {
  const unit = unitVector(query);
  return [...vectors]
    .filter(([key]) => accept(key))
    .map(([key, vector]) => {
      const norm = Math.sqrt(dotProduct(vector, 0, vector, 0, vector.length));
      return {
        key,
        distance: norm === 0 ? 1 : unitDistance(dotProduct(vector, 0, unit, 0, unit.length) / norm),
      };
    })
    .sort((left, right) => left.distance - right.distance || left.key - right.key)
    .slice(0, limit);
}

const recall = (found: Neighbour[], truth: Neighbour[]): number => {
  const wanted = new Set(truth.map((hit) => hit.key));
  return found.filter((hit) => wanted.has(hit.key)).length / truth.length;
};

describe('IvfIndex', () => {
  it('is exact below its threshold: same keys, distances and tie order as brute force', () => {
    const random = seededRandom(7);
    const vectors = new Map<number, Float32Array>();
    const index = new IvfIndex(8);
    for (let key = 0; key < 600; key += 1) {
      // Few distinct values, so that equal distances (and zero vectors) occur.
      const vector = Float32Array.from({ length: 8 }, () => Math.floor(random() * 3) - 1);
      vectors.set(key, vector);
      index.add(key, vector);
    }
    for (let query = 0; query < 20; query += 1) {
      const vector = Float32Array.from({ length: 8 }, () => Math.floor(random() * 5) - 2);
      const accept = (key: number) => key % 3 !== query % 3;
      const found = index.search(vector, 25, { accept });
      const expected = exactNearest(vectors, vector, 25, accept);
      expect(found.map((hit) => hit.key)).toEqual(expected.map((hit) => hit.key));
      for (const [rank, hit] of found.entries()) {
        expect(hit.distance).toBeCloseTo(expected[rank]?.distance ?? -1, 6);
      }
    }
    expect(index.layout).toEqual({ cells: 1, trainedSize: 0, arena: false });
  });

  it('finds at least 95% of the exact 10 nearest on clustered data while scanning a small fraction', () => {
    const vectors = clusteredVectors(20_000, 32, 150, 11);
    const index = new IvfIndex(32);
    for (const [key, vector] of vectors.entries()) index.add(key, vector);
    const stored = new Map(vectors.map((vector, key) => [key, vector]));
    const queries = clusteredVectors(40, 32, 150, 11).map((vector) => vector.map((value) => value * 1.01));
    let found = 0;
    let scanned = 0;
    for (const query of queries) {
      const truth = exactNearest(stored, query, 10);
      found += recall(index.search(query, 10), truth);
      scanned += index.lastScanned;
    }
    expect(index.layout.trainedSize).toBe(20_000);
    expect(found / queries.length).toBeGreaterThanOrEqual(0.95);
    expect(scanned / queries.length / vectors.length).toBeLessThan(0.15);
  });

  it('keeps every vector findable through adds, replacements, removals and retraining', () => {
    const vectors = clusteredVectors(12_000, 16, 60, 3);
    const index = new IvfIndex(16, { exactThreshold: 1_000 });
    const stored = new Map<number, Float32Array>();
    const put = (key: number, vector: Float32Array) => {
      index.add(key, vector);
      stored.set(key, vector);
    };
    for (let key = 0; key < 2_000; key += 1) put(key, vectors[key] as Float32Array);
    index.search(vectors[0] as Float32Array, 1);
    expect(index.layout.trainedSize).toBe(2_000);
    for (let key = 2_000; key < 5_000; key += 1) put(key, vectors[key] as Float32Array);
    for (let key = 0; key < 5_000; key += 7) {
      expect(index.remove(key)).toBe(true);
      stored.delete(key);
    }
    expect(index.remove(0)).toBe(false);
    // Replacing moves a key to the cell of its new vector.
    for (let key = 1; key < 5_000; key += 11) put(key, vectors[7_000 + key] as Float32Array);
    expect(index.size).toBe(stored.size);
    expect(index.search(vectors[1] as Float32Array, 1)).toHaveLength(1);
    expect(index.layout.trainedSize).toBe(stored.size); // grew past twice its training size: retrained
    for (const [key, vector] of stored) {
      if (key % 13 !== 0) continue;
      const [nearest] = index.search(vector, 1, {
        accept: (candidate) => candidate === key || !stored.has(candidate),
      });
      expect(nearest?.key).toBe(key);
      expect(nearest?.distance).toBeCloseTo(0, 5);
    }
    const query = vectors[11_000] as Float32Array;
    expect(index.search(query, 50, { exact: true })).toEqual(
      exactNearest(stored, query, 50).map((hit) => ({
        key: hit.key,
        distance: expect.closeTo(hit.distance, 6),
      })),
    );
    for (const key of [...stored.keys()]) index.remove(key);
    expect(index.size).toBe(0);
    expect(index.search(query, 5)).toEqual([]);
  });

  it('finds every stored vector first, also one that training placed outside its nearest cell', () => {
    // Training places its snapshot by two-level search; vectors from other clusters than most
    // (a user's new topic) are where that misses the nearest cell of all.
    const index = new IvfIndex(16);
    const stored = [...clusteredVectors(9_000, 16, 40, 1), ...clusteredVectors(1_000, 16, 40, 4)];
    stored.forEach((vector, key) => {
      index.add(key, vector);
    });
    index.search(stored[0] as Float32Array, 1); // the first search past the threshold trains
    expect(index.layout.trainedSize).toBe(10_000);
    const lost = stored.flatMap((vector, key) => {
      const [nearest] = index.search(vector, 1, { maintain: false });
      return nearest?.key === key || (nearest?.distance ?? 1) < 1e-6 ? [] : [key];
    });
    expect(lost).toEqual([]);
  });

  it('returns sorted, unique, accepted keys, at most `limit`, whatever the data and filter', () => {
    const vector = fc.array(fc.integer({ min: -3, max: 3 }), { minLength: 4, maxLength: 4 });
    const exactThreshold = 40;
    // Searches that trained cells and scanned only some of them: the probing path, not the exact scan.
    let probedSome = 0;
    const runs = 200;
    fc.assert(
      fc.property(
        // Enough distinct keys (fast-check's default size would keep these to ~10) that the index
        // passes its threshold, trains cells and probes them; duplicates replace vectors.
        fc.array(fc.tuple(fc.nat({ max: 500 }), vector), { minLength: 60, maxLength: 400, size: 'max' }),
        fc.array(fc.nat({ max: 500 }), { maxLength: 60, size: 'max' }),
        vector,
        fc.integer({ min: 0, max: 30 }),
        fc.integer({ min: 1, max: 7 }),
        (adds, removals, query, limit, modulus) => {
          // A tiny threshold, so that the cells and probing are exercised on small inputs.
          const index = new IvfIndex(4, { exactThreshold, seed: modulus });
          for (const [key, values] of adds) index.add(key, Float32Array.from(values));
          for (const key of removals) index.remove(key);
          const accept = (key: number) => key % modulus !== 0;
          const hits = index.search(Float32Array.from(query), limit, { accept, probes: 2 });
          if (index.size >= exactThreshold && limit > 0) {
            expect(index.layout.trainedSize).toBe(index.size);
            expect(index.layout.cells).toBeGreaterThan(1);
          }
          if (index.layout.cells > 1 && index.lastScanned < index.size) probedSome += 1;
          expect(hits.length).toBeLessThanOrEqual(limit);
          expect(new Set(hits.map((hit) => hit.key)).size).toBe(hits.length);
          for (const [rank, hit] of hits.entries()) {
            expect(accept(hit.key) && index.has(hit.key)).toBe(true);
            const previous = hits[rank - 1];
            if (previous) expect(hit.distance).toBeGreaterThanOrEqual(previous.distance);
          }
          // A short result means every accepted vector was scanned.
          const accepted = [...new Set(adds.map(([key]) => key))].filter(
            (key) => index.has(key) && accept(key),
          );
          expect(hits.length).toBe(Math.min(limit, accepted.length));
        },
      ),
      { numRuns: runs },
    );
    // Most searches stopped probing before the last cell (the rest needed every cell to fill `limit`).
    expect(probedSome).toBeGreaterThan(runs / 4);
  });

  it('answers exactly as the JavaScript scan with its cells in a WebAssembly arena', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 24 }),
        fc.integer({ min: 40, max: 1_500 }),
        fc.integer({ min: 0, max: 30 }),
        fc.nat(),
        fc.integer({ min: 1, max: 40 }),
        (dimensions, count, removedEvery, seed, limit) => {
          const vectors = clusteredVectors(count + 1, dimensions, 4, seed);
          // A tiny threshold trains; replacements and removals move vectors between cells.
          const indexes = [true, false].map(
            (arena) => new IvfIndex(dimensions, { exactThreshold: 30, seed, arena }),
          );
          for (const index of indexes) {
            for (let key = 0; key < count; key++) index.add(key % 700, vectors[key] as Float32Array);
            if (removedEvery > 1) for (let key = 0; key < 700; key += removedEvery) index.remove(key);
          }
          const [inArena, plain] = indexes as [IvfIndex, IvfIndex];
          const query = vectors[count] as Float32Array;
          // Trained now: later adds go to the nearest cell of all (ranked in the arena too).
          for (const index of indexes) {
            index.search(query, 1);
            for (let key = 0; key < count; key += 7)
              index.add(800 + key, vectors[count - key] as Float32Array);
          }
          for (const probes of [1, 3]) {
            const accept = (key: number) => key % 3 !== seed % 3;
            expect(inArena.search(query, limit, { probes, accept })).toEqual(
              plain.search(query, limit, { probes, accept }),
            );
          }
          expect(inArena.search(query, limit, { exact: true })).toEqual(
            plain.search(query, limit, { exact: true }),
          );
          expect(inArena.layout.arena).toBe(inArena.size >= 30);
          expect(plain.layout.arena).toBe(false);
        },
      ),
      { numRuns: 60 },
    );
  });

  it('answers the same with its cells screened by int8 codes as without, through adds, removals, growth and retraining', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 40 }),
        fc.integer({ min: 40, max: 2_500 }),
        fc.integer({ min: 0, max: 30 }),
        fc.nat(),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 0, max: 400 }),
        (dimensions, count, removedEvery, seed, limit, minScanned) => {
          const vectors = clusteredVectors(count + 1, dimensions, 5, seed);
          const indexes = [true, false].map(
            (codes) => new IvfIndex(dimensions, { exactThreshold: 30, seed, codes }),
          );
          const [screened, plain] = indexes as [IvfIndex, IvfIndex];
          const query = vectors[count] as Float32Array;
          for (const index of indexes) {
            for (let key = 0; key < count; key++) index.add(key % 900, vectors[key] as Float32Array);
            if (removedEvery > 1) for (let key = 0; key < 900; key += removedEvery) index.remove(key);
            index.search(query, 1); // trains
            // Later adds pile near one vector: its cell grows, and with it the arena.
            for (let key = 0; key < count; key += 3) {
              const near = vectors[key % 50] as Float32Array;
              index.add(
                1_000 + key,
                near.map((value, axis) => value + 1e-2 * Math.sin(key + axis)),
              );
            }
          }
          for (const probes of [1, 4]) {
            for (const accept of [undefined, (key: number) => key % 3 !== seed % 3]) {
              const options = { probes, accept, minScanned, maintain: false };
              expect(screened.search(query, limit, options)).toEqual(plain.search(query, limit, options));
              expect(screened.lastScanned).toBe(plain.lastScanned);
            }
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('computes exact distances for a small share of the vectors it probes once screened by their codes, asking the filter once per vector', () => {
    const vectors = clusteredVectors(20_001, 48, 40, 3);
    const indexes = [true, false].map((codes) => new IvfIndex(48, { seed: 3, codes }));
    for (const index of indexes)
      for (const [key, vector] of vectors.slice(0, 20_000).entries()) index.add(key, vector);
    const [screened, plain] = indexes as [IvfIndex, IvfIndex];
    const query = vectors[20_000] as Float32Array;
    const asked = new Map<number, number>();
    const accept = (key: number) => {
      asked.set(key, (asked.get(key) ?? 0) + 1);
      return key % 10 !== 0;
    };
    const found = screened.search(query, 50, { accept });
    // The filter may read a scattered record: each vector is asked about once at most.
    expect(Math.max(...asked.values())).toBe(1);
    expect(found).toEqual(plain.search(query, 50, { accept }));
    expect(plain.lastExact).toBe(plain.lastScanned);
    expect(screened.lastScanned).toBe(plain.lastScanned);
    expect(screened.lastExact).toBeLessThan(screened.lastScanned / 4);
  });

  it('scans plainly, with the same answer, when a probed cell has no codes (its arena could not grow)', () => {
    const vectors = clusteredVectors(6_001, 16, 12, 11);
    const indexes = [true, false].map((codes) => new IvfIndex(16, { seed: 11, codes }));
    for (const index of indexes)
      for (const [key, vector] of vectors.slice(0, 6_000).entries()) index.add(key, vector);
    const [screened, plain] = indexes as [IvfIndex, IvfIndex];
    const query = vectors[6_000] as Float32Array;
    screened.search(query, 1); // trains
    const cells = (screened as unknown as { cells: { codes: unknown }[] }).cells;
    for (const cell of cells.filter((_, index) => index % 2 === 0)) cell.codes = null;
    expect(screened.search(query, 30)).toEqual(plain.search(query, 30));
    expect(screened.lastExact).toBe(screened.lastScanned);
  });

  it('scans a cell of more vectors than one kernel call takes, in the arena as in JavaScript', () => {
    const vectors = clusteredVectors(3_000, 12, 4, 5);
    const indexes = [true, false].map((arena) => new IvfIndex(12, { exactThreshold: 100, seed: 5, arena }));
    for (const index of indexes) {
      for (const [key, vector] of vectors.slice(0, 1_000).entries()) index.add(key, vector);
      index.search(vectors[0] as Float32Array, 1); // trains
      // Near one vector: one cell grows past 1,024 (no retraining while searches do not maintain).
      const centre = vectors[0] as Float32Array;
      for (const [at, vector] of vectors.slice(1_000).entries()) {
        index.add(
          1_000 + at,
          centre.map((value, axis) => value + 1e-3 * ((vector[axis] as number) - value)),
        );
      }
    }
    const [inArena, plain] = indexes as [IvfIndex, IvfIndex];
    expect(inArena.layout.arena).toBe(true);
    const options = { probes: 1, maintain: false };
    const found = inArena.search(vectors[0] as Float32Array, 2_500, options);
    expect(inArena.lastScanned).toBeGreaterThan(2_000);
    expect(found).toEqual(plain.search(vectors[0] as Float32Array, 2_500, options));
  });

  it('packs 256 or more vectors in an arena of their own unless told not to, with the same answers', () => {
    const vectors = clusteredVectors(300, 16, 3, 9);
    const indexes = [true, false].map((arena) => new IvfIndex(16, { arena }));
    for (const index of indexes) for (const [key, vector] of vectors.entries()) index.add(key, vector);
    const keys = Int32Array.from(vectors.keys());
    const [inArena, plain] = indexes.map((index) => index.pack(keys)) as [PackedVectors, PackedVectors];
    expect(inArena.inArena).toBeDefined();
    expect(plain.inArena).toBeUndefined();
    const query = vectors[7] as Float32Array;
    expect((indexes[0] as IvfIndex).searchPacked(query, 20, inArena)).toEqual(
      (indexes[1] as IvfIndex).searchPacked(query, 20, plain),
    );
    expect((indexes[0] as IvfIndex).pack(keys.subarray(0, 255)).inArena).toBeUndefined();
  });

  it('trains in steps while vectors are added, replaced and removed, losing none of them', () => {
    const vectors = clusteredVectors(6_000, 16, 30, 11);
    const index = new IvfIndex(16, { exactThreshold: 1_000 });
    const live = new Map<number, Float32Array>();
    vectors.slice(0, 4_000).forEach((vector, key) => {
      index.add(key, vector);
      live.set(key, vector);
    });
    expect(index.needsTraining).toBe(true);
    const steps = index.trainInSteps();
    let step = 0;
    // Between steps: new keys, replaced vectors and removals, which the swap must reconcile.
    while (!steps.next().done) {
      step += 1;
      const added = 4_000 + step;
      index.add(added, vectors[added] as Float32Array);
      live.set(added, vectors[added] as Float32Array);
      index.add(step, vectors[5_000 + step] as Float32Array);
      live.set(step, vectors[5_000 + step] as Float32Array);
      index.remove(2_000 + step);
      live.delete(2_000 + step);
      expect(() => index.trainInSteps().next()).toThrow(/already training/);
    }
    expect(step).toBeGreaterThan(5);
    expect(index.layout.trainedSize).toBe(live.size);
    expect(index.size).toBe(live.size);
    for (const [key, vector] of live) {
      const [found] = index.search(vector, 1, { maintain: false, accept: (candidate) => candidate === key });
      expect(found?.distance).toBeCloseTo(0, 5);
    }
    // A scan of every cell holds exactly the live vectors: no stale copy of a changed key.
    const query = vectors[3] as Float32Array;
    expect(index.search(query, 6_000, { exact: true, maintain: false })).toEqual(
      exactNearest(live, query, 6_000).map((hit) => ({
        key: hit.key,
        distance: expect.closeTo(hit.distance, 6),
      })),
    );
  });
});
