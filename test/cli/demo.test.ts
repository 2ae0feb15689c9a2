import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { runDemo } from '../../src/cli/run-demo.js';
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
    expect(first).toContain('0 stored messages');
    expect(first).toMatch(/history\s+\d+ tokens {2}2 in/);

    const second = await demo(['What is my name?', '/context'], databasePath);
    expect(second).toContain('4 stored messages');
    expect(second).toContain('[history/user] My name is Ada');
    expect(second).toContain('[current/user] What is my name?');
  });

  it('reports a budget too small for the message as a typed error and goes on', async () => {
    const databasePath = temporaryDatabase();
    const output = await demo(['word '.repeat(400), 'short'], databasePath, 100);
    expect(output).toContain('error context_budget_exceeded');
    expect(output).toMatch(/budget \d+\/80 tokens/);
  });

  it('prints help, and exits 2 on an unknown command', async () => {
    const cli = ['--import', 'tsx', 'src/cli/main.ts'];
    const help = await run('node', [...cli, 'help']);
    expect(help.stdout).toContain('engram demo');
    await expect(run('node', [...cli, 'frobnicate'])).rejects.toMatchObject({ code: 2 });
  });
});
