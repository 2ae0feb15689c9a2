import type { HistoryRange, MemoryHistory } from '../memory-record-store.js';
import { readHistoryPage, type VersionLength } from '../memory-rules.js';
import { type MemoryRow, type MemoryVersionRow, rowToMemory, rowToMemoryVersion } from './memory-rows.js';
import type { Queryable } from './postgres-database.js';

/** A page of the versions of the memory whose current row is `row` (see `readHistoryPage`). */
export function readMemoryHistory(
  database: Queryable,
  row: MemoryRow,
  range: Required<HistoryRange>,
): Promise<MemoryHistory> {
  return readHistoryPage(rowToMemory(row), range, {
    lengths: (below, count) =>
      database.query<VersionLength>(
        `SELECT version, length(text) AS chars FROM memory_versions
        WHERE memory_pk = $1 AND version < $2 ORDER BY version DESC LIMIT $3`,
        [row.pk, below, count],
      ),
    versions: async (from, below) =>
      (
        await database.query<MemoryVersionRow>(
          `SELECT m.id, v.* FROM memory_versions v JOIN memories m ON m.pk = v.memory_pk
          WHERE v.memory_pk = $1 AND v.version >= $2 AND v.version < $3 ORDER BY v.version DESC`,
          [row.pk, from, below],
        )
      ).map(rowToMemoryVersion),
  });
}
