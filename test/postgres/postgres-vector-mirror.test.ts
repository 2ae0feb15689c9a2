import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../../src/core/schemas/memory-record.js';
import { seededRandom } from '../../src/core/vectors/seeded-random.js';
import type { VectorHit } from '../../src/stores/memory-record-store.js';
import { createPostgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import {
  CURRENT,
  EVERYTHING,
  MODEL,
  newMemory,
  nextVersion,
  TENANT,
} from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('vector_mirror');
const DIMENSIONS = 4;
const FILTERS: MemoryFilter[] = [
  CURRENT,
  EVERYTHING,
  { ...CURRENT, userId: { eq: 'user-2' } },
  { ...CURRENT, memoryType: { eq: 'episodic' } },
  { ...CURRENT, topics: { any: ['t1'] } },
];

/** The memory `id`'s next version with the same text and fields, and `vector` as its embedding. */
const reembedded = (id: string, vector: number[]) => nextVersion({ text: `memory ${id}`, vector });

describe.skipIf(database === null)('PostgreSQL vectors searched in process, kept by the change log', () => {
  const { url, schema, truncate } = database ?? { url: '', schema: '', truncate: async () => {} };
  const stores: PostgresStore[] = [];
  const server = async (inProcessVectorIndex = true) => {
    const store = await createPostgresStore({
      connectionString: url,
      schema,
      poolSize: 2,
      inProcessVectorIndex,
    });
    stores.push(store);
    return store;
  };
  const random = seededRandom(5);
  const randomVector = () => Array.from({ length: DIMENSIONS }, () => Math.fround(random() * 2 - 1));
  const search = (store: PostgresStore, vector: number[], filter: MemoryFilter = CURRENT, limit = 5) =>
    store.memories.searchVector(TENANT, Float32Array.from(vector), MODEL, filter, limit);
  const rounded = (hits: VectorHit[]) =>
    hits.map((hit) => ({ ...hit, distance: Number(hit.distance.toFixed(5)) }));

  beforeAll(async () => {
    await (await server()).memories.countMemories(TENANT, CURRENT); // migrated
  });
  afterAll(async () => {
    await Promise.all(stores.map((store) => store.close()));
  });

  it('answers in one round trip what the exact scan in SQL answers', async () => {
    await truncate();
    const mirrored = await server();
    const scanned = await server(false);
    await mirrored.memories.insertMemories(
      TENANT,
      Array.from({ length: 300 }, (_, index) =>
        newMemory(`m-${String(index).padStart(3, '0')}`, {
          vector: randomVector(),
          userId: index % 3 === 0 ? 'user-2' : 'user-1',
          memoryType: index % 7 === 0 ? 'episodic' : 'semantic',
          topics: index % 2 === 0 ? ['t1'] : [],
          sessionId: `s-${index % 4}`,
          entities: index % 5 === 0 ? ['Ada'] : [],
        }),
      ),
    );
    await mirrored.memories.supersede(TENANT, 'm-004', newMemory('m-new', { vector: randomVector() }));
    await search(mirrored, randomVector()); // loads the tenant's mirror
    await mirrored.memories.settled(); // background work after the writes counts round trips too
    for (let round = 0; round < 8; round += 1) {
      const query = randomVector();
      for (const filter of FILTERS) {
        const before = mirrored.roundTrips();
        const found = await search(mirrored, query, filter, 7);
        expect(mirrored.roundTrips() - before, `${round} ${JSON.stringify(filter)}`).toBe(1);
        expect(rounded(found), JSON.stringify(filter)).toEqual(
          rounded(await search(scanned, query, filter, 7)),
        );
      }
    }
    // The mirror knows the model's dimensions: another length is refused as in SQL.
    await expect(search(mirrored, [1, 0])).rejects.toThrow(/dimension/);
  });

  it('sees on one server the next search after a write, an edit, a re-embedding or a delete on another', async () => {
    await truncate();
    const a = await server();
    const b = await server();
    await a.memories.insertMemories(
      TENANT,
      Array.from({ length: 50 }, (_, index) => newMemory(`m-${index}`, { vector: randomVector() })),
    );
    await search(b, randomVector());
    const target = randomVector();
    await a.memories.insertMemories(TENANT, [newMemory('near', { vector: target })]);
    expect((await search(b, target))[0]?.id).toBe('near');
    // An edit that keeps the text and every field a filter reads, with a new vector.
    const moved = randomVector();
    await a.memories.updateMemory(TENANT, 'm-7', reembedded('m-7', moved));
    expect((await search(b, moved))[0]).toMatchObject({ id: 'm-7', distance: expect.closeTo(0, 5) });
    // Re-embedding with another model, as a model change does (no memory row changes).
    await a.memories.setEmbeddings(TENANT, 'other-model', [{ id: 'm-9', vector: Float32Array.from(target) }]);
    const other = await b.memories.searchVector(TENANT, Float32Array.from(target), 'other-model', CURRENT, 3);
    expect(other.map((hit) => hit.id)).toEqual(['m-9']);
    expect((await search(b, target, CURRENT, 60)).map((hit) => hit.id)).not.toContain('m-9');
    await a.memories.deleteMemories(TENANT, ['near']);
    expect((await search(b, target, CURRENT, 60)).map((hit) => hit.id)).not.toContain('near');
  });
});
