/**
 * Appends with WAL checkpoints inside the commit that crosses SQLite's 1,000-page mark (the
 * writer's own) against checkpoints from a connection in a thread of its own (the default,
 * src/stores/sqlite/wal-checkpointer.ts), in the same run: two SQLite files, the appends
 * interleaved one by one. A one-message append commits about a dozen WAL pages, so the writer's
 * own checkpoint comes every ~80 appends and shows in the tail, not the median.
 * Usage: npx tsx bench/checkpoints.ts [--appends 4000] [--seed 1000]
 */
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createEngram, type Engram } from '../src/engram.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { machine, percentile, printTable, seedSession } from './bench-utilities.js';

const { values } = parseArgs({
  options: {
    appends: { type: 'string', default: '4000' },
    seed: { type: 'string', default: '1000' },
  },
});
const appends = Number(values.appends);

async function open(backgroundCheckpoints: boolean): Promise<Engram> {
  const path = join(mkdtempSync(join(tmpdir(), 'engram-checkpoints-')), 'engram.db');
  const engram = await createEngram({
    store: await createSqliteStore({ path, backgroundCheckpoints }),
    sweepIntervalMs: 0,
  });
  await seedSession(engram, 'bench', Number(values.seed));
  return engram;
}

const modes = [
  { name: 'in the committing write (SQLite default)', engram: await open(false), times: [] as number[] },
  { name: 'in a thread of their own (engram default)', engram: await open(true), times: [] as number[] },
];
console.log(`Append latency and WAL checkpoints (${machine()}), ${appends} one-message appends each\n`);
for (let round = 0; round < appends; round++) {
  for (const mode of modes) {
    const started = performance.now();
    await mode.engram.sessions.append({ sessionId: 'bench' }, [{ role: 'user', content: `ping ${round}` }]);
    mode.times.push(performance.now() - started);
  }
}
const [writer] = modes;
printTable(
  ['checkpoints', 'p50 ms', 'p99 ms', 'p99.9 ms', 'max ms', 'p99 / writer’s p99'],
  modes.map((mode) => [
    mode.name,
    percentile(mode.times, 50),
    percentile(mode.times, 99),
    percentile(mode.times, 99.9),
    Math.max(...mode.times),
    percentile(mode.times, 99) / percentile(writer?.times ?? [], 99),
  ]),
);
for (const mode of modes) await mode.engram.close();
