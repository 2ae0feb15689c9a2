import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngram } from '../engram.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import { runImport } from './import-command.js';

let directory = '';
afterEach(() => rmSync(directory, { recursive: true, force: true }));

/** Runs `engram import` on `content`; resolves its exit code, stderr and the ids stored. */
async function importFile(
  content: string | Buffer,
  limits: Parameters<typeof runImport>[3] = {},
  flags: Partial<Parameters<typeof runImport>[1]> = {},
): Promise<{ code: number | string; errors: string; ids: string[] }> {
  directory = mkdtempSync(join(tmpdir(), 'engram-import-'));
  const file = join(directory, 'dump.jsonl');
  writeFileSync(file, content);
  const db = join(directory, 'engram.db');
  const stderr = new PassThrough();
  let errors = '';
  stderr.on('data', (chunk) => {
    errors += chunk;
  });
  const io = { stdout: new PassThrough(), stderr, environment: {} };
  const code = await runImport(file, { db, ...flags }, io, limits).catch(
    (error: Error & { code?: string }) => {
      errors += error.message;
      return error.code ?? 'thrown';
    },
  );
  const engram = await createEngram({ store: await createSqliteStore({ path: db }), sweepIntervalMs: 0 });
  const { memories } = await engram.memories.list('default', {}, { order: 'created_asc' });
  await engram.close();
  return { code, errors, ids: memories.map((memory) => memory.id).sort() };
}

const record = (id: string) => ({ id, text: `Fact ${id}.` });

describe('engram import of an AMS dump', () => {
  it('streams a JSON Lines dump of pages larger than the one-document limit', async () => {
    const lines = [
      JSON.stringify([record('a'), record('b')]),
      JSON.stringify({ memories: [record('c')], total: 1 }),
      JSON.stringify(record('d')),
    ];
    const run = await importFile(`${lines.join('\n')}\n`, { maxDocumentBytes: 100 });
    expect(run.errors).not.toContain('larger than');
    expect(run).toMatchObject({ code: 0, ids: ['a', 'b', 'c', 'd'] });
  });

  it('refuses a document spread over lines larger than the one-document limit', async () => {
    const run = await importFile(JSON.stringify([record('a'), record('b')], null, 2), {
      maxDocumentBytes: 40,
    });
    expect(run.code).toBe('validation_failed');
    expect(run.errors).toContain('larger than 40 bytes (the largest JSON document read whole)');
  });

  it('reads a first line that is JSON but no object as a record that fails alone', async () => {
    const run = await importFile(`42\n${JSON.stringify(record('a'))}\n`);
    expect(run).toMatchObject({ code: 1, ids: ['a'] });
  });
});
