import type { Database, Statement } from 'better-sqlite3';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { NewMemoryRecord } from '../memory-record-store.js';
import { memoryParameters, vectorBlob } from './memory-record-rows.js';
import {
  INSERT_CHUNK,
  insertMemoriesSql,
  MEMORY_COLUMN_NAMES,
  upsertEmbeddingsSql,
} from './memory-record-statements.js';

/**
 * The SQLite driver's batch insert: returns a function that writes validated records,
 * `INSERT_CHUNK` rows a statement, then their embeddings (run it inside the caller's transaction).
 */
export function createBatchWriter(
  database: Database,
): (records: MemoryRecord[], inputs: NewMemoryRecord[]) => void {
  /** Prepared multi-row statements by SQL builder and row count (a batch uses full chunks and the rest). */
  const chunkStatements = new Map<(rows: number) => string, Map<number, Statement>>();
  const chunkStatement = (sql: (rows: number) => string, rows: number): Statement => {
    const byRows = chunkStatements.get(sql) ?? new Map<number, Statement>();
    chunkStatements.set(sql, byRows);
    let statement = byRows.get(rows);
    if (!statement) {
      statement = database.prepare(sql(rows));
      byRows.set(rows, statement);
    }
    return statement;
  };

  /**
   * Writes validated records, `INSERT_CHUNK` rows a statement (see there), then their embeddings:
   * the same rows, pks in record order and change-log entries as one insert per record.
   */
  return (records: MemoryRecord[], inputs: NewMemoryRecord[]): void => {
    const pks = new Map<string, number>();
    for (let start = 0; start < records.length; start += INSERT_CHUNK) {
      const chunk = records.slice(start, start + INSERT_CHUNK);
      const parameters: unknown[] = [];
      for (const record of chunk) {
        const row = memoryParameters(record);
        for (const column of MEMORY_COLUMN_NAMES) parameters.push(row[column]);
      }
      const statement = chunkStatement(insertMemoriesSql, chunk.length);
      for (const { pk, id } of statement.all(parameters) as { pk: number; id: string }[]) pks.set(id, pk);
    }
    const embedded = inputs.flatMap((input) => (input.embedding ? [input] : []));
    for (let start = 0; start < embedded.length; start += INSERT_CHUNK) {
      const chunk = embedded.slice(start, start + INSERT_CHUNK);
      const parameters = chunk.flatMap(({ id, embedding }) => {
        const { model, vector } = embedding as NonNullable<NewMemoryRecord['embedding']>;
        return [pks.get(id), model, vectorBlob(vector)];
      });
      chunkStatement(upsertEmbeddingsSql, chunk.length).run(parameters);
    }
  };
}
