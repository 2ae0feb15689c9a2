/**
 * Long-term memory search latency at scale: N memories of one user (12 words each from a 10,000-word
 * vocabulary, random unit vectors), ingested in batches of 1,000, then `searchText` (3-word queries
 * drawn from the same distribution) and `searchVector` (random unit vectors), both filtered to the
 * user's current memories, as hybrid search calls them (limit 100, its candidate pool).
 *
 * Words follow Zipf's law (s = 1) over ranks `skip-ranks + 1` onwards: the default 100 leaves out
 * the ranks that stopwords take in English, so the commonest word is in about 3% of memories, as a
 * common content word is. `--skip-ranks 0` is a stress case where a few words are in most memories.
 * Usage: npx tsx bench/memory-search.ts [--memories 100000] [--dimensions 100] [--queries 200]
 *        [--stores memory,sqlite] [--limit 100] [--skip-ranks 100] [--vector-extension true]
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import type { MemoryFilter } from '../src/core/schemas/memory-record.js';
import type { EngramStore } from '../src/stores/engram-store.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import type { NewMemoryRecord } from '../src/stores/memory-record-store.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { newMemory } from '../test/conformance/memory-record-fixtures.js';
import { machine, percentile, printTable, time } from './bench-utilities.js';

const { values } = parseArgs({
  options: {
    memories: { type: 'string', default: '100000' },
    dimensions: { type: 'string', default: '100' },
    queries: { type: 'string', default: '200' },
    stores: { type: 'string', default: 'memory,sqlite' },
    limit: { type: 'string', default: '100' },
    'skip-ranks': { type: 'string', default: '100' },
    'vector-extension': { type: 'string', default: 'true' },
  },
});
const count = Number(values.memories);
const dimensions = Number(values.dimensions);
const queries = Number(values.queries);
const limit = Number(values.limit);
const BATCH = 1_000;
const TENANT = 'bench';
const MODEL = `bench-random@${dimensions}`;
const filter: MemoryFilter = { includeSuperseded: false, userId: { eq: 'bench-user' } };

/** mulberry32: a small seeded generator, so every store gets the same data and queries. */
function generator(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state + 0x6d2b79f5) | 0;
    let value = Math.imul(state ^ (state >>> 15), 1 | state);
    value ^= value + Math.imul(value ^ (value >>> 7), 61 | value);
    return ((value ^ (value >>> 14)) >>> 0) / 4_294_967_296;
  };
}

const SYLLABLES = 'ka lo mi ren dus tor vel sa pim gor nu bel fa ris to quen dra mol yu zet'.split(' ');
const vocabulary = Array.from({ length: 10_000 }, (_, index) => {
  let word = '';
  for (let rest = index + 400; rest > 0; rest = Math.floor(rest / SYLLABLES.length)) {
    word += SYLLABLES[rest % SYLLABLES.length];
  }
  return word;
});
/** Cumulative Zipf (s = 1) weights over the vocabulary, for sampling by binary search. */
const skipRanks = Number(values['skip-ranks']);
const cumulative = vocabulary.map((_, rank) => 1 / (rank + 1 + skipRanks));
for (let index = 1; index < cumulative.length; index++) {
  cumulative[index] = (cumulative[index] ?? 0) + (cumulative[index - 1] ?? 0);
}

function zipfWord(random: () => number): string {
  const target = random() * (cumulative.at(-1) ?? 1);
  let low = 0;
  let high = cumulative.length - 1;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if ((cumulative[middle] ?? 0) < target) low = middle + 1;
    else high = middle;
  }
  return vocabulary[low] ?? '';
}

function unitVector(random: () => number): Float32Array {
  const vector = new Float32Array(dimensions);
  let norm = 0;
  for (let index = 0; index < dimensions; index++) {
    // Box-Muller: Gaussian coordinates give directions uniform on the sphere.
    const value = Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
    vector[index] = value;
    norm += value * value;
  }
  norm = Math.sqrt(norm);
  for (let index = 0; index < dimensions; index++) vector[index] = (vector[index] ?? 0) / norm;
  return vector;
}

function record(index: number, random: () => number): NewMemoryRecord {
  const at = new Date(Date.UTC(2026, 0, 1) + index * 1_000).toISOString();
  const fields = {
    text: `${Array.from({ length: 12 }, () => zipfWord(random)).join(' ')}.`,
    namespace: 'bench',
    userId: 'bench-user',
    memoryHash: `hash-${index}`,
    ...{ createdAt: at, updatedAt: at, lastAccessed: at, validFrom: at, persistedAt: at },
  };
  return {
    ...newMemory(`m${String(index).padStart(7, '0')}`, fields),
    embedding: { model: MODEL, vector: unitVector(random) },
  };
}

async function open(driver: string): Promise<{ store: EngramStore; cleanup: () => void }> {
  if (driver === 'memory') return { store: createMemoryStore(), cleanup: () => {} };
  if (driver === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'engram-bench-memories-'));
    const vectorExtension = values['vector-extension'] !== 'false';
    const store = await createSqliteStore({ path: join(directory, 'engram.db'), vectorExtension });
    return { store, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
  }
  throw new Error(`Unknown store "${driver}" (memory, sqlite)`);
}

console.log(
  `Long-term memory search (${machine()}): ${count} memories of one user, ${dimensions} dimensions, ` +
    `${queries} queries per method, limit ${limit}, Zipf words from rank ${skipRanks + 1}\n`,
);
const rows: (string | number)[][] = [];
for (const driver of values.stores.split(',')) {
  const { store, cleanup } = await open(driver);
  const random = generator(42);
  const started = performance.now();
  for (let start = 0; start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) =>
      record(start + offset, random),
    );
    await store.memories.insertMemories(TENANT, batch);
  }
  const ingest = count / ((performance.now() - started) / 1_000);
  const queryRandom = generator(7);
  const textQueries = Array.from({ length: queries }, () =>
    [1, 2, 3].map(() => zipfWord(queryRandom)).join(' '),
  );
  const vectorQueries = Array.from({ length: queries }, () => unitVector(queryRandom));
  let next = 0;
  const text = await time(
    () => store.memories.searchText(TENANT, textQueries[next++ % queries] ?? '', filter, limit),
    queries,
    20,
  );
  next = 0;
  const vector = await time(
    () =>
      store.memories.searchVector(
        TENANT,
        vectorQueries[next++ % queries] as Float32Array,
        MODEL,
        filter,
        limit,
      ),
    queries,
    20,
  );
  const label = driver === 'sqlite' ? `sqlite (${store.memories.capabilities.vectorDistance})` : driver;
  rows.push([label, 'searchText', count, Math.round(ingest), percentile(text, 50), percentile(text, 99)]);
  rows.push([
    label,
    'searchVector',
    count,
    Math.round(ingest),
    percentile(vector, 50),
    percentile(vector, 99),
  ]);
  await store.close();
  cleanup();
}
printTable(['store', 'method', 'memories', 'ingest memories/s', 'p50 ms', 'p99 ms'], rows);
