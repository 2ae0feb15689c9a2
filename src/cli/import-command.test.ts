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

  it('fails a file that is not UTF-8, naming byte and line, instead of storing U+FFFD', async () => {
    const first = `${JSON.stringify(record('a'))}\n`;
    const latin1 = Buffer.concat([
      Buffer.from(first),
      Buffer.from('{"id":"b","text":"Crème brûlée."}\n', 'latin1'),
    ]);
    const lines = await importFile(latin1);
    expect(lines.code).toBe('validation_failed');
    // The è is the 21st byte of line 2.
    expect(lines.errors).toContain(`dump.jsonl: not UTF-8 text at byte ${first.length + 20} (line 2)`);
    expect(lines.ids).toEqual([]);

    const spread = Buffer.from('[\n  {"id": "a",\n   "text": "Café"}\n]\n', 'latin1');
    const document = await importFile(spread);
    expect(document.code).toBe('validation_failed');
    expect(document.errors).toContain('not UTF-8 text at byte 31 (line 3)');

    const wide = await importFile(Buffer.from(`\uFEFF${first}`, 'utf16le'));
    expect(wide.errors).toContain('UTF-16 text');
    expect(wide.ids).toEqual([]);

    const export_ = `${JSON.stringify({ type: 'engram-export', formatVersion: 2, tenantId: 'default' })}\n`;
    const engram = await importFile(
      Buffer.concat([Buffer.from(export_), Buffer.from([0x7b, 0xff, 0x7d, 0x0a])]),
    );
    expect(engram.errors).toContain(`not UTF-8 text at byte ${export_.length + 1} (line 2)`);
  });

  it('reads UTF-8 with a byte order mark and Windows line ends', async () => {
    const run = await importFile(
      `\uFEFF${JSON.stringify(record('a'))}\r\n${JSON.stringify(record('é'))}\r\n`,
    );
    expect(run).toMatchObject({ code: 0, ids: ['a', 'é'] });
  });

  it('fails a line longer than the line limit, naming it, instead of crashing with a RangeError', async () => {
    const long = JSON.stringify({ id: 'b', text: 'x'.repeat(200) });
    const run = await importFile(`${JSON.stringify(record('a'))}\n${long}\n`, { maxLineBytes: 100 });
    expect(run.code).toBe('validation_failed');
    expect(run.errors).toContain('dump.jsonl: line 2 is longer than 100 bytes (the longest line read)');
    expect(run.errors.length).toBeLessThan(300);
    expect(run.ids).toEqual([]);
  });
});
