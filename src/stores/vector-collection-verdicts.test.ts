import { expect, it } from 'vitest';
import type { MemoryFilter } from '../core/schemas/memory-record.js';
import { seededRandom } from '../core/vectors/seeded-random.js';
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

it('answers a filter again from its verdict per row on the index path, forgetting each row written', async () => {
  const random = seededRandom(5);
  const collection = new VectorCollection<Row>(4);
  const vectors: Float32Array[] = [];
  for (let key = 0; key < 8_000; key += 1) {
    vectors.push(Float32Array.from({ length: 4 }, () => random() - 0.5));
    collection.set(
      key,
      { id: `r${String(key).padStart(5, '0')}`, keep: key % 2 === 0, ...fields },
      vectors[key] as Float32Array,
    );
  }
  const filter: MemoryFilter = { includeSuperseded: false, memoryType: { eq: 'semantic' } };
  let asked = 0;
  const accept = (row: Row) => {
    asked += 1;
    return row.keep;
  };
  const query = Float32Array.from([0.3, -0.1, 0.2, 0.4]);
  const search = () => {
    asked = 0;
    return collection.nearest(query, 20, accept, filter).map((hit) => hit.id);
  };
  search();
  expect(asked).toBeGreaterThan(5_000); // counted past the exact threshold, and sampled
  await collection.settled(); // the index is trained: searches take the index path
  const first = search();
  expect(search()).toEqual(first);
  expect(asked).toBe(0); // every row the index asked about was answered before

  // A row written (now rejected) is asked again, alone; so is a new row, accepted.
  const top = Number((first[0] as string).slice(1));
  collection.set(top, { id: first[0] as string, keep: false, ...fields }, vectors[top] as Float32Array);
  collection.set(8_000, { id: 'r08000', keep: true, ...fields }, query);
  const second = search();
  expect(second).not.toContain(first[0]);
  expect(second[0]).toBe('r08000');
  expect(asked).toBeGreaterThan(0);
  expect(asked).toBeLessThanOrEqual(2);

  // Rows changed in place: every verdict is asked again.
  collection.rowsChanged();
  search();
  expect(asked).toBeGreaterThan(20);
});
