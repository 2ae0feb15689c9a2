/**
 * Context assembly latency, two ways:
 * - `engine`: sessions of different lengths, sources stubbed with fixed results (the engine alone).
 * - `sources`: the built-in sources over a realistic store (bench/assembly-workload.ts: N memories
 *   of one user, 20 procedures and 200 knowledge chunks for the agent, 2,000 messages), with the
 *   physical floor measured in the same run, interleaved with the turns: reading the newest 300
 *   messages plus a brute-force top-10 KNN over N vectors of the embedder's dimensions. SQLite
 *   workloads are built once into bench/.cache/ (gitignored) and reused.
 * Usage: npx tsx bench/assembly.ts [--modes engine,sources] [--sizes 10,1000,100000]
 *        [--memories 1000,10000,100000] [--messages 2000] [--stores memory,sqlite,postgres]
 *        [--iterations 300] [--budget 8000] [--split-sources]
 * `--split-sources` also times each built-in source alone after every turn (a second table).
 */
import type { MemorySource } from '../src/core/assembly/memory-source.js';
import { createEngram } from '../src/engram.js';
import { benchSources } from './assembly-sources.js';
import {
  machine,
  openStore,
  percentile,
  printTable,
  seedSession,
  storeDrivers,
  time,
} from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  sizes: { type: 'string', default: '10,1000,100000', check: 'numbers' },
  stores: { type: 'string', default: 'memory,sqlite', check: { listOf: storeDrivers } },
  iterations: { type: 'string', default: '300', check: 'number' },
  modes: { type: 'string', default: 'engine,sources', check: { listOf: ['engine', 'sources'] } },
  memories: { type: 'string', default: '1000,10000,100000', check: 'numbers' },
  messages: { type: 'string', default: '2000', check: 'number' },
  budget: { type: 'string', default: '8000', check: 'number' },
  'split-sources': { type: 'boolean', default: false },
});
const sizes = values.sizes.split(',').map(Number);
const iterations = Number(values.iterations);
const budget = Number(values.budget);

const fixed = (section: MemorySource['section'], count: number): MemorySource => ({
  name: `stub-${section}`,
  section,
  retrieve: async () =>
    Array.from({ length: count }, (_, index) => ({
      id: `${section}-${index}`,
      text: `Stub ${section} item ${index}: the user prefers window seats and vegetarian meals.`,
      score: 1 - index / 10,
      source: 'stub.md',
    })),
});
const sources = [fixed('procedure', 1), fixed('knowledge', 5), fixed('episodes', 3)];

const modes = values.modes.split(',');
console.log(`Context assembly latency (${machine()}), budget ${budget} tokens, ${iterations} iterations\n`);
const rows: (string | number)[][] = [];
for (const driver of modes.includes('engine') ? values.stores.split(',') : []) {
  for (const size of sizes) {
    // Only the fixed stub sources: the built-in ones would measure an empty long-term store.
    const engram = await createEngram({
      store: await openStore(driver),
      sources,
      defaultSources: false,
      sweepIntervalMs: 0,
    });
    const sessionId = `bench-${size}`;
    await seedSession(engram, sessionId, size);
    let kept = 0;
    const samples = await time(
      async () => {
        const result = await engram.assemble({
          session: { sessionId },
          message: 'Where should we go next spring?',
          agent: { memory: { maxWorkingMemoryTokens: budget, reservedOutputTokens: 1_000 } },
        });
        kept = result.trace.history.kept;
      },
      iterations,
      20,
    );
    rows.push([driver, size, kept, percentile(samples, 50), percentile(samples, 99)]);
    await engram.close();
  }
}
if (rows.length > 0) {
  console.log('Engine alone (sources stubbed):\n');
  printTable(['store', 'messages', 'history kept', 'p50 ms', 'p99 ms'], rows);
}
if (modes.includes('sources')) {
  await benchSources({
    stores: values.stores.split(','),
    memories: values.memories.split(',').map(Number),
    messages: Number(values.messages),
    iterations,
    budget,
    splitSources: values['split-sources'],
  });
}
