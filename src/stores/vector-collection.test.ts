import fc from 'fast-check';
import { describe, expect, it, vi } from 'vitest';
import type { MemoryFilter } from '../core/schemas/memory-record.js';
import { IvfIndex } from '../core/vectors/ivf-index.js';
import { seededRandom } from '../core/vectors/seeded-random.js';
import { cosineDistance, vectorNorm } from './memory-rules.js';
import { VectorCollection } from './vector-collection.js';

type Row = {
  id: string;
  keep: boolean;
  userId: string | null;
  agentId: string | null;
  memoryType: 'semantic' | 'episodic';
  documentId: string | null;
};
const fields = { userId: null, agentId: null, memoryType: 'semantic', documentId: null } as const;

/** Brute force over `live`: the accepted rows by cosine distance, ties by id. */
function exact(live: Map<number, { row: Row; vector: number[] }>, query: number[], limit: number) {
  return [...live.values()]
    .filter(({ row }) => row.keep)
    .map(({ row, vector }) => {
      const dot = vector.reduce((sum, value, axis) => sum + value * (query[axis] ?? 0), 0);
      return { id: row.id, distance: cosineDistance(dot, vectorNorm(vector), vectorNorm(query)) };
    })
    .sort((left, right) => left.distance - right.distance || (left.id < right.id ? -1 : 1))
    .slice(0, limit);
}

describe('vector collection', () => {
  it('finds exactly the nearest accepted rows through sets, replacements and deletes', () => {
    const vector = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 3, maxLength: 3 });
    const operation = fc.oneof(
      fc.record({ set: fc.nat({ max: 60 }), vector, keep: fc.boolean() }),
      fc.record({ remove: fc.nat({ max: 60 }) }),
    );
    fc.assert(
      fc.property(
        fc.array(operation, { maxLength: 150 }),
        vector,
        fc.integer({ min: 0, max: 8 }),
        (operations, query, limit) => {
          const collection = new VectorCollection<Row>(3);
          const live = new Map<number, { row: Row; vector: number[] }>();
          for (const step of operations) {
            if ('set' in step) {
              const row = { id: `v${String(step.set).padStart(3, '0')}`, keep: step.keep, ...fields };
              collection.set(step.set, row, Float32Array.from(step.vector));
              live.set(step.set, { row, vector: step.vector });
            } else {
              expect(collection.delete(step.remove)).toBe(live.delete(step.remove));
            }
          }
          expect(collection.size).toBe(live.size);
          const found = collection.nearest(Float32Array.from(query), limit, (row) => row.keep);
          const expected = exact(live, query, limit);
          // Equal distances may round apart, so compare distances, then check each hit's own distance.
          expect(found.map((hit) => hit.distance)).toEqual(
            expected.map((hit) => expect.closeTo(hit.distance, 6)),
          );
          const truth = new Map(exact(live, query, live.size).map((hit) => [hit.id, hit.distance]));
          for (const hit of found) expect(hit.distance).toBeCloseTo(truth.get(hit.id) ?? -1, 6);
          expect(new Set(found.map((hit) => hit.id)).size).toBe(found.length);
        },
      ),
      { numRuns: 300 },
    );
  });

  it('stays exact while it remembers what a filter accepted, through sets, deletes and changed rows', () => {
    const vector = fc.array(fc.integer({ min: -4, max: 4 }), { minLength: 3, maxLength: 3 });
    const operation = fc.oneof(
      fc.record({ set: fc.nat({ max: 40 }), vector, keep: fc.boolean() }),
      fc.record({ remove: fc.nat({ max: 40 }) }),
      fc.record({ flip: fc.nat({ max: 40 }) }),
      fc.record({ search: vector, limit: fc.integer({ min: 1, max: 6 }) }),
    );
    const filter: MemoryFilter = { includeSuperseded: false, memoryType: { eq: 'semantic' } };
    fc.assert(
      fc.property(fc.array(operation, { minLength: 30, maxLength: 120 }), (operations) => {
        const collection = new VectorCollection<Row>(3);
        const live = new Map<number, { row: Row; vector: number[] }>();
        for (const step of operations) {
          if ('set' in step) {
            const row = { ...fields, id: `v${String(step.set).padStart(3, '0')}`, keep: step.keep };
            collection.set(step.set, row, Float32Array.from(step.vector));
            live.set(step.set, { row, vector: step.vector });
          } else if ('remove' in step) {
            collection.delete(step.remove);
            live.delete(step.remove);
          } else if ('flip' in step) {
            const entry = live.get(step.flip);
            if (!entry) continue;
            // Rows are the driver's objects: changed in place, then announced.
            entry.row.keep = !entry.row.keep;
            collection.rowsChanged();
          } else {
            const found = collection.nearest(
              Float32Array.from(step.search),
              step.limit,
              (row) => row.keep,
              filter,
            );
            const expected = exact(live, step.search, step.limit);
            expect(found.map((hit) => hit.distance)).toEqual(
              expected.map((hit) => expect.closeTo(hit.distance, 6)),
            );
            const accepted = new Set(
              [...live.values()].filter(({ row }) => row.keep).map(({ row }) => row.id),
            );
            for (const hit of found) expect(accepted.has(hit.id)).toBe(true);
          }
        }
      }),
      { numRuns: 300 },
    );
  });

  it('is exact for a narrow filter over a large collection, and filters on the index path', () => {
    const random = seededRandom(3);
    const collection = new VectorCollection<Row>(8);
    const live = new Map<number, { row: Row; vector: number[] }>();
    for (let key = 0; key < 7_000; key += 1) {
      const vector = Array.from({ length: 8 }, () => Math.fround(random() - 0.5));
      const row = { id: `r${String(key).padStart(4, '0')}`, keep: key % 40 === 0, ...fields };
      collection.set(key, row, Float32Array.from(vector));
      live.set(key, { row, vector });
    }
    for (let query = 0; query < 5; query += 1) {
      const vector = Array.from({ length: 8 }, () => random() - 0.5);
      const narrow = collection.nearest(Float32Array.from(vector), 30, (row) => row.keep);
      expect(narrow.map((hit) => hit.id)).toEqual(exact(live, vector, 30).map((hit) => hit.id));
      const broad = collection.nearest(Float32Array.from(vector), 30, (row) => !row.keep);
      expect(broad).toHaveLength(30);
      const rows = new Map([...live.values()].map(({ row }) => [row.id, row]));
      expect(broad.every((hit) => rows.get(hit.id)?.keep === false)).toBe(true);
      expect(broad.map((hit) => hit.distance)).toEqual(
        [...broad.map((hit) => hit.distance)].sort((a, b) => a - b),
      );
    }
  });

  it('scans only the partition a filter names, with the same results as a scan of every row', () => {
    const random = seededRandom(5);
    const collection = new VectorCollection<Row>(8);
    const live = new Map<number, { row: Row; vector: number[] }>();
    const rowOf = (key: number): Row => ({
      id: `r${String(key).padStart(5, '0')}`,
      keep: true,
      userId: key % 3 === 0 ? null : `user-${key % 7}`,
      agentId: key % 11 === 0 ? 'agent-a' : null,
      memoryType: key % 50 === 0 ? 'episodic' : 'semantic',
      documentId: key % 97 === 0 ? `doc-${key % 2}` : null,
    });
    for (let key = 0; key < 12_000; key += 1) {
      const vector = Array.from({ length: 8 }, () => Math.fround(random() - 0.5));
      collection.set(key, rowOf(key), Float32Array.from(vector));
      live.set(key, { row: rowOf(key), vector });
    }
    // Replacements and deletes move rows between partitions.
    for (let key = 0; key < 12_000; key += 5) {
      if (key % 10 === 0) {
        collection.delete(key);
        live.delete(key);
      } else {
        const row = { ...rowOf(key + 1), id: rowOf(key).id };
        const vector = live.get(key)?.vector ?? [];
        collection.set(key, row, Float32Array.from(vector));
        live.set(key, { row, vector });
      }
    }
    const filters: { filter: MemoryFilter; test: (row: Row) => boolean }[] = [
      {
        filter: { includeSuperseded: false, agentId: { eq: 'agent-a' }, documentId: { exists: true } },
        test: (row) => row.agentId === 'agent-a' && row.documentId !== null,
      },
      {
        filter: { includeSuperseded: false, userId: { eq: 'user-2' }, memoryType: { eq: 'episodic' } },
        test: (row) => row.userId === 'user-2' && row.memoryType === 'episodic',
      },
      {
        filter: { includeSuperseded: false, userId: { any: ['user-1', 'user-4'] } },
        test: (row) => row.userId === 'user-1' || row.userId === 'user-4',
      },
    ];
    for (const { filter, test } of filters) {
      const vector = Array.from({ length: 8 }, () => random() - 0.5);
      const query = Float32Array.from(vector);
      const narrowed = collection.nearest(query, 20, test, filter);
      const scanned = collection.nearest(query, 20, test);
      expect(narrowed).toEqual(scanned);
      const matching = new Map([...live].filter(([, { row }]) => test(row)));
      if (matching.size <= 5_000) {
        expect(narrowed.map((hit) => hit.id)).toEqual(exact(matching, vector, 20).map((hit) => hit.id));
      }
    }
  });

  it('scans a selective partition whole, exactly, rather than most of the index', () => {
    const random = seededRandom(9);
    const collection = new VectorCollection<Row>(4);
    const live = new Map<number, { row: Row; vector: number[] }>();
    for (let key = 0; key < 150_000; key += 1) {
      const vector = Array.from({ length: 4 }, () => Math.fround(random() - 0.5));
      const row: Row = {
        id: `r${String(key).padStart(6, '0')}`,
        keep: true,
        userId: 'user-1',
        agentId: null,
        memoryType: key % 29 === 0 ? 'episodic' : 'semantic',
        documentId: null,
      };
      collection.set(key, row, Float32Array.from(vector));
      if (row.memoryType === 'episodic') live.set(key, { row, vector });
    }
    const filter: MemoryFilter = { includeSuperseded: false, memoryType: { eq: 'episodic' } };
    const query = [0.3, -0.2, 0.1, 0.4];
    let asked = 0;
    const accept = (row: Row) => {
      asked += 1;
      return row.memoryType === 'episodic';
    };
    const search = () => {
      asked = 0;
      return collection.nearest(Float32Array.from(query), 20, accept, filter);
    };
    const found = search();
    // 5,173 episodes: past the exact threshold, yet the index would scan about 200 / 3.4 % of it.
    expect(live.size).toBe(5_173);
    expect(found.map((hit) => hit.id)).toEqual(exact(live, query, 20).map((hit) => hit.id));
    expect(collection.scannedByLastSearch).toBe(5_173);
    expect(asked).toBeGreaterThan(5_173);
    // The partition's accepted rows are remembered: the same search asks the filter nothing.
    expect(search()).toEqual(found);
    expect(asked).toBe(0);
    expect(collection.scannedByLastSearch).toBe(5_173);
    // Until a row changes: a new episode nearer than any is found. The partition is gone through
    // again, but only the new row is asked: the others' verdicts stand.
    const row: Row = { ...fields, id: 'r999999', keep: true, userId: 'user-1', memoryType: 'episodic' };
    collection.set(999_999, row, Float32Array.from(query));
    const again = search();
    expect(asked).toBe(1);
    expect(again[0]?.id).toBe('r999999');
  });

  it('remembers the rows a small filter accepts: the same search asks it nothing', () => {
    const collection = new VectorCollection<Row>(3);
    for (let key = 0; key < 300; key += 1) {
      const row: Row = { ...fields, id: `r${String(key).padStart(3, '0')}`, keep: key % 3 === 0 };
      collection.set(key, row, Float32Array.from([Math.sin(key), Math.cos(key), key / 300]));
    }
    const filter: MemoryFilter = { includeSuperseded: false, memoryType: { eq: 'semantic' } };
    let asked = 0;
    const accept = (row: Row) => {
      asked += 1;
      return row.keep;
    };
    const query = Float32Array.from([0.2, 0.9, 0.1]);
    const first = collection.nearest(query, 5, accept, filter);
    expect(asked).toBe(300);
    asked = 0;
    expect(collection.nearest(query, 5, accept, filter)).toEqual(first);
    expect(asked).toBe(0);
    // Another filter is asked; so is this one once a row is set.
    collection.nearest(query, 5, accept, { ...filter, memoryType: { any: ['semantic', 'episodic'] } });
    expect(asked).toBe(300);
    collection.set(300, { ...fields, id: 'r300', keep: true }, query);
    asked = 0;
    expect(collection.nearest(query, 5, accept, filter)[0]?.id).toBe('r300');
    expect(asked).toBe(1); // the new row only: the others' verdicts stand
  });

  it('remembers a filter that matches many rows, until a row changes', () => {
    const random = seededRandom(3);
    const collection = new VectorCollection<Row>(4);
    const rows: Row[] = [];
    for (let key = 0; key < 5_010; key += 1) {
      const row: Row = { id: `r${String(key).padStart(5, '0')}`, keep: true, ...fields };
      rows.push(row);
      collection.set(
        key,
        row,
        Float32Array.from({ length: 4 }, () => random() - 0.5),
      );
    }
    const filter: MemoryFilter = { includeSuperseded: false, memoryType: { eq: 'semantic' } };
    let asked = 0;
    const accept = (row: Row) => {
      asked += 1;
      return row.keep;
    };
    const search = () => {
      asked = 0;
      return collection.nearest(Float32Array.from([0.1, 0.2, -0.3, 0.4]), 5, accept, filter);
    };
    search();
    // Counting past the exact threshold and sampling the accepted share: more than 5,000 questions.
    expect(asked).toBeGreaterThan(5_000);
    search();
    expect(asked).toBeLessThan(5_000);
    // Rows changed in place (ten no longer accepted): counted again, and now scanned exactly.
    for (const row of rows.slice(0, 10)) row.keep = false;
    collection.rowsChanged();
    search();
    expect(asked).toBeGreaterThan(5_000);
    expect(collection.scannedByLastSearch).toBe(5_000);
    // A delete (or a set) also makes it count again.
    for (const row of rows.slice(0, 10)) row.keep = true;
    collection.rowsChanged();
    search();
    search();
    expect(asked).toBeLessThan(5_000);
    collection.delete(5_009);
    const rest = search();
    expect(asked).toBe(0); // counted again from the verdicts kept for the other rows
    expect(rest.map((hit) => hit.id)).not.toContain('r05009');
  });

  it('packs the vectors of slots it scans again, and stays exact as vectors change', () => {
    const random = seededRandom(9);
    const collection = new VectorCollection<Row>(4);
    const live = new Map<number, { row: Row; vector: number[] }>();
    const put = (key: number) => {
      const row: Row = {
        id: `r${String(key).padStart(5, '0')}`,
        keep: true,
        ...fields,
        agentId: key % 20 === 0 ? 'a' : 'b',
      };
      const vector = Array.from({ length: 4 }, () => Math.round((random() - 0.5) * 16));
      collection.set(key, row, Float32Array.from(vector));
      live.set(key, { row, vector });
    };
    for (let key = 0; key < 6_000; key += 1) put(key);
    const filter: MemoryFilter = { includeSuperseded: false, agentId: { eq: 'a' } };
    const accept = (row: Row) => row.agentId === 'a';
    const packs = vi.spyOn(IvfIndex.prototype, 'pack');
    const check = () => {
      const query = Array.from({ length: 4 }, () => random() - 0.5);
      const found = collection.nearest(Float32Array.from(query), 7, accept, filter);
      const agents = new Map([...live].filter(([, { row }]) => row.agentId === 'a'));
      const expected = exact(agents, query, 7);
      expect(found.map((hit) => hit.distance)).toEqual(
        expected.map((hit) => expect.closeTo(hit.distance, 6)),
      );
    };
    check();
    expect(packs).not.toHaveBeenCalled();
    check();
    check();
    expect(packs).toHaveBeenCalledTimes(1);
    for (let step = 0; step < 40; step += 1) {
      // A changed vector, a removed row and a new row of the agent: none may be answered from old copies.
      const key = 20 * Math.floor(random() * 300);
      if (step % 3 === 0) put(key);
      else if (step % 3 === 1 && live.delete(key)) collection.delete(key);
      else put(6_000 + 20 * step);
      check();
      check();
    }
    expect(packs.mock.calls.length).toBeGreaterThan(20);
    packs.mockRestore();
  });
});
