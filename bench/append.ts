/**
 * Append latency into a short and a long session in the same run: the ratio shows whether the
 * cost of an append grows with the session's length (target: <= 1.2). For SQLite it also counts
 * the WAL pages one append commits: after a TRUNCATE checkpoint (from a second connection, not
 * timed) the -wal file holds exactly the frames of the next commit.
 * Usage: npx tsx bench/append.ts [--small 1000] [--large 100000] [--stores memory,sqlite] [--iterations 500]
 */
import { mkdtempSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { createEngram } from '../src/engram.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
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

/** WAL frames (pages) per append of one message, over `count` appends into `sessionId`. */
async function walPagesPerAppend(count: number): Promise<number> {
  const path = join(mkdtempSync(join(tmpdir(), 'engram-wal-')), 'engram.db');
  const engram = await createEngram({ store: await createSqliteStore({ path }), sweepIntervalMs: 0 });
  await seedSession(engram, 'wal', 1_000);
  const observer = new Database(path);
  const pageSize = observer.pragma('page_size', { simple: true }) as number;
  let frames = 0;
  for (let index = 0; index < count; index++) {
    observer.pragma('wal_checkpoint(TRUNCATE)');
    await engram.sessions.append({ sessionId: 'wal' }, [{ role: 'user', content: `ping ${index}` }]);
    frames += (statSync(`${path}-wal`).size - 32) / (pageSize + 24);
  }
  observer.close();
  await engram.close();
  return frames / count;
}

const values = parseBenchArguments({
  small: { type: 'string', default: '1000', check: 'number' },
  large: { type: 'string', default: '100000', check: 'number' },
  stores: { type: 'string', default: 'memory,sqlite', check: { listOf: storeDrivers } },
  iterations: { type: 'string', default: '500', check: 'number' },
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
if (values.stores.split(',').includes('sqlite')) {
  console.log(`\nSQLite WAL pages per one-message append (mean of 200): ${await walPagesPerAppend(200)}`);
}
