import { execFile } from 'node:child_process';

/** What one run of the real CLI printed, and its exit code. */
export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `engram ARGS` as a user would (a child process on src/cli/main.ts); never rejects on exit codes. */
export function engram(args: string[], environment: Record<string, string> = {}): Promise<CliRun> {
  return new Promise((resolve) => {
    execFile(
      'node',
      ['--import', 'tsx', 'src/cli/main.ts', ...args],
      { env: { ...process.env, ...environment }, maxBuffer: 64 * 1024 * 1024 },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
  });
}
