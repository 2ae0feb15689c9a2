import type { HistoryRange, MemoryHistory } from '../memory-record-store.js';
import { codePointLength, cutHistoryPage, toMemoryVersion } from '../memory-rules.js';
import { type MemoryRow, type MemoryVersionRow, rowToMemory, rowToMemoryVersion } from './memory-rows.js';
import type { Queryable } from './postgres-database.js';

/**
 * A page of the versions of the memory whose current row is `row` (see `memoryHistory`): the
 * versions' numbers and text lengths first (one past the page's limit, to cut the page at its
 * limit and characters and to know whether there is more), then only the rows of the page.
 */
export async function readMemoryHistory(
  database: Queryable,
  row: MemoryRow,
  range: Required<HistoryRange>,
): Promise<MemoryHistory> {
  const current = rowToMemory(row);
  // Prior versions never change, so reading their lengths and then the page needs no transaction.
  const candidates: { version: number; chars: number }[] = [];
  if (current.version < range.before)
    candidates.push({ version: current.version, chars: codePointLength(current.text) });
  const below = Math.min(range.before, current.version);
  candidates.push(
    ...(await database.query<{ version: number; chars: number }>(
      `SELECT version, length(text) AS chars FROM memory_versions
      WHERE memory_pk = $1 AND version < $2 ORDER BY version DESC LIMIT $3`,
      [row.pk, below, range.limit + 1 - candidates.length],
    )),
  );
  const page = cutHistoryPage(candidates, (candidate) => candidate.chars, range);
  const oldest = page.versions.at(-1);
  if (!oldest) return { versions: [], nextBefore: null };
  const prior = await database.query<MemoryVersionRow>(
    `SELECT m.id, v.* FROM memory_versions v JOIN memories m ON m.pk = v.memory_pk
    WHERE v.memory_pk = $1 AND v.version >= $2 AND v.version < $3 ORDER BY v.version DESC`,
    [row.pk, oldest.version, below],
  );
  const versions = prior.map(rowToMemoryVersion);
  if (current.version < range.before) versions.unshift(toMemoryVersion(current));
  return { versions, nextBefore: page.nextBefore };
}
