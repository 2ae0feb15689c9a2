/**
 * What `Bm25Index.search` chooses: scoring a filter's partition of candidates, walking the query
 * terms' postings (MaxScore), or summing every posting by slot, and what each costs. The index holds
 * the assembly workload's memory texts (bench/assembly-workload.ts: every one says "The user
 * mentioned …"); three filters keep 99 %, 1 % and 0.02 % of them (a user's facts, their episodes,
 * an agent's knowledge), each given its partition as candidates. Every third query asks about
 * "user", a word of every document. Per filter and query kind: the mean time of the walk and of the
 * sums (each forced, no candidates), of scoring the candidates (forced), and of `search` as it chooses, which should be
 * near the cheapest (`WALK_COST`, `SUM_FREE` and `SUM_WEIGHT` in src/core/text/bm25-index.ts). All
 * must return the same hits; the script checks it.
 * Usage: npx tsx bench/bm25-candidates.ts [--documents 300000] [--queries 60]
 */
import { isDeepStrictEqual } from 'node:util';
import { Bm25Index } from '../src/core/text/bm25-index.js';
import { createTextSampler } from './assembly-workload.js';
import { machine, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  documents: { type: 'string', default: '300000', check: 'number' },
  queries: { type: 'string', default: '60', check: 'number' },
});
const documents = Number(values.documents);
const queryCount = Number(values.queries);
/** The pool a hybrid search asks each ranking for. */
const LIMIT = 200;

const filters = [
  { name: 'a user’s facts (99 %)', keeps: (index: number) => index % 100 !== 99 && index % 5_000 !== 7 },
  { name: 'a user’s episodes (1 %)', keeps: (index: number) => index % 100 === 99 },
  { name: 'an agent’s knowledge (0.02 %)', keeps: (index: number) => index % 5_000 === 7 },
];

const texts = await createTextSampler(5);
const index = new Bm25Index<{ position: number }>();
for (let position = 0; position < documents; position++)
  index.add(`m${position}`, texts.memory(), { position });
const queries = Array.from({ length: queryCount }, (_, at) =>
  at % 3 === 0 ? texts.query().replace('about', 'about user,') : texts.query(),
);

/** Mean milliseconds of `run` over `list`, after one untimed pass (the JIT's warm-up). */
function meanMs<T>(list: readonly string[], run: (query: string) => T): { ms: number; results: T[] } {
  for (const query of list) run(query);
  const results: T[] = [];
  const started = performance.now();
  for (const query of list) results.push(run(query));
  return { ms: (performance.now() - started) / list.length, results };
}

console.log(`BM25: candidates or walk (${machine()}): ${documents} documents, limit ${LIMIT}\n`);
const rows: (string | number)[][] = [];
for (const filter of filters) {
  const ids = [...Array(documents).keys()].filter(filter.keeps).map((position) => `m${position}`);
  const accept = (_id: string, item: { position: number }) => filter.keeps(item.position);
  for (const kind of ['with "user"', 'without'] as const) {
    const list = queries.filter((query) => query.includes('user,') === (kind === 'with "user"'));
    const walk = meanMs(list, (query) => index.search(query, LIMIT, accept, { plan: 'walk' }));
    const summed = meanMs(list, (query) => index.search(query, LIMIT, accept, { plan: 'sum' }));
    // A size of 0 makes any candidates cheaper than the walk: their scoring, forced.
    const scored = meanMs(list, (query) =>
      index.search(query, LIMIT, accept, { candidates: { size: 0, ids: () => ids } }),
    );
    const chosen = meanMs(list, (query) =>
      index.search(query, LIMIT, accept, { candidates: { size: ids.length, ids: () => ids } }),
    );
    if (
      !isDeepStrictEqual(walk.results, summed.results) ||
      !isDeepStrictEqual(walk.results, scored.results) ||
      !isDeepStrictEqual(walk.results, chosen.results)
    ) {
      throw new Error(`${filter.name}: the walk, the sums and the candidates returned different hits`);
    }
    rows.push([
      filter.name,
      ids.length,
      kind,
      walk.ms,
      summed.ms,
      scored.ms,
      chosen.ms,
      chosen.ms / Math.min(walk.ms, summed.ms, scored.ms),
    ]);
  }
}
printTable(
  [
    'filter',
    'candidates',
    'queries',
    'walk ms',
    'sums ms',
    'candidates ms',
    'search ms (chosen)',
    'chosen / cheapest',
  ],
  rows,
);
