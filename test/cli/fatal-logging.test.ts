import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-fatal-');
const preload = ['--import', 'tsx', '--import', './test/support/crash-on-signal.ts', 'src/cli/main.ts'];

interface Started {
  child: ChildProcessWithoutNullStreams;
  output: () => string;
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/** Starts `engram <command>`; resolves once it says it is ready on stderr. */
async function start(
  command: 'serve' | 'mcp',
  extraEnvironment: Record<string, string> = {},
): Promise<Started> {
  const database = join(temporaryDirectory(), `${command}.db`);
  const flags = command === 'serve' ? ['serve', '--port', '0', '--db', database] : ['mcp', '--db', database];
  const child = spawn(process.execPath, [...preload, ...flags], {
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn', ...extraEnvironment },
  });
  let text = '';
  const collect = (chunk: Buffer) => {
    text += chunk.toString('utf8');
  };
  child.stdout.on('data', collect);
  child.stderr.on('data', collect);
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/listening on|serving tenant/.test(text)) resolve();
      else setTimeout(check, 50);
    };
    check();
    void exited.then(() => reject(new Error(`exited before ready: ${text}`)));
  });
  return { child, output: () => text, exited };
}

/** The JSON log lines among what the process printed. */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

async function expectCrashLogged(command: 'serve' | 'mcp', kind: 'exception' | 'rejection') {
  const started = await start(command, kind === 'rejection' ? { CRASH_KIND: 'rejection' } : {});
  started.child.kill('SIGUSR2');
  expect((await started.exited).code).toBe(1);
  const fatal = jsonLines(started.output()).find((line) => line.level === 60);
  expect(fatal, started.output()).toMatchObject(
    kind === 'exception'
      ? { msg: 'uncaught exception: exiting', err: { message: 'test crash from crash-on-signal' } }
      : { msg: 'unhandled rejection: exiting', err: { message: 'test rejection from crash-on-signal' } },
  );
}

async function expectSignalLogged(command: 'serve' | 'mcp', signal: NodeJS.Signals) {
  const started = await start(command);
  started.child.kill(signal);
  expect((await started.exited).code).toBe(0);
  expect(jsonLines(started.output())).toContainEqual(
    expect.objectContaining({ level: 40, signal, msg: `received ${signal}: shutting down` }),
  );
}

// Each case spawns a process (a few seconds under tsx): serve gets every kind, mcp one of each path.
describe('engram serve leaves a JSON log line on stdout before it ends', () => {
  it('an uncaught exception: fatal, with the error; exit 1', () => expectCrashLogged('serve', 'exception'));
  it('an unhandled rejection: fatal, with the error; exit 1', () => expectCrashLogged('serve', 'rejection'));
  it('SIGHUP: warn, naming the signal; a clean exit', () => expectSignalLogged('serve', 'SIGHUP'));
});

describe('engram mcp leaves a JSON log line on stderr before it ends', () => {
  it('an uncaught exception: fatal, with the error; exit 1', () => expectCrashLogged('mcp', 'exception'));
  it('SIGTERM: warn, naming the signal; a clean exit', () => expectSignalLogged('mcp', 'SIGTERM'));
});
