import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngram } from '../../src/engram.js';
import { toAmsRecord } from '../../src/server/ams/long-term-memory-mapper.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { engram } from './cli-process.js';

const temporaryDirectory = useTemporaryDirectories('engram-cli-transfer-');

async function open(path: string) {
  return createEngram({
    store: await createSqliteStore({ path }),
    sweepIntervalMs: 0,
    sessionEnd: { idleMs: 0 },
  });
}

/** A SQLite file with an agent, a session, edited memories, knowledge, a procedure and an episode. */
async function seed(path: string): Promise<void> {
  const library = await open(path);
  await library.agents.create('acme', { id: 'support', systemPrompt: 'You help Acme customers.' });
  await library.sessions.append({ tenantId: 'acme', sessionId: 's1', userId: 'ada' }, [
    { role: 'user', content: 'My order arrived damaged.' },
    { role: 'assistant', content: 'Sorry! Refund or replacement?' },
  ]);
  await library.memories.create('acme', [{ id: 'm1', text: 'Ada prefers replacements.', userId: 'ada' }]);
  await library.memories.edit('acme', 'm1', { text: 'Ada always prefers replacements.' });
  await library.knowledge.ingest('acme', {
    agentId: 'support',
    name: 'Returns.md',
    content: '# Returns\n30 days.',
  });
  await library.procedures.create('acme', {
    agentId: 'support',
    name: 'Damaged',
    triggers: ['damaged'],
    steps: ['Apologise'],
  });
  await library.episodes.record('acme', { userId: 'ada', summary: 'Ada returned a blender.' });
  await library.close();
}

/** An export's lines without what a restore restarts (export time, session versions and update times, vectors). */
function data(file: string) {
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .map((line) => JSON.parse(line))
    .filter((line) => line.type !== 'engram-export')
    .map((line) => {
      if (line.type === 'session') {
        const { version: _v, updatedAt: _u, expiresAt: _e, ...session } = line.session;
        return { ...line, session };
      }
      if (line.type === 'memory') {
        const { embeddingModel: _m, ...memory } = line.memory;
        return { ...line, memory };
      }
      return line;
    });
}

describe('engram export / import', () => {
  it('round-trips a tenant into an empty store; re-importing and resuming add nothing twice', async () => {
    const directory = temporaryDirectory();
    const [source, target, resumed] = ['source.db', 'target.db', 'resumed.db'].map((name) =>
      join(directory, name),
    );
    await seed(source as string);
    const file = join(directory, 'acme.jsonl');
    const exported = await engram(['export', file, '--tenant', 'acme', '--db', source as string]);
    expect(exported).toMatchObject({ code: 0 });
    expect(exported.stderr).toContain(
      'exported tenant "acme": 1 agents, 1 sessions (2 messages), 5 memory versions',
    );
    // Not a terminal: plain progress lines with rate and ETA.
    expect(exported.stderr).toMatch(/export: 7\/7 \(100%\), [\d.]+\/s, ETA \d+s/);

    const piped = await engram(['export', '-', '--tenant', 'acme', '--db', source as string]);
    expect(piped.stdout.trim().split('\n').slice(1)).toEqual(
      readFileSync(file, 'utf8').trim().split('\n').slice(1),
    );

    const imported = await engram(['import', file, '--db', target as string]);
    expect(imported.code).toBe(0);
    expect(imported.stderr).toContain(
      'imported export into tenant "acme": 7 created, 0 deduplicated, 0 skipped, 0 failed',
    );
    const again = join(directory, 'again.jsonl');
    await engram(['export', again, '--tenant', 'acme', '--db', target as string]);
    expect(data(again)).toEqual(data(file));

    const twice = await engram(['import', file, '--db', target as string]);
    expect(twice.stderr).toContain('0 created, 0 deduplicated, 7 skipped, 0 failed');
    expect(twice.stderr).toContain('skipped 7: already present');

    // A run stopped half-way (here: a file cut short), then the whole file: nothing is duplicated.
    const lines = readFileSync(file, 'utf8').trim().split('\n');
    const half = join(directory, 'half.jsonl');
    writeFileSync(half, `${lines.slice(0, 5).join('\n')}\n`);
    expect((await engram(['import', half, '--db', resumed as string])).code).toBe(0);
    const rest = await engram(['import', file, '--db', resumed as string]);
    expect(rest.stderr).toMatch(/3 created, 0 deduplicated, 4 skipped, 0 failed/);
    const third = join(directory, 'third.jsonl');
    await engram(['export', third, '--tenant', 'acme', '--db', resumed as string]);
    expect(data(third)).toEqual(data(file));
  }, 120_000);

  it('imports an AMS long-term memory dump, reporting bad records, and skips them on a re-run', async () => {
    const directory = temporaryDirectory();
    const database = join(directory, 'ams.db');
    // Records as the AMS search API returns them (docs: ../shared/docs/ams-wire-format.md §2.3).
    const library = await open(join(directory, 'scratch.db'));
    const { inserted } = await library.memories.create('t', [
      {
        id: '01JA0000000000000000000001',
        text: 'User likes oolong tea',
        userId: 'u1',
        namespace: 'app',
        topics: ['beverages'],
      },
      { id: '01JA0000000000000000000002', text: 'User lives in Lisbon', userId: 'u1', namespace: 'app' },
    ]);
    await library.close();
    const hits = inserted.map((memory) => ({
      ...toAmsRecord(memory),
      dist: 0.21,
      score: 0.79,
      score_type: 'semantic',
    }));
    const dump = join(directory, 'dump.json');
    writeFileSync(
      dump,
      JSON.stringify({
        memories: [...hits, { id: 'bad', text: 'x', topics: ['a,b'] }, { id: 'y'.repeat(200_000), text: 7 }],
        total: 4,
        next_offset: null,
      }),
    );
    const first = await engram(['import', dump, '--tenant', 'acme', '--db', database]);
    expect(first.code).toBe(1);
    expect(first.stderr).toContain(
      'imported AMS records into tenant "acme": 2 created, 0 deduplicated, 0 skipped, 2 failed',
    );
    expect(first.stderr).toMatch(/failed record 3 \(bad\) of .*dump\.json: .*comma/);
    // A record's id is quoted cut, whatever its length (200,000 characters here).
    expect(first.stderr).toMatch(/failed record 4 \(y{80}… \(200000 characters\)\) of /);
    expect(first.stderr.length).toBeLessThan(5_000);

    const jsonLines = join(directory, 'dump.jsonl');
    writeFileSync(jsonLines, `${hits.map((hit) => JSON.stringify(hit)).join('\n')}\n`);
    const second = await engram(['import', jsonLines, '--tenant', 'acme', '--db', database]);
    expect(second).toMatchObject({ code: 0 });
    expect(second.stderr).toContain('0 created, 0 deduplicated, 2 skipped, 0 failed');

    // A BOM, a first line that is not JSON, and pages of search responses one per line: the valid
    // records are imported and each bad line fails alone.
    const pages = join(directory, 'pages.jsonl');
    const page = (records: unknown[]) => JSON.stringify({ memories: records, total: 3 });
    writeFileSync(
      pages,
      `\uFEFFnot json at all\n${page([{ id: 'p1', text: 'User likes jazz' }])}\n` +
        `${page([
          { id: 'p2', text: 'User plays chess' },
          { id: 'p3', text: 'User owns a bike' },
        ])}\n`,
    );
    const third = await engram(['import', pages, '--tenant', 'pages', '--db', database]);
    expect(third.code).toBe(1);
    expect(third.stderr).toContain('3 created, 0 deduplicated, 0 skipped, 1 failed');
    // An id with spaces around it is stored trimmed, and a re-run finds it.
    const padded = join(directory, 'padded.jsonl');
    writeFileSync(padded, `${JSON.stringify({ id: ' p9 ', text: 'User likes sailing' })}\n`);
    const once = await engram(['import', padded, '--tenant', 'padded', '--db', database]);
    expect(once.stderr).toContain('1 created, 0 deduplicated, 0 skipped, 0 failed');
    const rerun = await engram(['import', padded, '--tenant', 'padded', '--db', database]);
    expect(rerun).toMatchObject({
      code: 0,
      stderr: expect.stringContaining('0 created, 0 deduplicated, 1 skipped'),
    });
    const bom = join(directory, 'bom.jsonl');
    writeFileSync(bom, `\uFEFF${JSON.stringify({ id: 'b1', text: 'User likes tea' })}\n`);
    const fourth = await engram(['import', bom, '--tenant', 'bom', '--db', database]);
    expect(fourth).toMatchObject({ code: 0, stderr: expect.stringContaining('1 created, 0 deduplicated') });

    const check = await open(database);
    const { hits: found } = await check.memories.search('acme', {
      text: 'tea',
      filter: { userId: { eq: 'u1' } },
    });
    expect(found[0]?.memory).toMatchObject({
      id: '01JA0000000000000000000001',
      namespace: 'app',
      topics: ['beverages'],
    });
    await check.close();
  }, 60_000);
});

describe('commands that read a database', () => {
  it('refuse a path with no database (a typo) instead of creating it and reporting an empty success', async () => {
    const missing = join(temporaryDirectory(), 'typo.db');
    for (const args of [
      ['export', '-', '--db', missing],
      ['inspect', 'chat-42', '--db', missing],
      ['keys', 'list', '--db', missing],
    ]) {
      const run = await engram(args);
      expect(run.code, args.join(' ')).toBe(1);
      expect(run.stderr).toContain(`No database at ${missing}`);
      expect(existsSync(missing), args.join(' ')).toBe(false);
    }
  });
});

describe('engram export FILE', () => {
  it('refuses to write its file over the database it exports (`export data/engram.db`)', async () => {
    const directory = temporaryDirectory();
    const database = join(directory, 'engram.db');
    await seed(database);
    const before = readFileSync(database);
    for (const target of [database, `${database}-wal`, join(directory, '.', 'engram.db')]) {
      const run = await engram(['export', target, '--tenant', 'acme', '--db', database]);
      expect(run.code, target).toBe(1);
      expect(run.stderr).toContain('is the database');
    }
    expect(readFileSync(database).equals(before)).toBe(true);
    expect((await engram(['export', '-', '--tenant', 'acme', '--db', database])).code).toBe(0);
  }, 60_000);

  it('refuses a tenant that holds nothing (a mistyped --tenant) instead of an empty backup', async () => {
    const directory = temporaryDirectory();
    const database = join(directory, 'engram.db');
    await seed(database);
    const target = join(directory, 'backup.jsonl');
    for (const file of [target, '-']) {
      const run = await engram(['export', file, '--tenant', 'acmee', '--db', database]);
      expect(run.code).toBe(1);
      expect(run.stderr).toContain('tenant_empty: tenant "acmee" holds nothing');
      expect(run.stdout).toBe('');
    }
    expect(existsSync(target)).toBe(false);
    expect(existsSync(`${target}.partial`)).toBe(false);
  }, 60_000);
});
