import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import {
  CURRENT,
  EVERYTHING,
  newMemory,
  nextVersion,
  TENANT,
} from '../../../test/conformance/memory-record-fixtures.js';
import { queuedBy } from '../../../test/support/queued-turns.js';
import { withSeededSqliteFile } from '../../../test/support/seeded-sqlite-file.js';
import { useTemporaryDirectories } from '../../../test/support/temporary-directories.js';
import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { Bm25Index } from '../../core/text/bm25-index.js';
import { seededRandom } from '../../core/vectors/seeded-random.js';
import type { EngramStore } from '../engram-store.js';
import { compileStableMemoryFilter } from '../memory-filter.js';
import { openDatabase } from './open-database.js';
import { createSqliteStore } from './sqlite-store.js';
import { SqliteTextCache } from './sqlite-text-cache.js';

// Each chunk of a load must wait in the shared queue of sliced work (`nextTurn`).
vi.mock('../../core/event-loop-slicer.js', async (importOriginal) =>
  (await import('../../../test/support/queued-turns.js')).recordingNextTurn(await importOriginal()),
);

const temporaryDirectory = useTemporaryDirectories('engram-sqlite-text-cache-');
const WORDS = ['kayak', 'lake', 'trip', 'sun', 'paint', 'group', 'support', 'art', 'dog', 'rare', 'tea'];
const QUERIES = ['kayak trip', 'rare dog', 'sun', 'support group art', 'tea lake paint'];

/** Hits as ids and scores (the mirror's items hold more fields than the references'). */
const scored = (hits: readonly { id: string; score: number }[] | undefined) =>
  hits?.map(({ id, score }) => ({ id, score }));

describe('SqliteTextCache', () => {
  it('holds at most maxHeld indexes, dropping the least recently searched', async () => {
    const seed = async (writer: EngramStore) => {
      for (const tenant of ['t1', 't2', 't3'])
        await writer.memories.insertMemories(tenant, [newMemory(`${tenant}-m`, { text: `tea ${tenant}` })]);
    };
    await withSeededSqliteFile(temporaryDirectory(), seed, (database) => {
      const cache = new SqliteTextCache(database, 2);
      const first = cache.index('t1');
      const second = cache.index('t2');
      expect(cache.index('t1')).toBe(first); // held, and now the most recently searched
      cache.index('t3');
      expect(cache.index('t1')).toBe(first);
      expect(cache.index('t2')).not.toBe(second); // dropped for t3, built again
    });
  });

  it('indexes a small tenant at its first search, scored by its own statistics, not the whole file', async () => {
    const small = ['tea by the lake', 'a kayak trip', 'rare tea and rare art'].map((text, index) =>
      newMemory(`s${index}`, { text }),
    );
    const seed = async (writer: EngramStore) => {
      await writer.memories.insertMemories('small-tenant', small);
      // Another tenant of the same file uses the query words everywhere (FTS5 would count them).
      await writer.memories.insertMemories(
        TENANT,
        Array.from({ length: 200 }, (_, index) =>
          newMemory(`o${index}`, { text: `tea rare kayak ${index}` }),
        ),
      );
    };
    const reference = new Bm25Index<{ validTo: string | null }>();
    for (const record of small) reference.add(record.id, record.text, { validTo: null });
    await withSeededSqliteFile(temporaryDirectory(), seed, async (database, writer) => {
      const cache = new SqliteTextCache(database);
      // It fits in one chunk of the build, which the first call makes: no search of it goes to FTS5.
      const mirror = cache.index('small-tenant');
      expect(mirror?.index.size).toBe(3);
      expect(scored(mirror?.index.search('rare tea', 10))).toEqual(scored(reference.search('rare tea', 10)));
      // Through the store, from its first search on.
      const hits = await writer.memories.searchText('small-tenant', 'rare tea', CURRENT, 10);
      expect(scored(hits)).toEqual(scored(reference.search('rare tea', 10)));
    });
  });

  it('builds in the background, then answers as a BM25 index of the rows does, following writes', async () => {
    const path = join(temporaryDirectory(), 'engram.db');
    const writer = await createSqliteStore({ path });
    const random = seededRandom(3);
    // Each text ends in its id, so no two are duplicates (which the store would not insert).
    const text = (id: string) =>
      [...Array.from({ length: 6 }, () => WORDS[Math.floor(random() ** 2 * WORDS.length)]), id].join(' ');
    // The reference: every version's text with its fields, as the mirror should hold them.
    const reference = new Bm25Index<{ validTo: string | null; userId: string | null }>();
    const write = async (id: string, userId: string) => {
      const record = newMemory(id, { text: text(id), userId });
      await writer.memories.insertMemories(TENANT, [record]);
      reference.add(id, record.text, { validTo: null, userId });
    };
    const batch = Array.from({ length: 5_200 }, (_, index) =>
      newMemory(`m${index}`, { text: text(`m${index}`), userId: index % 2 === 0 ? 'user-1' : 'user-2' }),
    );
    for (const record of batch)
      reference.add(record.id, record.text, { validTo: null, userId: record.userId });
    for (let start = 0; start < batch.length; start += 1_000) {
      await writer.memories.insertMemories(TENANT, batch.slice(start, start + 1_000));
    }

    const database = await openDatabase(path);
    try {
      const cache = new SqliteTextCache(database);
      expect(cache.index(TENANT)).toBeUndefined(); // the build starts; FTS5 answers meanwhile
      expect(cache.index('empty-tenant')?.index.size).toBe(0); // one chunk: indexed at once
      // Writes during the build are picked up from the change log when it ends.
      await write('during', 'user-1');
      await writer.memories.deleteMemories(TENANT, ['m0']);
      reference.remove('m0');
      await cache.settled();
      // 5,202 rows in chunks of 2,000: two chunks after the first, each in a turn of the queue.
      expect(queuedBy('step', 'sqlite-text-cache')).toBeGreaterThanOrEqual(2);
      const agrees = () => {
        const index = cache.index(TENANT);
        expect(index).toBeDefined();
        const filters: MemoryFilter[] = [CURRENT, EVERYTHING, { ...CURRENT, userId: { eq: 'user-2' } }];
        for (const filter of filters) {
          const accept = compileStableMemoryFilter(filter);
          const expected = (query: string) =>
            scored(reference.search(query, 30, (_id, fields) => accept(fields as never)));
          for (const query of QUERIES) {
            expect(scored(index?.index.search(query, 30, (_id, fields) => accept(fields)))).toEqual(
              expected(query),
            );
            const narrowed = index?.partitions.narrowest(filter);
            const candidates = narrowed ? { size: narrowed.size, ids: narrowed.keys } : undefined;
            expect(
              scored(index?.index.search(query, 30, (_id, fields) => accept(fields), { candidates })),
            ).toEqual(expected(query));
          }
        }
      };
      agrees();
      // Another connection's writes (this cache's connection wrote nothing) show after data_version moves.
      await write('after', 'user-2');
      await writer.memories.deleteMemories(TENANT, ['m1', 'm2']);
      reference.remove('m1');
      reference.remove('m2');
      const replacement = newMemory('m3-new', { text: 'kayak kayak rare', userId: 'user-2' });
      const [old] = await writer.memories.getMemories(TENANT, ['m3']);
      const next = await writer.memories.supersede(TENANT, 'm3', replacement);
      reference.add('m3', old?.text ?? '', { validTo: next.validFrom, userId: old?.userId ?? null });
      reference.add('m3-new', replacement.text, { validTo: null, userId: 'user-2' });
      agrees();
      // An in-place version (stable id) from the other connection: new text and owner, old text gone.
      const update = nextVersion({ text: 'tea tea lake rare m4', userId: 'user-1' });
      await writer.memories.updateMemory(TENANT, 'm4', update);
      reference.remove('m4');
      reference.add('m4', update.text, { validTo: null, userId: 'user-1' });
      agrees();
    } finally {
      database.close();
      await writer.close();
    }
  });
});
