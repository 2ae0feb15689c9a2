/**
 * `bench/assembly.ts --modes sources`: assemble() with the built-in sources over the realistic
 * workload, against the physical floor measured in the same run (see bench/assembly.ts).
 */
import type { SessionKey } from '../src/core/schemas/session.js';
import { createEngram, type Engram } from '../src/engram.js';
import type { EngramStore } from '../src/stores/engram-store.js';
import { AGENT, createTextSampler, openWorkload, SESSION, TENANT, USER } from './assembly-workload.js';
import { percentile, printTable } from './bench-utilities.js';

const DIMENSIONS = 100;
const NEWEST_MESSAGES = 300;

interface SourcesBenchOptions {
  stores: string[];
  memories: number[];
  messages: number;
  iterations: number;
  budget: number;
}

/** The floor: the newest 300 messages read, and an exact top-10 over `count` unit vectors. */
function createFloor(store: EngramStore, count: number) {
  const vectors = new Float32Array(count * DIMENSIONS);
  let seed = 12_345;
  for (let index = 0; index < vectors.length; index++) {
    seed = (seed * 1_103_515_245 + 12_345) >>> 0;
    vectors[index] = seed / 2 ** 32 - 0.5;
  }
  const key: SessionKey = { tenantId: TENANT, namespace: null, userId: USER, sessionId: SESSION };
  return async (query: Float32Array): Promise<void> => {
    await store.readMessages(key, { order: 'newest-first', limit: NEWEST_MESSAGES });
    const best = new Float32Array(10).fill(-Infinity);
    for (let row = 0; row < count; row++) {
      let dot = 0;
      const base = row * DIMENSIONS;
      for (let column = 0; column < DIMENSIONS; column++)
        dot += (vectors[base + column] as number) * (query[column] as number);
      if (dot > (best[9] as number)) {
        let at = 9;
        while (at > 0 && dot > (best[at - 1] as number)) {
          best[at] = best[at - 1] as number;
          at--;
        }
        best[at] = dot;
      }
    }
  };
}

async function settle(engram: Engram): Promise<void> {
  const memories = engram.store.memories as { settled?: () => Promise<void> };
  await memories.settled?.();
}

export async function benchSources(options: SourcesBenchOptions): Promise<void> {
  const rows: (string | number)[][] = [];
  const smallest = new Map<string, number>();
  for (const driver of options.stores) {
    for (const memories of options.memories) {
      const { engram, buildSeconds } = await openWorkload(driver, memories, options.messages, (store) =>
        createEngram({ store, sweepIntervalMs: 0, sessionEnd: { idleMs: 0 } }),
      );
      const texts = await createTextSampler(99);
      const floor = createFloor(engram.store, memories);
      const turn = (message: string) =>
        engram.assemble({
          session: { sessionId: SESSION, userId: USER },
          message,
          agent: {
            id: AGENT,
            memory: { maxWorkingMemoryTokens: options.budget, reservedOutputTokens: 1_000 },
          },
        });
      // Warm-up: the first searches start background index builds, which are let finish.
      for (let index = 0; index < 10; index++) await turn(texts.query());
      await settle(engram);
      for (let index = 0; index < 20; index++) await turn(texts.query());
      await settle(engram);
      const turns: number[] = [];
      const floors: number[] = [];
      let kept = 0;
      let retrieved = 0;
      for (let index = 0; index < options.iterations; index++) {
        const message = texts.query();
        const query = Float32Array.from({ length: DIMENSIONS }, (_, at) => Math.sin(index + at));
        // Each in its own event-loop turn, as requests to a server are.
        await new Promise((resolve) => setImmediate(resolve));
        let started = performance.now();
        const result = await turn(message);
        turns.push(performance.now() - started);
        kept = result.trace.history.kept;
        retrieved = result.trace.sections.reduce(
          (sum, section) => sum + section.items.filter((item) => item.included).length,
          0,
        );
        await new Promise((resolve) => setImmediate(resolve));
        started = performance.now();
        await floor(query);
        floors.push(performance.now() - started);
      }
      const p50 = percentile(turns, 50);
      const p99 = percentile(turns, 99);
      const floor50 = percentile(floors, 50);
      const floor99 = percentile(floors, 99);
      if (!smallest.has(driver)) smallest.set(driver, p50);
      rows.push([
        driver,
        memories,
        buildSeconds === null ? 'cached' : buildSeconds,
        kept,
        retrieved,
        p50,
        p99,
        floor50,
        floor99,
        p50 / floor50,
        p99 / floor99,
        p50 / (smallest.get(driver) ?? p50),
      ]);
      await engram.close();
    }
  }
  console.log('\nBuilt-in sources over a realistic store, against the physical floor (same run):\n');
  printTable(
    [
      'store',
      'memories',
      'build s',
      'history kept',
      'items retrieved',
      'p50 ms',
      'p99 ms',
      'floor p50 ms',
      'floor p99 ms',
      'p50 / floor',
      'p99 / floor',
      'p50 / first size',
    ],
    rows,
  );
}
