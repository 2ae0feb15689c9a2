/**
 * engram and Mastra memory side by side, same workload, same embedder, same machine, one run.
 *
 * Workload (bench/assembly-workload.ts): one user with N past memories, one session of 2,000
 * messages. engram stores the memories as long-term records of the user (and, as in
 * bench/assembly.ts, its agent has 20 procedures and 200 knowledge chunks); Mastra, which keeps
 * no separate memories, stores them as the user's messages in 100 past threads of the same
 * resource, the place its resource-scoped semantic recall reads. Both embed with engram's offline
 * static embedder (wrapped here as an AI SDK v3 embedding model for Mastra).
 *
 * Rows (p50/p99 per call, engram ÷ Mastra; below 1 means engram is faster):
 * - append: one message into the session (engram `sessions.append`; Mastra `saveMessages`, which
 *   also embeds the message for semantic recall: engram leaves that to its background jobs).
 * - context: one turn's context (engram `assemble`, built-in sources; Mastra `recall` with
 *   `lastMessages` = the history engram kept and resource-scoped semantic recall over the
 *   embedded messages, topK = engram's semanticTopK).
 * - search: the user's 10 best memories for a query (engram hybrid `memories.search`; Mastra
 *   `recall` with semantic recall only).
 * - ingest: N memories in batches of 100 (engram `memories.create`; Mastra `saveMessages`), in
 *   items per second, next to the embedder's own throughput on the same texts.
 * Plus RSS after each side's work and the size on disk. Mastra's LibSQL commits with
 * synchronous=NORMAL in WAL mode (not durable against power loss); engram's SQLite with FULL.
 *
 * Usage: npm install --prefix bench/peers --no-audit --no-fund
 *        node --expose-gc --import tsx bench/peers/mastra.ts [--memories 10000] [--messages 2000]
 *        [--iterations 100]
 */
import { mkdirSync, mkdtempSync, readdirSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEngram } from '../../src/engram.js';
import { createStaticEmbeddingProvider } from '../../src/providers/embeddings/static-embedding-provider.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import {
  AGENT,
  createTextSampler,
  SESSION,
  seedAgent,
  TENANT,
  USER,
  userMemoryBatches,
} from '../assembly-workload.js';
import { machine, percentile, printTable } from '../bench-utilities.js';
import { parseBenchArguments } from '../parse-bench-arguments.js';

const values = parseBenchArguments({
  memories: { type: 'string', default: '10000', check: 'number' },
  messages: { type: 'string', default: '2000', check: 'number' },
  iterations: { type: 'string', default: '100', check: 'number' },
});
// The peers load after the flags, so that a check of the flags needs no `npm install --prefix bench/peers`.
const { LibSQLStore, LibSQLVector } = await import('@mastra/libsql');
const { Memory } = await import('@mastra/memory');
const memories = Number(values.memories);
const messages = Number(values.messages);
const iterations = Number(values.iterations);
const BATCH = 100;
const PAST_THREADS = 100;

const directory = mkdtempSync(join(tmpdir(), 'engram-vs-mastra-'));
for (const side of ['engram', 'mastra']) mkdirSync(join(directory, side));
const diskBytes = (side: string) =>
  readdirSync(join(directory, side)).reduce(
    (sum, name) => sum + statSync(join(directory, side, name)).size,
    0,
  );
const rssMb = () => {
  (globalThis as { gc?: () => void }).gc?.();
  return process.memoryUsage().rss / 2 ** 20;
};

const embedder = await createStaticEmbeddingProvider();
/** engram's static embedder as an AI SDK v3 embedding model. */
const aiEmbedder = {
  specificationVersion: 'v3' as const,
  provider: 'engram',
  modelId: embedder.model,
  maxEmbeddingsPerCall: 2_048,
  supportsParallelCalls: false,
  async doEmbed({ values: texts }: { values: string[] }) {
    const vectors = await embedder.embed(texts);
    return { embeddings: vectors.map((vector) => Array.from(vector)), warnings: [] };
  },
};

const engram = await createEngram({
  store: await createSqliteStore({ path: join(directory, 'engram', 'engram.db') }),
  embedder,
  sweepIntervalMs: 0,
  sessionEnd: { idleMs: 0 },
});
const topK = 5; // engram's semanticTopK here (its default before it became 50)
const memory = new Memory({
  storage: new LibSQLStore({ id: 'bench', url: `file:${join(directory, 'mastra', 'mastra.db')}` }),
  vector: new LibSQLVector({ id: 'bench-vector', url: `file:${join(directory, 'mastra', 'vectors.db')}` }),
  embedder: aiEmbedder as never,
  options: { lastMessages: 300, semanticRecall: { topK, messageRange: 2, scope: 'resource' } },
});

let messageCounter = 0;
const mastraMessage = (threadId: string, role: 'user' | 'assistant', text: string) => ({
  id: `m-${++messageCounter}`,
  role,
  threadId,
  resourceId: USER,
  createdAt: new Date(Date.UTC(2026, 0, 1) + messageCounter * 1_000),
  type: 'text',
  content: { format: 2 as const, parts: [{ type: 'text' as const, text }] },
});
const timed = async (task: () => Promise<unknown>): Promise<number> => {
  const started = performance.now();
  await task();
  return performance.now() - started;
};

console.log(`engram vs Mastra memory (${machine()}): ${memories} memories, ${messages} messages\n`);
const texts = await createTextSampler();
await seedAgent(engram, texts);
for (let index = 0; index < PAST_THREADS; index++) {
  await memory.createThread({ threadId: `past-${index}`, resourceId: USER, title: `Past ${index}` });
}
await memory.createThread({ threadId: SESSION, resourceId: USER, title: 'Current' });

// Ingest, engram first, then Mastra, on the same texts; the embedder alone on them in between.
// RSS is taken after each side's phase (ingest, session, warm-up): its growth is that side's.
const rssAtStart = rssMb();
const batches = [...userMemoryBatches(texts, memories, BATCH)];
const session = Array.from({ length: messages }, (_, index) => ({
  role: index % 2 === 0 ? ('user' as const) : ('assistant' as const),
  content: texts.message(index),
}));
let engramIngest = 0;
for (const batch of batches) engramIngest += await timed(() => engram.memories.create(TENANT, batch));
for (let start = 0; start < messages; start += 500) {
  await engram.sessions.append({ sessionId: SESSION, userId: USER }, session.slice(start, start + 500));
}
const turn = (message: string) =>
  engram.assemble({
    session: { sessionId: SESSION, userId: USER },
    message,
    // Both sides take topK memories, as when engram's default was 5.
    agent: { id: AGENT, memory: { semanticTopK: topK } },
  });
for (let index = 0; index < 10; index++) await turn(texts.query());
await (engram.store.memories as { settled?: () => Promise<void> }).settled?.();
const kept = (await turn(texts.query())).trace.history.kept;
const rssAfterEngram = rssMb();

let embedderOnly = 0;
for (const batch of batches)
  embedderOnly += await timed(() => embedder.embed(batch.map((input) => input.text)));

let mastraIngest = 0;
for (const [index, batch] of batches.entries()) {
  const saved = batch.map((input) => mastraMessage(`past-${index % PAST_THREADS}`, 'user', input.text));
  mastraIngest += await timed(() => memory.saveMessages({ messages: saved as never }));
}
for (let start = 0; start < messages; start += 500) {
  const chunk = session.slice(start, start + 500);
  await memory.saveMessages({
    messages: chunk.map((message) => mastraMessage(SESSION, message.role, message.content)) as never,
  });
}
const perSecond = (milliseconds: number) => memories / (milliseconds / 1_000);
const recall = (query: string, config: object) =>
  memory.recall({ threadId: SESSION, resourceId: USER, vectorSearchString: query, threadConfig: config });
const contextConfig = { lastMessages: kept, semanticRecall: { topK, messageRange: 2, scope: 'resource' } };
const searchConfig = { lastMessages: 0, semanticRecall: { topK: 10, messageRange: 0, scope: 'resource' } };
for (let index = 0; index < 10; index++) await recall(texts.query(), contextConfig);
const rssAfterMastra = rssMb();

const samples = { append: [[], []], context: [[], []], search: [[], []] } as Record<string, number[][]>;
let sampleCount = 0;
for (let index = 0; index < iterations; index++) {
  const query = texts.query();
  await new Promise((resolve) => setImmediate(resolve));
  samples.append?.[0]?.push(
    await timed(() =>
      engram.sessions.append({ sessionId: SESSION, userId: USER }, [
        { role: 'user', content: texts.message(index) },
      ]),
    ),
  );
  samples.append?.[1]?.push(
    await timed(() =>
      memory.saveMessages({ messages: [mastraMessage(SESSION, 'user', texts.message(index))] as never }),
    ),
  );
  samples.context?.[0]?.push(await timed(() => turn(query)));
  samples.context?.[1]?.push(await timed(() => recall(query, contextConfig)));
  samples.search?.[0]?.push(
    await timed(() =>
      engram.memories.search(TENANT, { text: query, limit: 10, filter: { userId: { eq: USER } } }),
    ),
  );
  samples.search?.[1]?.push(await timed(() => recall(query, searchConfig)));
  sampleCount++;
}
await engram.close();
const engramDisk = diskBytes('engram');
const mastraDisk = diskBytes('mastra');

const rows: (string | number)[][] = [];
for (const [name, [mine = [], theirs = []]] of Object.entries(samples)) {
  const [p50, p99, q50, q99] = [
    percentile(mine, 50),
    percentile(mine, 99),
    percentile(theirs, 50),
    percentile(theirs, 99),
  ];
  rows.push([
    `${name} ms (p50 / p99)`,
    `${p50.toFixed(2)} / ${p99.toFixed(2)}`,
    `${q50.toFixed(2)} / ${q99.toFixed(2)}`,
    `${(p50 / q50).toFixed(2)} / ${(p99 / q99).toFixed(2)}`,
  ]);
}
const engramRate = perSecond(engramIngest);
const mastraRate = perSecond(mastraIngest);
rows.push([
  'ingest memories/s',
  engramRate.toFixed(0),
  mastraRate.toFixed(0),
  `${(mastraRate / engramRate).toFixed(2)} (time ratio)`,
]);
rows.push([
  'RSS growth MB (its phase)',
  (rssAfterEngram - rssAtStart).toFixed(0),
  (rssAfterMastra - rssAfterEngram).toFixed(0),
  ((rssAfterEngram - rssAtStart) / (rssAfterMastra - rssAfterEngram)).toFixed(2),
]);
rows.push([
  'disk MB',
  (engramDisk / 2 ** 20).toFixed(1),
  (mastraDisk / 2 ** 20).toFixed(1),
  (engramDisk / mastraDisk).toFixed(2),
]);
printTable(['operation', 'engram', 'Mastra', 'engram / Mastra'], rows);
console.log(
  `\n${sampleCount} interleaved iterations; history window ${kept} messages on both sides; ` +
    `RSS at start ${rssAtStart.toFixed(0)} MB (embedder loaded).`,
);
console.log(
  `Embedder alone: ${perSecond(embedderOnly).toFixed(0)} texts/s; engram ingest is ` +
    `${((100 * engramRate) / perSecond(embedderOnly)).toFixed(0)} % of it, Mastra's ` +
    `${((100 * mastraRate) / perSecond(embedderOnly)).toFixed(0)} %.`,
);
