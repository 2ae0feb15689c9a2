/**
 * `bench/assembly.ts --modes sources`: assemble() with the built-in sources over the realistic
 * workload, against the physical floor measured in the same run (see bench/assembly.ts).
 */
import { type MemorySource, retrievalLimit } from '../src/core/assembly/memory-source.js';
import { memoryConfigSchema } from '../src/core/schemas/agent.js';
import type { SessionKey } from '../src/core/schemas/session.js';
import {
  createEpisodicSource,
  createKnowledgeSource,
  createProceduralSource,
  createSemanticSource,
} from '../src/engine/context/memory-sources.js';
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
  /** Also time each built-in source alone after every turn. */
  splitSources: boolean;
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

/** One store at one size, ready to be timed. */
interface Subject {
  memories: number;
  engram: Engram;
  buildSeconds: number | null;
  floor: (query: Float32Array) => Promise<void>;
  turns: number[];
  floors: number[];
  kept: number;
  items: number;
  /** Per built-in source, its time when it runs alone (as it would with nothing beside it). */
  sources: Map<string, number[]>;
}

const nextTurn = () => new Promise((resolve) => setImmediate(resolve));

/** The engine's four built-in sources, to be timed one at a time. */
function builtInSources(engram: Engram): MemorySource[] {
  return [
    createProceduralSource(engram.procedures),
    createSemanticSource(engram.memories),
    createKnowledgeSource(engram.memories),
    createEpisodicSource(engram.episodes),
  ];
}

/**
 * Runs each source alone on `message` with the limits a turn gives it (the agent's defaults) and
 * records its time: a turn runs them side by side, so there only their sum of work shows.
 */
async function timeSourcesAlone(subject: Subject, message: string): Promise<void> {
  const memory = memoryConfigSchema.parse({});
  for (const source of builtInSources(subject.engram)) {
    const limit = retrievalLimit(source.section, memory);
    await nextTurn();
    const started = performance.now();
    await source.retrieve(
      {
        tenantId: TENANT,
        namespace: null,
        userId: USER,
        sessionId: SESSION,
        agentId: AGENT,
        query: message,
        limit,
        readOnly: true,
      },
      new AbortController().signal,
    );
    const times = subject.sources.get(source.name) ?? [];
    times.push(performance.now() - started);
    subject.sources.set(source.name, times);
  }
}

/**
 * Per store, every size is opened at once and the turns interleave across sizes (size A's turn,
 * its floor, size B's turn, …): load on a shared machine then weighs on every size alike, so the
 * ratios between sizes and to the floor hold even when absolute times drift.
 */
export async function benchSources(options: SourcesBenchOptions): Promise<void> {
  const rows: (string | number)[][] = [];
  const sourceRows: (string | number)[][] = [];
  const texts = await createTextSampler(99);
  for (const driver of options.stores) {
    const subjects: Subject[] = [];
    for (const memories of options.memories) {
      const { engram, buildSeconds } = await openWorkload(driver, memories, options.messages, (store) =>
        createEngram({ store, sweepIntervalMs: 0, sessionEnd: { idleMs: 0 } }),
      );
      subjects.push({
        memories,
        engram,
        buildSeconds,
        floor: createFloor(engram.store, memories),
        turns: [],
        floors: [],
        kept: 0,
        items: 0,
        sources: new Map(),
      });
    }
    const turn = (subject: Subject, message: string) =>
      subject.engram.assemble({
        session: { sessionId: SESSION, userId: USER },
        message,
        agent: { id: AGENT, memory: { maxWorkingMemoryTokens: options.budget, reservedOutputTokens: 1_000 } },
      });
    // Warm-up: the first searches start background index builds, which are let finish.
    for (const subject of subjects) {
      for (let index = 0; index < 10; index++) await turn(subject, texts.query());
      await settle(subject.engram);
      for (let index = 0; index < 20; index++) await turn(subject, texts.query());
      await settle(subject.engram);
    }
    for (let index = 0; index < options.iterations; index++) {
      const message = texts.query();
      const query = Float32Array.from({ length: DIMENSIONS }, (_, at) => Math.sin(index + at));
      for (const subject of subjects) {
        // Each in its own event-loop turn, as requests to a server are.
        await nextTurn();
        let started = performance.now();
        const result = await turn(subject, message);
        subject.turns.push(performance.now() - started);
        subject.kept = result.trace.history.kept;
        subject.items = result.trace.sections
          .filter((section) => section.name !== 'history')
          .reduce((sum, section) => sum + section.items.filter((item) => item.included).length, 0);
        await nextTurn();
        started = performance.now();
        await subject.floor(query);
        subject.floors.push(performance.now() - started);
        if (options.splitSources) await timeSourcesAlone(subject, message);
      }
    }
    const first = subjects[0];
    for (const subject of subjects) {
      const p50 = percentile(subject.turns, 50);
      const p99 = percentile(subject.turns, 99);
      const floor50 = percentile(subject.floors, 50);
      const floor99 = percentile(subject.floors, 99);
      rows.push([
        driver,
        subject.memories,
        subject.buildSeconds === null ? 'cached' : subject.buildSeconds,
        subject.kept,
        subject.items,
        p50,
        p99,
        floor50,
        floor99,
        p50 / floor50,
        p99 / floor99,
        p50 / percentile(first?.turns ?? [], 50),
        p99 / percentile(first?.turns ?? [], 99),
      ]);
      for (const [name, times] of subject.sources) {
        sourceRows.push([driver, subject.memories, name, percentile(times, 50), percentile(times, 99)]);
      }
      await subject.engram.close();
    }
  }
  console.log(
    '\nBuilt-in sources over a realistic store, against the physical floor (same run, interleaved):\n',
  );
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
      'p50 / smallest',
      'p99 / smallest',
    ],
    rows,
  );
  if (sourceRows.length > 0) {
    console.log('\nEach built-in source alone, on the same messages (a turn runs them side by side):\n');
    printTable(['store', 'memories', 'source', 'p50 ms', 'p99 ms'], sourceRows);
  }
}
