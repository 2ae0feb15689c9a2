import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-serve-');
const cli = ['--import', 'tsx', 'src/cli/main.ts'];

/** Resolves the URL the server prints on stderr once it listens. */
function listeningUrl(child: ChildProcess): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    child.stderr?.on('data', (chunk) => {
      text += chunk;
      const url = /listening on (http:\/\/\S+)/.exec(text)?.[1];
      if (url) resolve(url);
    });
    child.once('exit', (code) => reject(new Error(`exited with ${code} before listening: ${text}`)));
  });
}

/** Starts `engram serve` on a free port; resolves its URL, what it printed, and a stop function. */
async function serve(database: string) {
  const child = spawn('node', [...cli, 'serve', '--port', '0', '--db', database], {
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn' },
  });
  let stderr = '';
  child.stderr.on('data', (chunk) => {
    stderr += chunk;
  });
  const url = await listeningUrl(child);
  const stop = () => {
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    child.kill('SIGTERM');
    return exited;
  };
  return { url, stderr: () => stderr, stop };
}

describe('engram serve', () => {
  it('serves /v1 on the SQLite file, warns that auth is off, and exits 0 on SIGTERM', async () => {
    const database = join(temporaryDirectory(), 'served.db');
    const first = await serve(database);
    expect(first.stderr()).toMatch(/authentication is off/i);
    const put = await fetch(`${first.url}/v1/working-memory/cli`, {
      method: 'PUT',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ messages: [{ role: 'user', content: 'persisted' }] }),
    });
    expect(put.status).toBe(200);
    expect(await first.stop()).toBe(0);

    const second = await serve(database);
    const get = await fetch(`${second.url}/v1/working-memory/cli`);
    expect(((await get.json()) as { messages: { content: string }[] }).messages[0]?.content).toBe(
      'persisted',
    );
    expect(await second.stop()).toBe(0);
  });

  it('refuses a non-loopback host and exits 1', async () => {
    const database = join(temporaryDirectory(), 'never.db');
    const failure = await run('node', [
      ...cli,
      'serve',
      '--host',
      '0.0.0.0',
      '--port',
      '0',
      '--db',
      database,
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(failure).toMatchObject({ code: 1, stderr: expect.stringContaining('insecure_bind') });
  });
});
