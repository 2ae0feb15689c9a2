/**
 * LoCoMo evidence retrieval: store every turn as a memory, ask every question, and measure whether
 * the evidence turns come back. Plain BM25 runs beside engram in the same process.
 * Usage: npx tsx bench/locomo.ts [--data ../shared/data/locomo/locomo-dev.json] [--store memory|sqlite]
 *        [--budget 2000] [--scale 100000] [--queries 300] [--search '{"questionWeight":1}']
 * `--search` adds options to every recall search (JSON, e.g. to measure a feature switched off); the
 * evidence-in-context figure always uses assemble()'s defaults.
 */
import { parseArgs } from 'node:util';
import { Bm25Index } from '../src/core/text/bm25-index.js';
import { createEngram, type Engram } from '../src/engram.js';
import type { SearchRequest } from '../src/retrieval/hybrid-search.js';
import { machine, openStore, percentile, printTable } from './bench-utilities.js';
import { type LocomoConversation, loadLocomo } from './locomo-data.js';
import { createRecallTable, type RecallTable } from './recall-table.js';

const { values } = parseArgs({
  options: {
    data: { type: 'string', default: '../shared/data/locomo/locomo-dev.json' },
    store: { type: 'string', default: 'memory' },
    budget: { type: 'string', default: '2000' },
    scale: { type: 'string', default: '100000' },
    queries: { type: 'string', default: '300' },
    search: { type: 'string', default: '{}' },
  },
});
const tenant = 'locomo';
const searchOptions = JSON.parse(values.search) as Omit<SearchRequest, 'text' | 'limit' | 'filter'>;
const conversations = loadLocomo(values.data);

const turnText = (turn: LocomoConversation['turns'][number]) => `${turn.speaker}: ${turn.text}`;

/**
 * Stores a conversation's turns as `message` memories, as a chat application would: each turn with
 * its speaker (in the text and as an entity), its session, the session's date as `eventDate`, and
 * its own creation time (LoCoMo dates sessions, not turns, so turn i of a session is stamped i
 * seconds after the session start).
 */
async function ingest(
  engram: Engram,
  conversation: LocomoConversation,
  { userId = conversation.id, suffix = '' }: { userId?: string; suffix?: string } = {},
): Promise<void> {
  const positions = new Map<number, number>();
  const records = conversation.turns.map((turn) => {
    const position = positions.get(turn.session) ?? 0;
    positions.set(turn.session, position + 1);
    return {
      id: `${conversation.id}${suffix}:${turn.id}`,
      text: turnText(turn) + (suffix ? ` ${suffix}` : ''),
      memoryType: 'message' as const,
      entities: [turn.speaker],
      userId,
      sessionId: `${conversation.id}${suffix}:session_${turn.session}`,
      createdAt: new Date(Date.parse(turn.date) + position * 1_000).toISOString(),
      eventDate: turn.date,
    };
  });
  for (let start = 0; start < records.length; start += 1_000) {
    await engram.memories.create(tenant, records.slice(start, start + 1_000));
  }
}

const engramRecall = createRecallTable();
const bm25Recall = createRecallTable();
const inContext = { found: 0, total: 0 };
/** The same figures per conversation, to see whether a change helps broadly or in one place. */
const perConversation: { id: string; engram: RecallTable; bm25: RecallTable }[] = [];

for (const conversation of conversations) {
  const engram = await createEngram({ store: await openStore(values.store), sweepIntervalMs: 0 });
  await ingest(engram, conversation);
  const bm25 = new Bm25Index();
  for (const turn of conversation.turns) bm25.add(turn.id, turnText(turn));
  const sessionOf = new Map(conversation.turns.map((turn) => [turn.id, turn.session]));
  const own = { id: conversation.id, engram: createRecallTable(), bm25: createRecallTable() };
  perConversation.push(own);

  for (const qa of conversation.questions) {
    if (qa.evidence.length === 0) continue;
    const { hits } = await engram.memories.search(tenant, {
      text: qa.question,
      ...searchOptions,
      limit: 20,
      filter: { userId: { eq: conversation.id } },
    });
    const ranked = hits.map((hit) => hit.memory.id.slice(conversation.id.length + 1));
    const bm25Ranked = bm25.search(qa.question, 20).map((hit) => hit.id);
    for (const table of [engramRecall, own.engram]) record(table, qa, ranked, sessionOf);
    for (const table of [bm25Recall, own.bm25]) record(table, qa, bm25Ranked, sessionOf);
    if (qa.category === 5) continue;
    const { trace } = await engram.assemble({
      session: { sessionId: `bench-${conversation.id}`, userId: conversation.id, tenantId: tenant },
      message: qa.question,
      agent: {
        memory: {
          maxWorkingMemoryTokens: Number(values.budget),
          reservedOutputTokens: 0,
          semanticTopK: 20,
          sectionCaps: { knowledge: Math.floor(Number(values.budget) * 0.9) },
        },
      },
    });
    const included = new Set(
      trace.sections
        .find((section) => section.name === 'knowledge')
        ?.items.filter((item) => item.included)
        .map((item) => item.id.slice(conversation.id.length + 1)),
    );
    inContext.total += qa.evidence.length;
    inContext.found += qa.evidence.filter((id) => included.has(id)).length;
  }
  await engram.close();
}

function record(
  table: RecallTable,
  qa: LocomoConversation['questions'][number],
  ranked: string[],
  sessionOf: Map<string, number>,
) {
  table.add(qa.category, qa.evidence, ranked, sessionOf);
}

console.log(
  `LoCoMo evidence retrieval (${machine()}), ${conversations.length} conversations, store ${values.store}` +
    `${values.search === '{}' ? '' : `, search ${values.search}`}\n`,
);
printTable(
  [
    'method',
    'category',
    'questions',
    'turn R@5',
    'turn R@10',
    'turn R@20',
    'turn R@10 (micro)',
    'session R@1',
    'session R@3',
  ],
  [...engramRecall.rows('engram hybrid'), ...bm25Recall.rows('plain BM25')],
);
console.log('\nTurn R@10 per conversation (categories 1-4)\n');
printTable(
  ['conversation', 'questions', 'engram hybrid', 'plain BM25'],
  perConversation.map(({ id, engram, bm25 }) => [
    id,
    engram.recallAt10('1-4').questions,
    `${engram.recallAt10('1-4').recall.toFixed(1)}%`,
    `${bm25.recallAt10('1-4').recall.toFixed(1)}%`,
  ]),
);
console.log(
  `\nEvidence in context (knowledge section of assemble(), ${values.budget}-token budget, categories 1-4): ` +
    `${((100 * inContext.found) / Math.max(1, inContext.total)).toFixed(1)}% of ${inContext.total} evidence turns`,
);

// Scale: one user with N memories (the conversations' turns repeated with a distinguishing suffix).
const scale = Number(values.scale);
if (scale > 0) {
  const engram = await createEngram({ store: await openStore(values.store), sweepIntervalMs: 0 });
  const userId = conversations[0]?.id ?? 'user';
  const started = performance.now();
  let stored = 0;
  for (let round = 0; stored < scale; round++) {
    for (const conversation of conversations) {
      if (stored >= scale) break;
      const turns = conversation.turns.slice(0, scale - stored);
      await ingest(engram, { ...conversation, turns }, { userId, suffix: `r${round}` });
      stored += turns.length;
    }
  }
  const ingestSeconds = (performance.now() - started) / 1_000;
  const questions = conversations
    .flatMap((conversation) => conversation.questions)
    .slice(0, Number(values.queries));
  const samples: number[] = [];
  // Background index builds (SQLite's text index) start with the first search and finish before
  // timing; each search then runs in its own event-loop turn, as a server's requests do.
  await engram.memories.search(tenant, { text: 'warm up', filter: { userId: { eq: userId } } });
  await (engram.store.memories as { settled?: () => Promise<void> }).settled?.();
  // CPU time too: on a shared machine, wall time also counts waiting for a core.
  const cpu: number[] = [];
  for (const qa of questions) {
    await new Promise((resolve) => setImmediate(resolve));
    const used = process.cpuUsage();
    const begin = performance.now();
    await engram.memories.search(tenant, {
      text: qa.question,
      limit: 10,
      filter: { userId: { eq: userId } },
    });
    samples.push(performance.now() - begin);
    const spent = process.cpuUsage(used);
    cpu.push((spent.user + spent.system) / 1_000);
  }
  console.log(`\nScale: ${stored} memories for one user (store ${values.store})\n`);
  printTable(
    ['ingest memories/s', 'search p50 ms', 'search p99 ms', 'CPU p50 ms', 'CPU p99 ms', 'queries'],
    [
      [
        Math.round(stored / ingestSeconds),
        percentile(samples, 50),
        percentile(samples, 99),
        percentile(cpu, 50),
        percentile(cpu, 99),
        samples.length,
      ],
    ],
  );
  await engram.close();
}
