import { type ChildProcess, execFile, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from './support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-readme-curl-');

/** Resolves the URL `engram serve` prints on stderr once it listens. */
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

/** The README's curl walk-through: the `sh` block that calls `/v1/context`. */
function walkThrough(): string {
  const readme = readFileSync('README.md', 'utf8');
  const blocks = [...readme.matchAll(/```sh\n([\s\S]*?)```/g)].map((match) => match[1] ?? '');
  const block = blocks.find((code) => code.includes('/v1/context'));
  if (!block) throw new Error('README has no curl walk-through');
  return block;
}

describe('README curl walk-through', () => {
  it('starts with the port as a variable, and runs as written against a fresh `engram serve`', async () => {
    const block = walkThrough();
    expect(block.split('\n')[0]).toBe('PORT=8000');
    const child = spawn(
      process.execPath,
      [
        '--import',
        'tsx',
        'src/cli/main.ts',
        'serve',
        '--port',
        '0',
        '--db',
        join(temporaryDirectory(), 'e.db'),
      ],
      { env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn' } },
    );
    try {
      const url = await listeningUrl(child);
      const port = new URL(url).port;
      const script = block.replace(/^PORT=8000$/m, `PORT=${port}`);
      const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script]);
      const [appended, created, context] = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line));
      expect(appended.session).toMatchObject({ session_id: 'chat-42', user_id: 'ada', message_count: 2 });
      expect(created).toEqual({ status: 'ok' });
      const messages = context.messages as { role: string; content: string }[];
      const texts = messages.map((message) => message.content).join('\n');
      expect(texts).toContain('My order #1234 arrived damaged.');
      expect(texts).toContain('Ada prefers replacements over refunds.');
      expect(messages.at(-1)).toEqual({ role: 'user', content: 'A replacement, please.' });
      expect(context.trace.budget.used).toBeLessThanOrEqual(context.trace.budget.available);
      expect(context.agent).toEqual({ id: 'default', version: 0 });
    } finally {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
  });
});
