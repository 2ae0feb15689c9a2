/**
 * What counting a memory line costs a turn: gpt-tokenizer's `countTokens` on the whole line (the
 * library alone, the floor engram's counter builds on) against engram's counter (bounded pieces
 * over the pre-tokenizer piece memo, src/core/tokens/piece-memo.ts), on lines never seen before
 * (a turn over a large store) and on lines counted again (a small store, where they recur). Lines
 * are the assembly workload's memory texts rendered as the knowledge section renders them.
 * Usage: npx tsx bench/token-counts.ts [--lines 20000] [--encoding o200k_base|cl100k_base]
 */
import { loadTokenCounter } from '../src/core/tokens/token-counter.js';
import { exactTokenCounts } from '../test/support/exact-token-counts.js';
import { createTextSampler } from './assembly-workload.js';
import { machine, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  lines: { type: 'string', default: '20000', check: 'number' },
  encoding: { type: 'string', default: 'o200k_base', check: { oneOf: ['o200k_base', 'cl100k_base'] } },
});
const encoding = values.encoding === 'cl100k_base' ? 'cl100k_base' : 'o200k_base';
const count = Number(values.lines);
const texts = await createTextSampler(5);
const render = () => `- ${texts.memory()}\n`;
const warmUp = Array.from({ length: 2_000 }, render);
const fresh = Array.from({ length: count }, render);
const recurring = fresh.slice(0, 50);

const ways = [
  { name: 'gpt-tokenizer countTokens, whole line', count: exactTokenCounts[encoding] },
  { name: 'engram counter (piece memo)', count: (await loadTokenCounter(encoding)).count },
];

/** Microseconds per line over `lines`, repeated to `count` calls, after `warmUp` (JIT, memo). */
function perLine(
  countLine: (text: string) => number,
  lines: readonly string[],
): { us: number; tokens: number } {
  for (const line of warmUp) countLine(line);
  let tokens = 0;
  const started = performance.now();
  for (let index = 0; index < count; index++) tokens += countLine(lines[index % lines.length] as string);
  return { us: ((performance.now() - started) * 1_000) / count, tokens };
}

console.log(`Counting memory lines (${machine()}), ${encoding}, ${count} lines\n`);
const rows: (string | number)[][] = [];
const floor = { fresh: 0, recurring: 0 };
for (const way of ways) {
  const unseen = perLine(way.count, fresh);
  const again = perLine(way.count, recurring);
  if (way === ways[0]) Object.assign(floor, { fresh: unseen.us, recurring: again.us });
  rows.push([
    way.name,
    unseen.us,
    again.us,
    unseen.us / floor.fresh,
    again.us / floor.recurring,
    unseen.tokens,
  ]);
}
if (rows[0]?.[5] !== rows[1]?.[5]) throw new Error('The two ways counted different totals');
printTable(
  ['way', 'new lines µs/line', 'recurring lines µs/line', 'new / library', 'recurring / library', 'tokens'],
  rows,
);
