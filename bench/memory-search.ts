/**
 * Long-term memory search latency at scale: N memories of one user (12 words each from a 10,000-word
 * vocabulary, with a vector each), ingested in batches of 1,000, then `searchText` (3-word queries
 * drawn from the same distribution) and `searchVector`, both filtered to the user's current
 * memories, as hybrid search calls them (limit 100, its candidate pool). Vector search reports its
 * recall@10: the share of the exact 10 nearest (brute force here, ties by id) among its first 10.
 *
 * Words follow Zipf's law (s = 1) over ranks `skip-ranks + 1` onwards: the default 100 leaves out
 * the ranks that stopwords take in English, so the commonest word is in about 3% of memories, as a
 * common content word is. `--skip-ranks 0` is a stress case where a few words are in most memories.
 *
 * Vectors (`--vectors`): `topical` (default) embeds, with engram's offline static embedder, 12 real
 * words per memory (8 from one of 1,000 topics, each a word and its 150 nearest words, plus 4 Zipf
 * words), and 3 topic words per query: memories on one topic lie near each other, as with real text.
 * `random` draws uniform directions: no structure at all, the worst case for any approximate index.
 *
 * `hybrid` is the whole of `hybridSearch` as `engram.memories.search` runs it (limit 10, default
 * options: both rankings over a pool of 200, fusion, neighbour context, the exact `total`), with an
 * embedder that hands back each query's vector; a second table splits its p50 into the text
 * ranking, the vector ranking and the count. Before timing, the store's background index builds
 * are let finish (the vector index's training, and SQLite's text index: the `first search` of
 * each method starts them and is answered meanwhile by an exact scan or FTS5), and every search
 * yields to the event loop first, as requests to a server do. `hybrid (CPU time)` is the process
 * CPU time of each search (all threads, so the garbage collector's helpers too): on a shared
 * machine, wall time also counts waiting for a core, and this does not.

 * `--stores postgres` runs the PostgreSQL driver in a fresh schema of `--postgres-url` (dropped
 * afterwards), and adds its database round trips per call to the breakdown. `--keep-schema NAME`
 * loads into schema NAME and keeps it; a later run with the same name and `--memories` reuses the
 * loaded memories (ingest is then not measured): a million memories take over half an hour to load.
 * `--warm-searches N` (default 20) untimed searches come before each method's timed ones. A query's
 * words are new to the driver's statistics cache the first time (PostgreSQL counts their document
 * frequencies in the search) and their impacts are found the second time: 200 (every query twice)
 * times a server whose cache knows the words, 20 mostly times first sightings.
 * `--hnsw-ef-construction` and `--hnsw-ef-search` set the PostgreSQL store's pgvector settings (its
 * defaults otherwise); `--in-process-vectors false` searches vectors in PostgreSQL (HNSW) instead of
 * the tenant's in-process mirror.
 *
 * Usage: npx tsx bench/memory-search.ts [--memories 100000] [--dimensions 100] [--queries 200]
 *        [--stores memory,sqlite,postgres] [--limit 100] [--skip-ranks 100] [--vector-extension true]
 *        [--vectors topical|random] [--postgres-url postgres://postgres@127.0.0.1:5432/test]
 *        [--keep-schema NAME] [--warm-searches 20] [--hnsw-ef-construction 200] [--hnsw-ef-search 300]
 *        [--in-process-vectors true]
 *        (topical vectors have the embedder's 100 dimensions)
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { MemoryFilter } from '../src/core/schemas/memory-record.js';
import { dotProduct, unitVector } from '../src/core/vectors/dot-product.js';
import { NearestHeap } from '../src/core/vectors/nearest-heap.js';
import { seededRandom } from '../src/core/vectors/seeded-random.js';
import type { EmbeddingProvider } from '../src/providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../src/providers/embeddings/static-embedding-provider.js';
import { decodeWordVectorFile } from '../src/providers/embeddings/word-vector-file.js';
import { hybridSearch } from '../src/retrieval/hybrid-search.js';
import type { EngramStore } from '../src/stores/engram-store.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import type { NewMemoryRecord } from '../src/stores/memory-record-store.js';
import { createPostgresStore, type PostgresStore } from '../src/stores/postgres/postgres-store.js';
import type { SqliteMemoryRecordStore } from '../src/stores/sqlite/sqlite-memory-record-store.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { newMemory } from '../test/conformance/memory-record-fixtures.js';
import {
  machine,
  percentile,
  printTable,
  storeDrivers,
  time,
  vacuumPostgresSchema,
} from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  memories: { type: 'string', default: '100000', check: 'number' },
  dimensions: { type: 'string', default: '100', check: 'number' },
  queries: { type: 'string', default: '200', check: 'number' },
  stores: { type: 'string', default: 'memory,sqlite', check: { listOf: storeDrivers } },
  limit: { type: 'string', default: '100', check: 'number' },
  'skip-ranks': { type: 'string', default: '100', check: 'number' },
  'vector-extension': { type: 'string', default: 'true', check: { oneOf: ['true', 'false'] } },
  vectors: { type: 'string', default: 'topical', check: { oneOf: ['topical', 'random'] } },
  'postgres-url': { type: 'string', default: 'postgres://postgres@127.0.0.1:5432/test' },
  'keep-schema': { type: 'string' },
  'warm-searches': { type: 'string', default: '20', check: 'number' },
  'hnsw-ef-construction': { type: 'string', check: 'number' },
  'hnsw-ef-search': { type: 'string', check: 'number' },
  'in-process-vectors': { type: 'string', default: 'true', check: { oneOf: ['true', 'false'] } },
});
const count = Number(values.memories);
const topical = values.vectors === 'topical';
const dimensions = topical ? 100 : Number(values.dimensions);
const queries = Number(values.queries);
const limit = Number(values.limit);
/** Untimed searches before each method's timed ones (200: every query twice, so its words' statistics are known). */
const warmup = Number(values['warm-searches']);
const BATCH = 1_000;
const TENANT = 'bench';
const MODEL = `bench-random@${dimensions}`;
const filter: MemoryFilter = { includeSuperseded: false, userId: { eq: 'bench-user' } };

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

function randomDirection(random: () => number): Float32Array {
  // Box-Muller: Gaussian coordinates give directions uniform on the sphere.
  const gaussian = () => Math.sqrt(-2 * Math.log(1 - random())) * Math.cos(2 * Math.PI * random());
  return unitVector(Float32Array.from({ length: dimensions }, gaussian));
}

/** The words of the static embedder's vocabulary from rank 100 to 10,100, and a Zipf sampler over them. */
async function embedderWords(random: () => number): Promise<{ words: string[]; zipf: () => string }> {
  const url = new URL('../src/providers/embeddings/data/word-vectors.bin', import.meta.url);
  const words = decodeWordVectorFile(await readFile(url)).words.slice(100, 10_100);
  return { words, zipf: () => words[Math.floor(Math.exp(random() * Math.log(words.length)))] ?? '' };
}

/**
 * Topical memory and query vectors (see the header): topics are a random word with its 150 nearest
 * words by the embedder's own word vectors; texts are embedded in batches by the static provider.
 */
async function topicalVectors(memories: number, queries: number): Promise<[Float32Array[], Float32Array[]]> {
  const random = seededRandom(42);
  const provider = await createStaticEmbeddingProvider();
  const { words, zipf } = await embedderWords(random);
  const wordVectors = await provider.embed(words);
  const topics = Array.from({ length: 1_000 }, () => {
    const seed = wordVectors[Math.floor(random() * words.length)] as Float32Array;
    const nearest = new NearestHeap(150);
    for (const [index, vector] of wordVectors.entries()) {
      nearest.offer(index, 1 - dotProduct(vector, 0, seed, 0, dimensions));
    }
    return nearest.sorted().map(({ key }) => words[key] ?? '');
  });
  const pick = <T>(list: readonly T[]) => list[Math.floor(random() * list.length)] as T;
  const text = (topicWords: number, commonWords: number) => {
    const topic = pick(topics);
    return [
      ...Array.from({ length: topicWords }, () => pick(topic)),
      ...Array.from({ length: commonWords }, zipf),
    ].join(' ');
  };
  const embedAll = async (size: number, topicWords: number, commonWords: number) => {
    const vectors: Float32Array[] = [];
    for (let start = 0; start < size; start += BATCH) {
      const texts = Array.from({ length: Math.min(BATCH, size - start) }, () =>
        text(topicWords, commonWords),
      );
      vectors.push(...(await provider.embed(texts)));
    }
    return vectors;
  };
  return [await embedAll(memories, 8, 4), await embedAll(queries, 3, 0)];
}

/** The ids of the exact `limit` nearest vectors to `query` (ties by id, as the stores order them). */
function exactNearest(vectors: readonly Float32Array[], query: Float32Array, limit: number): Set<string> {
  const unit = unitVector(query);
  const nearest = new NearestHeap(limit);
  for (const [index, vector] of vectors.entries())
    nearest.offer(index, 1 - dotProduct(vector, 0, unit, 0, dimensions));
  return new Set(nearest.sorted().map(({ key }) => memoryId(key)));
}

const memoryId = (index: number): string => `m${String(index).padStart(7, '0')}`;

function record(index: number, random: () => number, vector: Float32Array): NewMemoryRecord {
  const at = new Date(Date.UTC(2026, 0, 1) + index * 1_000).toISOString();
  const fields = {
    text: `${Array.from({ length: 12 }, () => zipfWord(random)).join(' ')}.`,
    namespace: 'bench',
    userId: 'bench-user',
    memoryHash: `hash-${index}`,
    ...{ createdAt: at, updatedAt: at, lastAccessed: at, validFrom: at, persistedAt: at },
  };
  return {
    ...newMemory(memoryId(index), fields),
    embedding: { model: MODEL, vector },
  };
}

async function open(
  driver: string,
): Promise<{ store: EngramStore; cleanup: () => Promise<void> | void; schema?: string; loaded?: boolean }> {
  if (driver === 'memory') return { store: createMemoryStore(), cleanup: () => {} };
  if (driver === 'sqlite') {
    const directory = mkdtempSync(join(tmpdir(), 'engram-bench-memories-'));
    const vectorExtension = values['vector-extension'] !== 'false';
    const store = await createSqliteStore({ path: join(directory, 'engram.db'), vectorExtension });
    return { store, cleanup: () => rmSync(directory, { recursive: true, force: true }) };
  }
  if (driver === 'postgres') {
    const kept = values['keep-schema'];
    const schema = kept ?? `engram_bench_${Date.now()}`;
    const connectionString = values['postgres-url'];
    // Batches of 1,000 into a growing HNSW index can pass the server default statement_timeout
    // (10 s) on a loaded 2-core machine: ingest is measured, not cut short.
    const setting = (name: 'hnsw-ef-construction' | 'hnsw-ef-search') =>
      values[name] === undefined ? undefined : Number(values[name]);
    const store = await createPostgresStore({
      connectionString,
      schema,
      statementTimeoutMs: 600_000,
      hnswEfConstruction: setting('hnsw-ef-construction'),
      hnswEfSearch: setting('hnsw-ef-search'),
      inProcessVectorIndex: values['in-process-vectors'] !== 'false',
    });
    if (kept !== undefined) {
      const held = await store.memories.countMemories(TENANT, filter);
      if (held !== 0 && held !== count) {
        throw new Error(
          `Schema "${kept}" holds ${held} memories, not --memories ${count}: drop it or name another`,
        );
      }
      return { store, cleanup: () => {}, schema, loaded: held === count };
    }
    const cleanup = async () => {
      const pg = (await import('pg')).default;
      const client = new pg.Client({ connectionString });
      await client.connect();
      await client.query(`DROP SCHEMA "${schema}" CASCADE`);
      await client.end();
    };
    return { store, cleanup, schema };
  }
  throw new Error(`Unknown store "${driver}" (memory, sqlite, postgres)`);
}

console.log(
  `Long-term memory search (${machine()}): ${count} memories of one user, ${values.vectors} vectors of ` +
    `${dimensions} dimensions, ${queries} queries per method, limit ${limit}, Zipf words from rank ${skipRanks + 1}\n`,
);
const vectorRandom = seededRandom(42);
const [memoryVectors, vectorQueries] = topical
  ? await topicalVectors(count, queries)
  : [
      Array.from({ length: count }, () => randomDirection(vectorRandom)),
      Array.from({ length: queries }, () => randomDirection(vectorRandom)),
    ];
const truth = vectorQueries.map((query) => exactNearest(memoryVectors, query, 10));
const queryRandom = seededRandom(7);
const textQueries = Array.from({ length: queries }, () =>
  [1, 2, 3].map(() => zipfWord(queryRandom)).join(' '),
);

const rows: (string | number)[][] = [];
const breakdown: (string | number)[][] = [];
const notes: string[] = [];

/** Runs `task` after a turn of the event loop, as a server runs each request. */
const yieldThen = <T>(task: () => Promise<T>): Promise<T> =>
  new Promise((resolve) => setImmediate(resolve)).then(task);

/**
 * Times full hybrid searches (limit 10) with the text and vector queries of the same index, and the
 * three store calls they make, each over the same queries after a warm-up.
 */
async function timeHybrid(store: EngramStore) {
  let current = 0;
  const embedder: EmbeddingProvider = {
    model: MODEL,
    dimensions,
    embed: async (texts) => texts.map(() => vectorQueries[current % queries] as Float32Array),
  };
  const pool = 200;
  const request = (index: number) => ({ text: textQueries[index % queries] ?? '', filter, limit: 10 });
  const run = (task: (index: number) => Promise<unknown>) => {
    let index = 0;
    return time(() => yieldThen(() => task(index++)), queries, warmup);
  };
  // CPU time too: on a shared machine, wall time also counts waiting for a core.
  const cpu: number[] = [];
  const total = await run(async (index) => {
    current = index;
    const before = process.cpuUsage();
    await hybridSearch(store.memories, embedder, TENANT, request(index), new Date());
    const used = process.cpuUsage(before);
    cpu.push((used.user + used.system) / 1_000);
  });
  const text = await run((index) => store.memories.searchText(TENANT, request(index).text, filter, pool));
  const vector = await run((index) =>
    store.memories.searchVector(TENANT, vectorQueries[index % queries] as Float32Array, MODEL, filter, pool),
  );
  const counted = await run(() => store.memories.countMemories(TENANT, filter));
  // Database round trips of one hybrid search (PostgreSQL only).
  const trips = (store as Partial<PostgresStore>).roundTrips;
  let roundTrips: number | string = '';
  if (trips) {
    const before = trips();
    await hybridSearch(store.memories, embedder, TENANT, request(0), new Date());
    roundTrips = trips() - before;
  }
  return { total, cpu: cpu.slice(20), text, vector, count: counted, roundTrips };
}
for (const driver of values.stores.split(',')) {
  const { store, cleanup, schema, loaded } = await open(driver);
  const random = seededRandom(42);
  const started = performance.now();
  for (let start = 0; !loaded && start < count; start += BATCH) {
    const batch = Array.from({ length: Math.min(BATCH, count - start) }, (_, offset) =>
      record(start + offset, random, memoryVectors[start + offset] as Float32Array),
    );
    await store.memories.insertMemories(TENANT, batch);
  }
  const ingestMs = performance.now() - started;
  const ingest = loaded ? '– (reused)' : Math.round(count / (ingestMs / 1_000));
  const searchVector = (index: number) =>
    store.memories.searchVector(TENANT, vectorQueries[index] as Float32Array, MODEL, filter, limit);
  // The first searches start the background builds (SQLite's text index and vector collection
  // load; the vector index's training) and are answered meanwhile by FTS5 or an exact scan: each
  // is timed on its own, then the builds.
  const firstTextStarted = performance.now();
  await store.memories.searchText(TENANT, textQueries[0] ?? '', filter, limit);
  const firstText = performance.now() - firstTextStarted;
  const firstStarted = performance.now();
  await searchVector(0);
  const first = performance.now() - firstStarted;
  const buildStarted = performance.now();
  await (store.memories as Partial<SqliteMemoryRecordStore>).settled?.();
  const build = performance.now() - buildStarted;
  // As autovacuum would have after the load (this PostgreSQL runs without it: bench-utilities.ts).
  if (schema !== undefined) await vacuumPostgresSchema(schema, values['postgres-url']);
  if (driver === 'postgres' && !loaded) {
    // Acknowledged writes are searchable at once (the tail is read exactly); this is when the
    // background indexer had moved every vector into the HNSW graph too.
    const indexedMs = performance.now() - started;
    notes.push(
      `postgres: ${count} memories acknowledged in ${(ingestMs / 1_000).toFixed(1)} s (${ingest}/s), all in the HNSW graph after ${(indexedMs / 1_000).toFixed(1)} s (${Math.round(count / (indexedMs / 1_000))}/s)`,
    );
  }
  const pruning = (store.memories as Partial<PostgresStore['memories']>).prunedTextSearches;
  const prunedBefore = pruning?.() ?? 0;
  let next = 0;
  const text = await time(
    () =>
      yieldThen(() => store.memories.searchText(TENANT, textQueries[next++ % queries] ?? '', filter, limit)),
    queries,
    warmup,
  );
  if (pruning) {
    notes.push(
      `${driver}: ${(pruning() ?? 0) - prunedBefore} of ${queries + warmup} text searches (limit ${limit}) answered by pruned BM25`,
    );
  }
  next = 0;
  const vector = await time(() => yieldThen(() => searchVector(next++ % queries)), queries, warmup);
  let found = 0;
  for (const [index, wanted] of truth.entries()) {
    const hits = (await searchVector(index)).slice(0, 10);
    found += hits.filter((hit) => wanted.has(hit.id)).length / wanted.size;
  }
  const hybrid = await timeHybrid(store);
  const label =
    driver === 'sqlite'
      ? `sqlite (${store.memories.capabilities.vectorDistance})`
      : driver === 'postgres'
        ? `postgres (${(store as PostgresStore).vectorIndex})`
        : driver;
  rows.push([
    label,
    'searchText',
    count,
    ingest,
    Math.round(firstText),
    percentile(text, 50),
    percentile(text, 99),
    '',
  ]);
  rows.push([
    label,
    'searchVector',
    count,
    ingest,
    Math.round(first),
    percentile(vector, 50),
    percentile(vector, 99),
    (found / queries).toFixed(3),
  ]);
  rows.push([
    label,
    'hybrid',
    count,
    ingest,
    '',
    percentile(hybrid.total, 50),
    percentile(hybrid.total, 99),
    '',
  ]);
  rows.push([
    label,
    'hybrid (CPU time)',
    count,
    ingest,
    '',
    percentile(hybrid.cpu, 50),
    percentile(hybrid.cpu, 99),
    '',
  ]);
  breakdown.push([
    label,
    percentile(hybrid.text, 50),
    percentile(hybrid.vector, 50),
    percentile(hybrid.count, 50),
    percentile(hybrid.total, 50),
    Math.round(build),
    hybrid.roundTrips,
  ]);
  await store.close();
  await cleanup();
}
printTable(
  ['store', 'method', 'memories', 'ingest memories/s', 'first search ms', 'p50 ms', 'p99 ms', 'recall@10'],
  rows,
);
console.log(
  '\nHybrid search p50 breakdown (ms), and the background index builds that the first searches started:\n',
);
printTable(
  ['store', 'text ranking', 'vector ranking', 'count', 'hybrid', 'background builds ms', 'round trips'],
  breakdown,
);
for (const note of notes) console.log(`\n${note}`);
