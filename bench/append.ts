/**
 * Append latency into a short and a long session in the same run: the ratio shows whether the
 * cost of an append grows with the session's length (target: <= 1.2).
 * Usage: npx tsx bench/append.ts [--small 1000] [--large 100000] [--stores memory,sqlite] [--iterations 500]
 */
import { parseArgs } from 'node:util';
import { createEngram } from '../src/engram.js';
import { machine, openStore, percentile, printTable, seedSession, time } from './bench-utilities.js';

const { values } = parseArgs({
  options: {
    small: { type: 'string', default: '1000' },
    large: { type: 'string', default: '100000' },
    stores: { type: 'string', default: 'memory,sqlite' },
    iterations: { type: 'string', default: '500' },
  },
});
const iterations = Number(values.iterations);
const sizes = [Number(values.small), Number(values.large)];

console.log(`Append latency, one message per call (${machine()}), ${iterations} iterations\n`);
const rows: (string | number)[][] = [];
for (const driver of values.stores.split(',')) {
  const engram = await createEngram({ store: await openStore(driver), sweepIntervalMs: 0 });
  for (const size of sizes) await seedSession(engram, `bench-${size}`, size);
  // Interleave the two sessions so that drift (disk cache, GC) affects both alike.
  const samples = new Map<number, number[]>(sizes.map((size) => [size, []]));
  for (let round = 0; round < iterations; round++) {
    for (const size of sizes) {
      const [sample] = await time(
        () =>
          engram.sessions.append({ sessionId: `bench-${size}` }, [
            { role: 'user', content: `ping ${round}` },
          ]),
        1,
        0,
      );
      samples.get(size)?.push(sample ?? 0);
    }
  }
  const [small, large] = sizes.map((size) => samples.get(size) ?? []);
  const ratio = percentile(large ?? [], 50) / percentile(small ?? [], 50);
  for (const size of sizes) {
    const list = samples.get(size) ?? [];
    rows.push([driver, size, percentile(list, 50), percentile(list, 99), size === sizes[1] ? ratio : '']);
  }
  await engram.close();
}
printTable(['store', 'session messages', 'p50 ms', 'p99 ms', 'p50 ratio large/small'], rows);
