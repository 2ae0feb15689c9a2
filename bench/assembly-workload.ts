/**
 * The realistic assembly workload shared by bench/assembly.ts and bench/peers/mastra.ts: one user
 * with N long-term memories (1 % of them episodes), one agent with 20 approved procedures and 200
 * knowledge chunks, one session of 2,000 messages. Texts are 12 words of the static embedder's
 * vocabulary (8 from one of 1,000 topics, 4 Zipf-distributed), so vectors and BM25 see real
 * words; queries are 3 topic words in a question.
 */
import { existsSync, mkdirSync, renameSync, rmSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import pg from 'pg';
import type { MemoryRecordInput } from '../src/core/schemas/memory-record.js';
import { seededRandom } from '../src/core/vectors/seeded-random.js';
import type { Engram } from '../src/engram.js';
import { decodeWordVectorFile } from '../src/providers/embeddings/word-vector-file.js';
import type { EngramStore } from '../src/stores/engram-store.js';
import { createMemoryStore } from '../src/stores/memory/memory-store.js';
import { createPostgresStore } from '../src/stores/postgres/postgres-store.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { benchPostgresUrl, vacuumPostgresSchema } from './bench-utilities.js';

export const TENANT = 'default';
export const USER = 'bench-user';
export const AGENT = 'bench-agent';
export const SESSION = 'bench-session';
export const PROCEDURES = 20;
export const KNOWLEDGE_CHUNKS = 200;
/** Where built SQLite workloads are kept between runs (gitignored): 1M memories take minutes to build. */
export const CACHE_DIR = join(import.meta.dirname, '.cache');

/** Deterministic word sampler over the embedder's vocabulary (ranks 100 to 10,100). */
export async function createTextSampler(seed = 7) {
  const url = new URL('../src/providers/embeddings/data/word-vectors.bin', import.meta.url);
  const words = decodeWordVectorFile(await readFile(url)).words.slice(100, 10_100);
  const random = seededRandom(seed);
  const pick = (list: readonly string[], index: number) => list[index % list.length] ?? 'word';
  const zipf = () => pick(words, Math.floor(Math.exp(random() * Math.log(words.length))));
  const topicWord = (topic: number) => pick(words, topic * 10 + Math.floor(random() * 150));
  return {
    /** A 12-word memory text on a random topic. */
    memory(): string {
      const topic = Math.floor(random() * 1_000);
      const parts = Array.from({ length: 8 }, () => topicWord(topic));
      for (let index = 0; index < 4; index++) parts.splice(Math.floor(random() * parts.length), 0, zipf());
      return `The user mentioned ${parts.join(' ')}.`;
    },
    /** A query: three words of one topic in a question. */
    query(): string {
      const topic = Math.floor(random() * 1_000);
      return `What did I say about ${topicWord(topic)}, ${topicWord(topic)} and ${topicWord(topic)}?`;
    },
    message(index: number): string {
      return `Message ${index}: ${Array.from({ length: 14 }, zipf).join(' ')}.`;
    },
  };
}
export type TextSampler = Awaited<ReturnType<typeof createTextSampler>>;

/** The user's memories, `batch` at a time (1 % episodes, the rest semantic facts). */
export function* userMemoryBatches(
  texts: TextSampler,
  count: number,
  batch = 1_000,
): Generator<MemoryRecordInput[]> {
  for (let start = 0; start < count; start += batch) {
    yield Array.from({ length: Math.min(batch, count - start) }, (_, offset): MemoryRecordInput => {
      const index = start + offset;
      const text = texts.memory();
      if (index % 100 === 99) {
        return {
          text,
          memoryType: 'episodic',
          userId: USER,
          agentId: AGENT,
          eventDate: new Date(Date.UTC(2026, 0, 1) + index * 60_000).toISOString(),
          metadata: { summary: text, keyFacts: [], startedAt: null },
        };
      }
      return { text, memoryType: 'semantic', userId: USER };
    });
  }
}

/** 20 approved procedures (triggers that rarely match, two examples each) and 200 knowledge chunks. */
export async function seedAgent(engram: Engram, texts: TextSampler): Promise<void> {
  for (let index = 0; index < PROCEDURES; index++) {
    const procedure = await engram.procedures.create(TENANT, {
      agentId: AGENT,
      name: `Procedure ${index}`,
      triggers: [`^/procedure-${index}\\b`],
      examples: [texts.query(), texts.query()],
      steps: ['Check the account', 'Explain the options', 'Confirm with the user'],
    });
    await engram.procedures.approve(TENANT, procedure.id);
  }
  await engram.memories.create(
    TENANT,
    Array.from({ length: KNOWLEDGE_CHUNKS }, (_, index) => ({
      text: `${texts.memory()} ${texts.memory()}`,
      memoryType: 'semantic' as const,
      agentId: AGENT,
      documentId: `handbook-${Math.floor(index / 20)}`,
      source: `Handbook ${Math.floor(index / 20)}.md`,
    })),
  );
}

/** Appends `count` alternating user/assistant messages to the bench session, 500 per append. */
export async function seedMessages(engram: Engram, texts: TextSampler, count: number): Promise<void> {
  for (let start = 0; start < count; start += 500) {
    await engram.sessions.append(
      { sessionId: SESSION, userId: USER },
      Array.from({ length: Math.min(500, count - start) }, (_, offset) => ({
        role: (start + offset) % 2 === 0 ? ('user' as const) : ('assistant' as const),
        content: texts.message(start + offset),
      })),
    );
  }
}

/** Seeds the whole workload into a fresh engram. */
export async function seedWorkload(engram: Engram, memories: number, messages: number): Promise<void> {
  const texts = await createTextSampler();
  await seedAgent(engram, texts);
  for (const batch of userMemoryBatches(texts, memories)) await engram.memories.create(TENANT, batch);
  await seedMessages(engram, texts, messages);
}

/**
 * An engram over the workload: the memory store is seeded every run; SQLite opens the cache file
 * for this size, built first when absent (under a temporary name, renamed once complete);
 * PostgreSQL keeps one schema per size in `benchPostgresUrl`, built first when it has no
 * completion mark (a half-built schema from an interrupted run is dropped and rebuilt).
 */
export async function openWorkload(
  driver: string,
  memories: number,
  messages: number,
  open: (store: EngramStore) => Promise<Engram>,
): Promise<{ engram: Engram; path: string | null; buildSeconds: number | null }> {
  const started = performance.now();
  if (driver === 'memory') {
    const engram = await open(createMemoryStore());
    await seedWorkload(engram, memories, messages);
    return { engram, path: null, buildSeconds: (performance.now() - started) / 1000 };
  }
  if (driver === 'postgres') return openPostgresWorkload(memories, messages, open, started);
  if (driver !== 'sqlite') throw new Error(`Unknown store "${driver}" (memory, sqlite, postgres)`);
  mkdirSync(CACHE_DIR, { recursive: true });
  const path = join(CACHE_DIR, `assembly-${memories}-${messages}.db`);
  let buildSeconds: number | null = null;
  if (!existsSync(path)) {
    const partial = `${path}.partial`;
    for (const suffix of ['', '-wal', '-shm']) rmSync(`${partial}${suffix}`, { force: true });
    const builder = await open(await createSqliteStore({ path: partial }));
    await seedWorkload(builder, memories, messages);
    await builder.close();
    renameSync(partial, path);
    buildSeconds = (performance.now() - started) / 1000;
  }
  return { engram: await open(await createSqliteStore({ path })), path, buildSeconds };
}

async function openPostgresWorkload(
  memories: number,
  messages: number,
  open: (store: EngramStore) => Promise<Engram>,
  started: number,
): Promise<{ engram: Engram; path: string | null; buildSeconds: number | null }> {
  const schema = `engram_bench_assembly_${memories}_${messages}`;
  const admin = new pg.Client({ connectionString: benchPostgresUrl });
  await admin.connect();
  try {
    const built = await admin.query(`SELECT to_regclass('"${schema}".bench_workload_built') AS mark`);
    let buildSeconds: number | null = null;
    if (built.rows[0]?.mark === null) {
      await admin.query(`DROP SCHEMA IF EXISTS "${schema}" CASCADE`);
      // Batches of 1,000 into a growing HNSW index can pass the default 10 s statement_timeout.
      const builderStore = await createPostgresStore({
        connectionString: benchPostgresUrl,
        schema,
        statementTimeoutMs: 600_000,
      });
      const builder = await open(builderStore);
      await seedWorkload(builder, memories, messages);
      // Every vector in the HNSW graph before the mark (closing would leave the tail to the next open).
      await builderStore.memories.settled();
      await builder.close();
      await admin.query(`CREATE TABLE "${schema}".bench_workload_built (at timestamptz DEFAULT now())`);
      buildSeconds = (performance.now() - started) / 1000;
    }
    const store = await createPostgresStore({ connectionString: benchPostgresUrl, schema });
    await store.memories.settled();
    await vacuumPostgresSchema(schema);
    return { engram: await open(store), path: `postgres schema ${schema}`, buildSeconds };
  } finally {
    await admin.end();
  }
}
