import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runKeysCommand } from '../../src/cli/keys-command.js';
import { NotFoundError, ValidationError } from '../../src/core/errors.js';
import { createEngram } from '../../src/engram.js';
import { createServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-keys-');

/** Runs `engram keys …` in process; resolves what it printed. */
async function keys(args: string[], environment: Record<string, string | undefined> = {}) {
  const stdout = new PassThrough();
  const stderr = new PassThrough();
  const printed = { stdout: '', stderr: '' };
  stdout.on('data', (chunk) => {
    printed.stdout += chunk;
  });
  stderr.on('data', (chunk) => {
    printed.stderr += chunk;
  });
  const code = await runKeysCommand(args, { stdout, stderr, environment });
  return { code, ...printed };
}

describe('engram keys', () => {
  it('creates (printing the key once), lists without secrets, and revokes', async () => {
    const db = join(temporaryDirectory(), 'keys.db');
    const created = await keys([
      'create',
      '--tenant',
      'acme',
      '--role',
      'agent',
      '--name',
      'ci bot',
      '--db',
      db,
    ]);
    expect(created.code).toBe(0);
    const key = created.stdout.trim();
    expect(key).toMatch(/^engram_[0-9A-Z]{26}_[\w-]{43}$/);
    expect(created.stderr).toMatch(/only time the key is shown/);
    const id = key.split('_')[1] ?? '';
    await keys([
      'create',
      '--tenant',
      'globex',
      '--role',
      'inspector',
      '--expires-in-days',
      '30',
      '--db',
      db,
    ]);

    const listed = await keys(['list', '--db', db]);
    expect(listed.stdout.trim().split('\n')).toHaveLength(2);
    expect(listed.stdout).not.toContain(key.slice(34));
    const acme = JSON.parse((await keys(['list', '--tenant', 'acme', '--json', '--db', db])).stdout);
    expect(acme).toEqual([
      expect.objectContaining({ id, tenantId: 'acme', role: 'agent', name: 'ci bot', revokedAt: null }),
    ]);

    const revoked = await keys(['revoke', id, '--db', db]);
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked ${id} .*revoked 20`));
    const after = JSON.parse(
      (await keys(['list', '--tenant', 'acme', '--json'], { ENGRAM_DATABASE_PATH: db })).stdout,
    );
    expect(after[0].revokedAt).not.toBeNull();
  });

  it('reports bad usage, bad values and unknown ids as typed errors', async () => {
    const db = join(temporaryDirectory(), 'errors.db');
    // An existing database: revoke only reads one, and refuses a path without any.
    await (await createSqliteStore({ path: db })).close();
    const failures: [string[], unknown][] = [
      [['--db', db], ValidationError],
      [['rotate', '--db', db], ValidationError],
      [['create', '--tenant', 'acme', '--db', db], ValidationError],
      [['create', '--tenant', 'acme', '--role', 'root', '--db', db], ValidationError],
      [
        ['create', '--tenant', 'acme', '--role', 'agent', '--expires-in-days', 'soon', '--db', db],
        ValidationError,
      ],
      [['revoke', '--db', db], ValidationError],
      [['revoke', '01ARZ3NDEKTSV4RRFFQ69G5FAV', '--db', db], NotFoundError],
    ];
    for (const [args, type] of failures) {
      await expect(keys(args), args.join(' ')).rejects.toBeInstanceOf(type);
    }
  });

  it('a key created by the CLI authenticates against a server on the same file', async () => {
    const db = join(temporaryDirectory(), 'served.db');
    const key = (await keys(['create', '--tenant', 'acme', '--role', 'agent', '--db', db])).stdout.trim();
    const engram = await createEngram({
      store: await createSqliteStore({ path: db }),
      sweepIntervalMs: 0,
      defaultSources: false,
    });
    const server = createServer({
      engram,
      config: { port: 0, logLevel: 'silent', auth: { mode: 'enabled' } },
    });
    const { url } = await server.listen();
    try {
      const ok = await fetch(`${url}/v1/working-memory/`, { headers: { 'x-api-key': key } });
      expect(ok.status).toBe(200);
      const refused = await fetch(`${url}/v1/working-memory/`);
      expect(refused.status).toBe(401);
    } finally {
      await server.close();
    }
  });

  it('runs from the command line', async () => {
    const db = join(temporaryDirectory(), 'cli.db');
    const cli = ['--import', 'tsx', 'src/cli/main.ts', 'keys'];
    const { stdout } = await run('node', [...cli, 'create', '--tenant', 't', '--role', 'admin', '--db', db]);
    expect(stdout.trim()).toMatch(/^engram_/);
    const failed = await run('node', [...cli, 'revoke', 'nope', '--db', db]).catch((error: unknown) => error);
    expect(failed).toMatchObject({
      code: 1,
      stderr: expect.stringContaining('not_found: API key nope not found'),
    });
  });
});
