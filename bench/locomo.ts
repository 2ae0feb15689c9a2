/**
 * LoCoMo evidence retrieval: store every turn as a memory, ask every question, and measure whether
 * the evidence turns come back. Plain BM25 runs beside engram in the same process.
 * Usage: npx tsx bench/locomo.ts [--data ../shared/data/locomo/locomo-dev.json] [--store memory|sqlite|postgres]
 *        [--budget 2000] [--scale 100000] [--queries 300] [--search '{"questionWeight":1}']
 *        [--grid '{"questionWeight":[0.8,0.9,1],"neighbors.replyWeight":[1,1.25,1.5]}']
 *        [--default 'questionWeight=0.8 neighbors.replyWeight=1.25 weights.vector=0.25 entityWeight=0.6 whenWeight=1.5']
 * `--search` adds options to every recall search (JSON, e.g. to measure a feature switched off).
 * `--grid` lists values per tuned option (dotted paths into the search request): every
 * combination runs, and the leave-one-conversation-out row ranks each conversation with the point
 * best on the other five (mean turn R@10, categories 1-4), as defaults must be chosen. `--default`
 * names the grid point of the shipped defaults. "REST, no mode" is the AMS default request against
 * a real server on an ephemeral port. The evidence-in-context figure uses assemble()'s defaults.
 */
import { Bm25Index } from '../src/core/text/bm25-index.js';
import { createEngram, type Engram } from '../src/engram.js';
import type { SearchRequest } from '../src/retrieval/hybrid-search.js';
import { createServer } from '../src/server/create-server.js';
import { machine, openStore, percentile, printTable, storeDrivers } from './bench-utilities.js';
import { type LocomoConversation, loadLocomo } from './locomo-data.js';
import { parseBenchArguments } from './parse-bench-arguments.js';
import { createRecallTable } from './recall-table.js';

const values = parseBenchArguments({
  data: { type: 'string', default: '../shared/data/locomo/locomo-dev.json' },
  store: { type: 'string', default: 'memory', check: { oneOf: storeDrivers } },
  budget: { type: 'string', default: '2000', check: 'number' },
  scale: { type: 'string', default: '100000', check: 'number' },
  queries: { type: 'string', default: '300', check: 'number' },
  search: { type: 'string', default: '{}', check: 'json' },
  grid: {
    type: 'string',
    default:
      '{"questionWeight":[0.8,0.9,1],"neighbors.replyWeight":[1,1.25,1.5],"weights.vector":[0.25,0.5],"entityWeight":[1,0.6],"whenWeight":[1,1.5]}',
    check: 'json',
  },
  default: {
    type: 'string',
    default:
      'questionWeight=0.8 neighbors.replyWeight=1.25 weights.vector=0.25 entityWeight=0.6 whenWeight=1.5',
  },
});
// The tenant of every REST call while authentication is off, so REST and the library see one corpus.
const tenant = 'default';
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

/** A grid point: search options merged over `--search`, named by its values. */
interface GridPoint {
  name: string;
  options: Record<string, unknown>;
}

/** The grid's points: every combination of the values given per dotted option path. */
function gridPoints(grid: Record<string, number[]>): GridPoint[] {
  let points: GridPoint[] = [{ name: '', options: {} }];
  for (const [path, choices] of Object.entries(grid)) {
    points = points.flatMap((point) =>
      choices.map((choice) => {
        const options = structuredClone(point.options);
        const keys = path.split('.');
        let target = options;
        for (const key of keys.slice(0, -1)) {
          target[key] = (target[key] as Record<string, unknown> | undefined) ?? {};
          target = target[key] as Record<string, unknown>;
        }
        target[keys.at(-1) as string] = choice;
        return { name: `${point.name}${point.name ? ' ' : ''}${path}=${choice}`, options };
      }),
    );
  }
  return points;
}

const points = gridPoints(JSON.parse(values.grid) as Record<string, number[]>);
type Question = LocomoConversation['questions'][number];
/** Per conversation: its questions, its sessions, and each grid point's ranking of every question. */
const runs: {
  id: string;
  questions: Question[];
  sessionOf: Map<string, number>;
  ranked: string[][][];
  rest: string[][];
  bm25: string[][];
}[] = [];
const inContext = { found: 0, total: 0 };

const deepMerge = (
  base: Record<string, unknown>,
  extra: Record<string, unknown>,
): Record<string, unknown> => {
  const merged = { ...base };
  for (const [key, value] of Object.entries(extra)) {
    const prior = merged[key];
    merged[key] =
      typeof value === 'object' && value !== null && typeof prior === 'object' && prior !== null
        ? deepMerge(prior as Record<string, unknown>, value as Record<string, unknown>)
        : value;
  }
  return merged;
};

const started = performance.now();
for (const conversation of conversations) {
  // One ingestion per conversation serves every grid point, the REST pass and the context pass.
  const engram = await createEngram({ store: await openStore(values.store), sweepIntervalMs: 0 });
  await ingest(engram, conversation);
  // A first search starts the SQLite driver's in-process indexes: let them build, as a running
  // server's would, so that every question is ranked the same way.
  await engram.memories.search(tenant, { text: 'warm up', filter: { userId: { eq: conversation.id } } });
  await (engram.store.memories as { settled?: () => Promise<void> }).settled?.();
  const server = createServer({ engram, config: { port: 0, logLevel: 'silent' } });
  const { url } = await server.listen();
  const bm25 = new Bm25Index();
  for (const turn of conversation.turns) bm25.add(turn.id, turnText(turn));
  const questions = conversation.questions.filter((qa) => qa.evidence.length > 0);
  const turnId = (id: string) => id.slice(conversation.id.length + 1);
  const ranked: string[][][] = [];
  for (const point of points) {
    const lists: string[][] = [];
    for (const qa of questions) {
      const { hits } = await engram.memories.search(tenant, {
        text: qa.question,
        ...(deepMerge(searchOptions, point.options) as typeof searchOptions),
        limit: 20,
        filter: { userId: { eq: conversation.id } },
      });
      lists.push(hits.map((hit) => turnId(hit.memory.id)));
    }
    ranked.push(lists);
  }
  // The AMS default request: no search_mode, a user filter, over HTTP.
  const rest: string[][] = [];
  for (const qa of questions) {
    const response = await fetch(`${url}/v1/long-term-memory/search`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ text: qa.question, user_id: { eq: conversation.id }, limit: 20 }),
    });
    const body = (await response.json()) as { memories: { id: string }[] };
    rest.push(body.memories.map((memory) => turnId(memory.id)));
  }
  runs.push({
    id: conversation.id,
    questions,
    sessionOf: new Map(conversation.turns.map((turn) => [turn.id, turn.session])),
    ranked,
    rest,
    bm25: questions.map((qa) => bm25.search(qa.question, 20).map((hit) => hit.id)),
  });

  for (const qa of questions) {
    if (qa.category === 5) continue;
    const { trace } = await engram.assemble({
      session: { sessionId: `bench-${conversation.id}`, userId: conversation.id, tenantId: tenant },
      message: qa.question,
      agent: {
        memory: {
          maxWorkingMemoryTokens: Number(values.budget),
          reservedOutputTokens: 0,
          sectionCaps: { knowledge: Math.floor(Number(values.budget) * 0.9) },
        },
      },
    });
    const included = new Set(
      trace.sections
        .find((section) => section.name === 'knowledge')
        ?.items.filter((item) => item.included)
        .map((item) => turnId(item.id)),
    );
    inContext.total += qa.evidence.length;
    inContext.found += qa.evidence.filter((id) => included.has(id)).length;
  }
  await server.close();
  process.stderr.write(`${conversation.id}: ${((performance.now() - started) / 1_000).toFixed(0)} s\n`);
}
const seconds = (performance.now() - started) / 1_000;

/** A recall table of the chosen lists: `pick(run)` says which lists of a conversation count. */
function tableOf(pick: (run: (typeof runs)[number]) => string[][], only?: (typeof runs)[number]) {
  const table = createRecallTable();
  for (const run of only ? [only] : runs) {
    const lists = pick(run);
    run.questions.forEach((qa, index) => {
      table.add(qa.category, qa.evidence, lists[index] ?? [], run.sessionOf);
    });
  }
  return table;
}
/** Mean turn R@10 (categories 1-4) of grid point `index` over the given conversations. */
const meanRecall = (index: number, over: typeof runs) => {
  let sum = 0;
  let count = 0;
  for (const run of over) {
    const table = tableOf((r) => r.ranked[index] as string[][], run).recallAt10('1-4');
    sum += table.recall * table.questions;
    count += table.questions;
  }
  return count === 0 ? 0 : sum / count;
};
const bestOn = (over: typeof runs) =>
  points.reduce((best, _, index) => (meanRecall(index, over) > meanRecall(best, over) ? index : best), 0);
// Leave one conversation out: each conversation is ranked by the grid point best on the other five.
const chosen = new Map(runs.map((run) => [run.id, bestOn(runs.filter((other) => other !== run))]));
const inSample = bestOn(runs);
const defaultPoint = Math.max(
  0,
  points.findIndex((point) => point.name === values.default),
);

console.log(
  `LoCoMo evidence retrieval (${machine()}), ${conversations.length} conversations, store ${values.store}` +
    `${values.search === '{}' ? '' : `, search ${values.search}`}, grid of ${points.length} points, ` +
    `${seconds.toFixed(0)} s\n`,
);
const pointName = (index: number) => points[index]?.name || 'defaults';
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
  [
    ...tableOf((run) => run.ranked[defaultPoint] as string[][]).rows(`engram (${pointName(defaultPoint)})`),
    ...tableOf((run) => run.ranked[chosen.get(run.id) as number] as string[][]).rows('engram leave-one-out'),
    ...tableOf((run) => run.ranked[inSample] as string[][]).rows(`engram in-sample best`),
    ...tableOf((run) => run.rest).rows('REST, no mode'),
    ...tableOf((run) => run.bm25).rows('plain BM25'),
  ],
);
console.log(`\nIn-sample best grid point: ${pointName(inSample)}`);
console.log('\nTurn R@10 per conversation (categories 1-4); leave-one-out picks on the other five\n');
printTable(
  ['conversation', 'questions', 'default point', 'leave-one-out', 'picked', 'REST no mode', 'plain BM25'],
  runs.map((run) => {
    const pick = chosen.get(run.id) as number;
    const at10 = (lists: string[][]) => tableOf(() => lists, run).recallAt10('1-4');
    return [
      run.id,
      at10(run.rest).questions,
      `${at10(run.ranked[defaultPoint] as string[][]).recall.toFixed(1)}%`,
      `${at10(run.ranked[pick] as string[][]).recall.toFixed(1)}%`,
      pointName(pick),
      `${at10(run.rest).recall.toFixed(1)}%`,
      `${at10(run.bm25).recall.toFixed(1)}%`,
    ];
  }),
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
