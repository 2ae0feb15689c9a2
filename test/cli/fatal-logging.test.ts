import { type ChildProcessWithoutNullStreams, spawn } from 'node:child_process';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

const temporaryDirectory = useTemporaryDirectories('engram-fatal-');
const preload = ['--import', 'tsx', '--import', './test/support/crash-on-signal.ts', 'src/cli/main.ts'];

type Stream = 'stdout' | 'stderr';

/** Where each command writes its JSON log: serve to stdout, mcp to stderr (stdout is MCP's). */
const logStream = { serve: 'stdout', mcp: 'stderr' } as const satisfies Record<string, Stream>;

interface Started {
  child: ChildProcessWithoutNullStreams;
  /** What the process printed on one stream. */
  output: (stream: Stream) => string;
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
  const text: Record<Stream, string> = { stdout: '', stderr: '' };
  child.stdout.on('data', (chunk: Buffer) => {
    text.stdout += chunk.toString('utf8');
  });
  child.stderr.on('data', (chunk: Buffer) => {
    text.stderr += chunk.toString('utf8');
  });
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once('exit', (code, signal) => resolve({ code, signal })),
  );
  await new Promise<void>((resolve, reject) => {
    const check = () => {
      if (/listening on|serving tenant/.test(text.stderr)) resolve();
      else setTimeout(check, 50);
    };
    check();
    void exited.then(() => reject(new Error(`exited before ready: ${text.stderr}${text.stdout}`)));
  });
  return { child, output: (stream) => text[stream], exited };
}

/** The JSON log lines among what the process printed. */
const jsonLines = (text: string) =>
  text
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as Record<string, unknown>);

/** The JSON log lines on the stream the command logs to, the text of the other stream, and both for messages. */
function logLines(command: 'serve' | 'mcp', started: Started) {
  const stream = logStream[command];
  const other: Stream = stream === 'stdout' ? 'stderr' : 'stdout';
  const both = `stdout:\n${started.output('stdout')}\nstderr:\n${started.output('stderr')}`;
  return { own: jsonLines(started.output(stream)), other: started.output(other), both };
}

async function expectCrashLogged(command: 'serve' | 'mcp', kind: 'exception' | 'rejection') {
  const started = await start(command, kind === 'rejection' ? { CRASH_KIND: 'rejection' } : {});
  started.child.kill('SIGUSR2');
  expect((await started.exited).code).toBe(1);
  const { own, other, both } = logLines(command, started);
  const fatal = own.find((line) => line.level === 60);
  expect(fatal, both).toMatchObject(
    kind === 'exception'
      ? { msg: 'uncaught exception: exiting', err: { message: 'test crash from crash-on-signal' } }
      : { msg: 'unhandled rejection: exiting', err: { message: 'test rejection from crash-on-signal' } },
  );
  // Only on that stream: not copied to the other one.
  expect(other, both).not.toContain(kind === 'exception' ? 'uncaught exception' : 'unhandled rejection');
}

async function expectSignalLogged(command: 'serve' | 'mcp', signal: NodeJS.Signals) {
  const started = await start(command);
  started.child.kill(signal);
  expect((await started.exited).code).toBe(0);
  const { own, other, both } = logLines(command, started);
  expect(own, both).toContainEqual(
    expect.objectContaining({ level: 40, signal, msg: `received ${signal}: shutting down` }),
  );
  expect(other, both).not.toContain(`received ${signal}`);
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
