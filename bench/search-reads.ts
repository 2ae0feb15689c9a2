/**
 * Candidate records a hybrid search reads (`getMemories`) for each built-in source of a turn, on
 * the assembly workload (bench/assembly-workload.ts), against reading the whole fused pool
 * (`readWholePool`): what `src/retrieval/rank-pool.ts` saves. Counts, not times, so the numbers
 * hold on a busy machine. Both readings must return the same hits; the script checks it.
 * Usage: npx tsx bench/search-reads.ts [--memories 100000] [--stores memory,sqlite] [--queries 100]
 */
import { isDeepStrictEqual } from 'node:util';
import { createEngram } from '../src/engram.js';
import { createStaticEmbeddingProvider } from '../src/providers/embeddings/static-embedding-provider.js';
import { hybridSearch, type SearchRequest } from '../src/retrieval/hybrid-search.js';
import type { MemoryRecordStore } from '../src/stores/memory-record-store.js';
import { AGENT, createTextSampler, openWorkload, TENANT, USER } from './assembly-workload.js';
import { machine, printTable, storeDrivers } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  memories: { type: 'string', default: '100000', check: 'number' },
  stores: { type: 'string', default: 'memory,sqlite', check: { listOf: storeDrivers } },
  queries: { type: 'string', default: '100', check: 'number' },
  messages: { type: 'string', default: '2000', check: 'number' },
});
const memories = Number(values.memories);
const queries = Number(values.queries);

/** The three searches of a turn, as the built-in sources ask for them (see memory-sources.ts). */
const searches: { name: string; request: (text: string) => SearchRequest }[] = [
  {
    name: 'working set (page of 50)',
    request: (text) => ({
      text,
      limit: 50,
      filter: {
        userId: { eq: USER },
        memoryType: { any: ['semantic', 'message'] },
        documentId: { exists: false },
      },
    }),
  },
  {
    name: 'episodes (3)',
    request: (text) => ({ text, limit: 3, filter: { userId: { eq: USER }, memoryType: { eq: 'episodic' } } }),
  },
  {
    name: 'knowledge (5)',
    request: (text) => ({ text, limit: 5, filter: { agentId: { eq: AGENT }, documentId: { exists: true } } }),
  },
  { name: 'search (10 best)', request: (text) => ({ text, limit: 10, filter: { userId: { eq: USER } } }) },
];

console.log(`Records read per hybrid search (${machine()}), ${memories} memories, ${queries} queries\n`);
const embedder = await createStaticEmbeddingProvider();
const rows: (string | number)[][] = [];
for (const driver of values.stores.split(',')) {
  const { engram } = await openWorkload(driver, memories, Number(values.messages), (store) =>
    createEngram({ store, embedder, sweepIntervalMs: 0, sessionEnd: { idleMs: 0 } }),
  );
  const base = engram.store.memories;
  let read = 0;
  const counted: MemoryRecordStore = Object.create(base);
  counted.getMemories = (tenantId, ids) => {
    read += ids.length;
    return base.getMemories(tenantId, ids);
  };
  const texts = await createTextSampler(99);
  for (const search of searches) {
    let lazy = 0;
    let whole = 0;
    for (let index = 0; index < queries; index++) {
      const request = search.request(texts.query());
      const now = new Date();
      read = 0;
      const lazily = await hybridSearch(counted, embedder, TENANT, request, now);
      lazy += read;
      read = 0;
      const wholly = await hybridSearch(counted, embedder, TENANT, request, now, { readWholePool: true });
      whole += read;
      if (!isDeepStrictEqual(lazily, wholly)) throw new Error(`${search.name}: the two readings differ`);
    }
    rows.push([driver, search.name, lazy / queries, whole / queries, lazy / whole]);
  }
  await engram.close();
}
printTable(['store', 'search', 'records read', 'whole pool', 'share'], rows);
