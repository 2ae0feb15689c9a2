import { execFile, spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { DEMO_EARLIER_EXCHANGE, DEMO_SUGGESTION, DEMO_USER_ID } from '../../src/cli/demo-example.js';
import { runDemo } from '../../src/cli/run-demo.js';
import { createEngram } from '../../src/engram.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const run = promisify(execFile);
const temporaryDirectory = useTemporaryDirectories('engram-cli-');
const temporaryDatabase = () => join(temporaryDirectory(), 'engram.db');

async function demo(lines: string[], databasePath: string, budget = 600): Promise<string> {
  const input = new PassThrough();
  const output = new PassThrough();
  let text = '';
  output.on('data', (chunk) => {
    text += chunk;
  });
  input.end(`${lines.join('\n')}\n`);
  await runDemo({ databasePath, sessionId: 'cli', budget, strategy: 'drop-oldest', input, output });
  return text;
}

describe('engram demo', () => {
  it('assembles each turn, explains it, and keeps the session in the SQLite file across runs', async () => {
    const databasePath = temporaryDatabase();
    const first = await demo(['My name is Ada', 'I love sailing'], databasePath);
    // The seeded earlier exchange, then each turn adds two messages.
    expect(first).toContain('2 stored messages');
    expect(first).toMatch(/history\s+\d+ tokens {2}4 in/);

    const second = await demo(['What is my name?', '/context'], databasePath);
    expect(second).toContain('6 stored messages');
    expect(second).toContain('[history/user] My name is Ada');
    expect(second).toContain('[current/user] What is my name?');
  });

  it('seeds an example on first run, so a first message fills all six sections, and only once', async () => {
    const databasePath = temporaryDatabase();
    const first = await demo([DEMO_SUGGESTION], databasePath);
    expect(first).toContain('Seeded an example');
    for (const section of ['system', 'procedure', 'knowledge', 'episodes', 'history', 'current']) {
      expect(first, section).toMatch(new RegExp(`${section}\\s+[1-9]\\d* tokens {2}[1-9]\\d* in`));
    }
    const second = await demo([DEMO_SUGGESTION, '/context'], databasePath);
    expect(second).not.toContain('Seeded an example');
    // The earlier exchange was added once: it and the first run's turn.
    expect(second).toContain('4 stored messages');
    expect(second).toMatch(/history\s+[1-9]\d* tokens {2}4 in/);
    expect(second).toContain(`[history/user] ${DEMO_EARLIER_EXCHANGE[0]?.content}`);
    expect(second).toContain('(Source: Returns policy.md)');
    expect(second).toContain('Damaged order:');
    expect(second).toContain('The user reported a damaged kettle');
  });

  it('adds the earlier exchange only to an empty session (a conversation already there stays as it is)', async () => {
    const databasePath = temporaryDatabase();
    const engram = await createEngram({
      store: await createSqliteStore({ path: databasePath }),
      sweepIntervalMs: 0,
    });
    await engram.sessions.append({ sessionId: 'cli', userId: DEMO_USER_ID }, [
      { role: 'user', content: 'An older conversation' },
    ]);
    await engram.close();
    const output = await demo([DEMO_SUGGESTION, '/context'], databasePath);
    expect(output).toContain('Seeded an example');
    expect(output).toContain('1 stored messages');
    expect(output).toContain('[history/user] An older conversation');
    expect(output).not.toContain(DEMO_EARLIER_EXCHANGE[0]?.content);
  });

  it('shows a prompt, and /quit ends the process while stdin stays open', async () => {
    const child = spawn(
      process.execPath,
      ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--db', temporaryDatabase()],
      { stdio: ['pipe', 'pipe', 'inherit'] },
    );
    let output = '';
    let step = 0;
    child.stdout.on('data', (chunk) => {
      output += chunk;
      // Stdin is never closed, as on a terminal: only /quit may end the process.
      if (step === 0 && output.includes('or /quit.')) {
        step = 1;
        child.stdin.write('hello\n');
      } else if (step === 1 && output.includes('budget')) {
        step = 2;
        child.stdin.write('/quit\n');
      }
    });
    const code = await new Promise<number | null>((resolve) => child.on('exit', resolve));
    expect(code).toBe(0);
    // A prompt before each message: the first, then after the answer.
    expect(output).toMatch(/or \/quit\.\nyou> [\s\S]*budget[\s\S]*\nyou> /);
  });

  it('reports a budget too small for the message as a typed error and goes on', async () => {
    const databasePath = temporaryDatabase();
    const output = await demo(['word '.repeat(400), 'short'], databasePath, 100);
    expect(output).toContain('error context_budget_exceeded');
    expect(output).toMatch(/budget \d+\/80 tokens/);
  });

  it('refuses a --budget that is not a budget before seeding anything', async () => {
    const databasePath = temporaryDatabase();
    const cli = ['--import', 'tsx', 'src/cli/main.ts', 'demo', '--db', databasePath];
    for (const budget of ['abc', '10']) {
      const failed = await run('node', [...cli, '--budget', budget]).catch(
        (error: { code: number; stderr: string }) => error,
      );
      expect(failed).toMatchObject({
        code: 1,
        stderr: expect.stringContaining('--budget must be a whole number'),
      });
    }
    expect(existsSync(databasePath)).toBe(false);
  });

  it('prints help, and exits 2 on an unknown command', async () => {
    const cli = ['--import', 'tsx', 'src/cli/main.ts'];
    const help = await run('node', [...cli, 'help']);
    expect(help.stdout).toContain('engram demo');
    await expect(run('node', [...cli, 'frobnicate'])).rejects.toMatchObject({ code: 2 });
  });
});
