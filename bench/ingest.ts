/**
 * Ingest throughput: `memories.create` in batches (validation, embedding, deduplication, storage
 * and its indexes) against the embedder's own throughput on the same texts, batch by batch in the
 * same run (the embedder alone, then engram, per batch). Target: engram ≥ 30 % of the embedder.
 * Usage: npx tsx bench/ingest.ts [--memories 10000] [--batch 100] [--stores memory,sqlite]
 */
import { createEngram } from '../src/engram.js';
import { createStaticEmbeddingProvider } from '../src/providers/embeddings/static-embedding-provider.js';
import { createTextSampler, TENANT, userMemoryBatches } from './assembly-workload.js';
import { machine, openStore, printTable, storeDrivers } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  memories: { type: 'string', default: '10000', check: 'number' },
  batch: { type: 'string', default: '100', check: 'number' },
  stores: { type: 'string', default: 'memory,sqlite', check: { listOf: storeDrivers } },
});
const count = Number(values.memories);
const batchSize = Number(values.batch);

console.log(`Ingest throughput (${machine()}): ${count} memories in batches of ${batchSize}\n`);
const embedder = await createStaticEmbeddingProvider();
const rows: (string | number)[][] = [];
for (const driver of values.stores.split(',')) {
  const engram = await createEngram({ store: await openStore(driver), embedder, sweepIntervalMs: 0 });
  const batches = [...userMemoryBatches(await createTextSampler(), count, batchSize)];
  let embedding = 0;
  let ingesting = 0;
  for (const batch of batches) {
    let started = performance.now();
    await embedder.embed(batch.map((input) => input.text));
    embedding += performance.now() - started;
    started = performance.now();
    await engram.memories.create(TENANT, batch);
    ingesting += performance.now() - started;
  }
  const embedRate = count / (embedding / 1_000);
  const ingestRate = count / (ingesting / 1_000);
  rows.push([
    driver,
    embedRate.toFixed(0),
    ingestRate.toFixed(0),
    `${((100 * ingestRate) / embedRate).toFixed(0)} %`,
  ]);
  await engram.close();
}
printTable(['store', 'embedder texts/s', 'engram memories/s', 'engram / embedder'], rows);
