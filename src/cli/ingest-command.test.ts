import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { createEngram } from '../engram.js';
import { createSqliteStore } from '../stores/sqlite/sqlite-store.js';
import { runIngest } from './ingest-command.js';

let directory = '';
afterEach(() => rmSync(directory, { recursive: true, force: true }));

describe('engram ingest', () => {
  it('reads UTF-8 with a byte order mark and UTF-16; fails a file that is not UTF-8 instead of mangling it', async () => {
    directory = mkdtempSync(join(tmpdir(), 'engram-ingest-'));
    const docs = join(directory, 'docs');
    mkdirSync(docs);
    writeFileSync(join(docs, 'bom.md'), Buffer.from('\uFEFF# Returns\nWithin 30 days.\n'));
    writeFileSync(join(docs, 'latin1.md'), Buffer.from('# Café\nCrème brûlée.\n', 'latin1'));
    writeFileSync(join(docs, 'wide.txt'), Buffer.from('\uFEFFCrème brûlée 𝌆.\n', 'utf16le'));
    const db = join(directory, 'engram.db');
    const stderr = new PassThrough();
    let errors = '';
    stderr.on('data', (chunk) => {
      errors += chunk;
    });
    const io = { stdout: new PassThrough(), stderr, environment: {} };
    expect(await runIngest([docs], { tenant: 'default', agent: 'support', db }, io)).toBe(1);
    expect(errors).toContain('latin1.md: not UTF-8 text');

    const engram = await createEngram({ store: await createSqliteStore({ path: db }), sweepIntervalMs: 0 });
    const { memories } = await engram.memories.list('default', {}, { order: 'created_asc' });
    expect(memories.map((memory) => [memory.source, memory.text, memory.metadata.headings])).toEqual([
      ['bom.md', 'Returns\nWithin 30 days.', ['Returns']],
      ['wide.txt', 'Crème brûlée 𝌆.', []],
    ]);
    await engram.close();
  });
});
