import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { MemoryFilter } from '../../src/core/schemas/memory-record.js';
import type { EngramStore } from '../../src/stores/engram-store.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';
import { compileStableMemoryFilter } from '../../src/stores/memory-filter.js';
import { openPostgresDatabase, type PostgresDatabase } from '../../src/stores/postgres/postgres-database.js';
import { createPostgresStore, type PostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { createPostgresTextCache } from '../../src/stores/postgres/postgres-text-cache.js';
import { searchTextIndex } from '../../src/stores/search-text-index.js';
import type { TextMirror } from '../../src/stores/text-mirror.js';
import {
  CURRENT,
  EVERYTHING,
  newMemory,
  nextVersion,
  TENANT,
} from '../conformance/memory-record-fixtures.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('text_cache');

const WORDS = ['apple', 'banana', 'cherry', 'plum', 'pear', 'fig', 'orchard', 'basket'];
/** Texts of varied lengths and term frequencies, for two users. */
const memory = (index: number, prefix = 'm') =>
  newMemory(`${prefix}-${String(index).padStart(3, '0')}`, {
    text: Array.from(
      { length: 1 + (index % 5) },
      (_, at) => WORDS[(index * 3 + at * at) % WORDS.length],
    ).join(' '),
    userId: index % 3 === 0 ? 'user-2' : 'user-1',
  });
const QUERIES = ['apple', 'banana cherry', 'fig plum pear', 'orchard basket apple', 'nothing here'];
const FILTERS: MemoryFilter[] = [CURRENT, EVERYTHING, { ...CURRENT, userId: { eq: 'user-2' } }];

/** An edit to `text` and owner `userId`. */
const edit = (text: string, userId = 'user-1') => nextVersion({ text, userId });

describe.skipIf(database === null)('PostgreSQL text indexes kept in process by the change log', () => {
  const { url, schema, truncate } = database ?? { url: '', schema: '', truncate: async () => {} };
  const stores: PostgresStore[] = [];
  const databases: PostgresDatabase[] = [];
  let oracle: EngramStore;
  const server = async () => {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    stores.push(store);
    return store;
  };
  const connection = async () => {
    const opened = await openPostgresDatabase({ connectionString: url, schema, poolSize: 2 });
    databases.push(opened);
    return opened;
  };
  /** Writes to PostgreSQL through `writer` and to the memory driver, which ranks as the text index must. */
  const both = async (writer: EngramStore, write: (store: EngramStore) => Promise<unknown>) => {
    await write(writer);
    await write(oracle);
  };
  /** Empties the schema, then writes memories 0 to count - 1 through a new server and to the oracle. */
  const seeded = async (count: number) => {
    await truncate();
    oracle = createMemoryStore();
    const writer = await server();
    const records = Array.from({ length: count }, (_, index) => memory(index));
    await both(writer, (store) => store.memories.insertMemories(TENANT, records));
    return writer;
  };
  const hits = async (store: EngramStore, query: string, filter: MemoryFilter) =>
    (await store.memories.searchText(TENANT, query, filter, 20)).map(({ id, score }) => ({ id, score }));
  const expectSameRanking = async (store: EngramStore) => {
    for (const query of QUERIES) {
      for (const filter of FILTERS) {
        expect(await hits(store, query, filter), `${query} ${JSON.stringify(filter)}`).toEqual(
          await hits(oracle, query, filter),
        );
      }
    }
  };
  const mirrorHits = (mirror: TextMirror, query: string, filter: MemoryFilter) =>
    searchTextIndex(
      mirror.index,
      mirror.partitions,
      compileStableMemoryFilter(filter),
      query,
      filter,
      20,
    ).map(({ id, score }) => ({ id, score }));

  beforeAll(async () => {
    await (await server()).memories.countMemories(TENANT, CURRENT); // migrated
  });
  afterAll(async () => {
    await Promise.all([
      ...stores.map((store) => store.close()),
      ...databases.map((opened) => opened.close()),
    ]);
  });

  it('ranks as the memory driver does and sees, on one server, every write made on another', async () => {
    const [a, b] = [await seeded(6), await server()];
    await expectSameRanking(b); // b's index is built by its first search

    await both(a, (store) =>
      store.memories.insertMemories(
        TENANT,
        [6, 7, 8].map((index) => memory(index)),
      ),
    );
    await expectSameRanking(b);
    await both(a, (store) =>
      store.memories.updateMemory(TENANT, 'm-001', edit('apple apple orchard', 'user-2')),
    );
    await expectSameRanking(b);
    await both(a, (store) => store.memories.supersede(TENANT, 'm-002', memory(2, 'replacement')));
    await expectSameRanking(b);
    await both(a, (store) => store.memories.deleteMemories(TENANT, ['m-003', 'm-004']));
    await expectSameRanking(b);
    // Another tenant's writes never reach this tenant's ranking.
    await a.memories.insertMemories('tenant-other', [memory(9), memory(10)]);
    await expectSameRanking(b);
  });

  it('follows memories changed by any writer, SQL by hand included, but not access statistics', async () => {
    const [a, b] = [await seeded(3), await server()];
    const admin = database?.admin ?? (async () => []);
    const table = `"${schema}".memories`;
    await expectSameRanking(b);
    // An operator fixes a text in SQL (or a server from before the log writes): logged by triggers.
    await admin(`UPDATE ${table} SET text = 'fig fig orchard' WHERE id = 'm-001'`);
    await oracle.memories.updateMemory(TENANT, 'm-001', edit('fig fig orchard'));
    await expectSameRanking(b);
    await admin(`DELETE FROM ${table} WHERE id = 'm-002'`);
    await oracle.memories.deleteMemories(TENANT, ['m-002']);
    await expectSameRanking(b);
    // Reading memories moves their access statistics: no log entry, no revision.
    const revision = await b.memories.memoryRevision?.(TENANT);
    await a.memories.recordAccess(TENANT, ['m-000', 'm-001'], new Date().toISOString());
    expect(await b.memories.memoryRevision?.(TENANT)).toBe(revision);
  });

  it('answers concurrent searches of a tenant with two statements at most', async () => {
    const [a, b] = [await seeded(4), await server()];
    await hits(b, 'apple', CURRENT);
    await both(a, (store) => store.memories.insertMemories(TENANT, [memory(4)]));
    const before = b.roundTrips();
    const answers = await Promise.all(Array.from({ length: 20 }, () => hits(b, 'apple', CURRENT)));
    expect(b.roundTrips() - before).toBeLessThanOrEqual(2);
    for (const answer of answers) expect(answer).toEqual(await hits(oracle, 'apple', CURRENT));
  });

  it('builds a large tenant page by page in the background, with the writes made meanwhile', async () => {
    const a = await seeded(7);
    const opened = await connection();
    // The second page of the load waits until the writes below have committed.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    let statements = 0;
    const gated: PostgresDatabase = Object.assign(Object.create(opened) as PostgresDatabase, {
      query: async (sql: string, parameters?: unknown[]) => {
        statements += 1;
        if (statements === 2) await held;
        return opened.query(sql, parameters);
      },
    });
    const cache = createPostgresTextCache(gated, { pageSize: 3 });
    expect(await cache.index(TENANT)).toBeUndefined(); // more than a page: built in the background
    await both(a, (store) => store.memories.insertMemories(TENANT, [memory(7), memory(8, 'a')]));
    await both(a, (store) => store.memories.deleteMemories(TENANT, ['m-000', 'm-006']));
    await both(a, (store) => store.memories.updateMemory(TENANT, 'm-005', edit('plum plum plum')));
    release();
    await cache.settled();
    const mirror = await cache.index(TENANT);
    expect(mirror).toBeDefined();
    for (const query of QUERIES) {
      for (const filter of FILTERS) {
        expect(mirrorHits(mirror as TextMirror, query, filter)).toEqual(await hits(oracle, query, filter));
      }
    }
    await cache.stop();
  });

  it('catches up more than a page in the background, and rebuilds an index whose log was pruned', async () => {
    const a = await seeded(2);
    const cache = createPostgresTextCache(await connection(), { pageSize: 3 });
    const small = await cache.index(TENANT);
    expect(small?.index.size).toBe(2); // one page: built in the search's own statement

    await both(a, (store) =>
      store.memories.insertMemories(
        TENANT,
        [2, 3, 4, 5, 6].map((index) => memory(index)),
      ),
    );
    await both(a, (store) => store.memories.deleteMemories(TENANT, ['m-001']));
    expect(await cache.index(TENANT)).toBeUndefined(); // six log entries: caught up in the background
    await cache.settled();
    const caughtUp = await cache.index(TENANT);
    expect(caughtUp).toBe(small);
    expect(mirrorHits(caughtUp as TextMirror, 'apple banana', CURRENT)).toEqual(
      await hits(oracle, 'apple banana', CURRENT),
    );

    // Pruning what the index has applied leaves it in use.
    await a.memories.pruneChanges(0);
    expect(await cache.index(TENANT)).toBe(small);
    // Entries it had not applied are pruned: it is dropped and built again, never left stale.
    await both(a, (store) => store.memories.deleteMemories(TENANT, ['m-002']));
    await a.memories.pruneChanges(0);
    expect(await cache.index(TENANT)).toBeUndefined();
    expect(await cache.index(TENANT)).toBeUndefined(); // five rows: built again in the background
    await cache.settled();
    const rebuilt = await cache.index(TENANT);
    expect(rebuilt).toBeDefined();
    expect(rebuilt).not.toBe(small);
    expect(mirrorHits(rebuilt as TextMirror, 'apple banana', CURRENT)).toEqual(
      await hits(oracle, 'apple banana', CURRENT),
    );
    await cache.stop();
  });
});
