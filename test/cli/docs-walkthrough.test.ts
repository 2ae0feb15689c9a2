import { execFile } from 'node:child_process';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEMO_USER_ID } from '../../src/cli/demo-example.js';
import { createEngram } from '../../src/engram.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-docs-cli-');

/** Runs a sh block with `npx engram` as a clone runs it, on the sources (tsx) so no build is needed. */
function runBlock(block: string, cwd: string) {
  const loader = resolve('node_modules/tsx/dist/loader.mjs');
  const script = [
    'set -euo pipefail',
    `engram() { node --import ${JSON.stringify(loader)} ${JSON.stringify(resolve('src/cli/main.ts'))} "$@"; }`,
    block.replaceAll('npx engram', 'engram'),
  ].join('\n');
  return run('bash', ['-c', script], { cwd });
}

describe('README', () => {
  it('command-line examples run as written (given a handbook, an AMS dump and a traced session)', async () => {
    const readme = readFileSync('README.md', 'utf8');
    const block = /## Command line[\s\S]*?```sh\n([\s\S]*?)```/.exec(readme)?.[1] ?? '';
    expect(block).toContain('npx engram ingest');
    const directory = temporaryDirectory();
    mkdirSync(join(directory, 'handbook'));
    writeFileSync(join(directory, 'handbook', 'returns.md'), '# Returns\nWithin 30 days.\n');
    const amsRecord = {
      id: '01JA0000000000000000000001',
      text: 'User likes oolong tea',
      memory_type: 'semantic',
    };
    writeFileSync(join(directory, 'ams-dump.json'), JSON.stringify({ memories: [amsRecord], total: 1 }));
    const seeded = await createEngram({
      store: await createSqliteStore({ path: join(directory, 'data', 'engram.db') }),
      sweepIntervalMs: 0,
    });
    await seeded.assemble({ session: { sessionId: 'chat-42' }, message: 'Hello' });
    await seeded.close();

    const { stdout, stderr } = await runBlock(block, directory);
    expect(stdout).toContain('Usage: engram');
    expect(stderr).toContain('1 created');
    expect(stderr).toContain('exported tenant "default"');
    expect(stderr).toContain('imported AMS records into tenant "default": 1 created');
    expect(stdout).toContain('session chat-42: last 1 of 1 traced turns');
    expect(stdout).toMatch(/ok {4}llm/);
  }, 120_000);
});

describe('docs/cli.md', () => {
  it('walk-through runs as written, in an empty directory', async () => {
    const block = /<!-- walkthrough -->\n```sh\n([\s\S]*?)```/.exec(readFileSync('docs/cli.md', 'utf8'))?.[1];
    expect(block).toBeDefined();
    const directory = temporaryDirectory();
    const { stdout, stderr } = await runBlock(block ?? '', directory);
    expect(stderr).toContain('ingested into agent "support" (tenant "default"): 2 created');
    expect(stdout).toMatch(/session demo: last 1 of 1 traced turns/);
    expect(stdout).toMatch(/│ current\s+│ \d+/);
    expect(stderr).toMatch(
      /imported export into tenant "default": \d+ created, 0 deduplicated, 0 skipped, 0 failed/,
    );
    expect(stdout).toMatch(/ok {4}store +sqlite restored\.db: opened/);

    const restored = await createEngram({
      store: await createSqliteStore({ path: join(directory, 'restored.db') }),
      sweepIntervalMs: 0,
    });
    expect((await restored.knowledge.list('default', 'support')).map((document) => document.name)).toEqual([
      'returns.md',
      'shipping/rates.html',
    ]);
    // The demo's session belongs to its user, so that facts and episodes about them are recalled:
    // the earlier exchange the first run seeds, then the one turn.
    expect((await restored.sessions.get({ sessionId: 'demo', userId: DEMO_USER_ID }))?.messageCount).toBe(4);
    await restored.close();
  }, 120_000);
});
