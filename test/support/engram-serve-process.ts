import { type ChildProcess, spawn } from 'node:child_process';

const cli = ['--import', 'tsx', 'src/cli/main.ts'];

/** A running `engram serve` child process. */
export interface ServeProcess {
  url: string;
  pid: number;
  /** Everything it wrote on stderr so far. */
  stderr(): string;
  /** SIGTERM, then resolves the exit code. */
  stop(): Promise<number | null>;
  /** SIGKILL (kill -9): no shutdown, no cleanup. */
  kill(): Promise<void>;
}

/** Resolves the URL the server prints on stderr once it listens; rejects if it exits first. */
function listeningUrl(child: ChildProcess, stderr: () => string): Promise<string> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const url = /listening on (http:\/\/\S+)/.exec(stderr())?.[1];
      if (url) resolve(url);
    };
    child.stderr?.on('data', check);
    child.once('exit', (code) =>
      reject(new Error(`engram serve exited with ${code} before listening: ${stderr()}`)),
    );
  });
}

/** Starts `engram serve` on a free port with `args` and extra environment; resolves once it listens. */
export async function startServe(
  args: string[],
  environment: Record<string, string> = {},
): Promise<ServeProcess> {
  const child = spawn('node', [...cli, 'serve', '--port', '0', ...args], {
    env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn', ...environment },
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let text = '';
  child.stderr?.on('data', (chunk) => {
    text += chunk;
  });
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
  const url = await listeningUrl(child, () => text);
  return {
    url,
    pid: child.pid ?? 0,
    stderr: () => text,
    stop: () => {
      child.kill('SIGTERM');
      return exited;
    },
    kill: async () => {
      child.kill('SIGKILL');
      await exited;
    },
  };
}

/** Runs `engram serve` expecting it to fail at start; resolves its exit code and stderr. */
export function failedServe(args: string[]): Promise<{ code: number | null; stderr: string }> {
  return new Promise((resolve) => {
    const child = spawn('node', [...cli, 'serve', '--port', '0', ...args], {
      env: { ...process.env, ENGRAM_LOG_LEVEL: 'warn' },
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    child.stderr?.on('data', (chunk) => {
      stderr += chunk;
    });
    child.once('exit', (code) => resolve({ code, stderr }));
  });
}
