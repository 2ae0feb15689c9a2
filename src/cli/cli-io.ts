import type { Writable } from 'node:stream';

/** What a command reads and writes: the process's streams and environment, or a test's. */
export interface CliIo {
  stdout: Writable & { isTTY?: boolean; columns?: number };
  stderr: Writable & { isTTY?: boolean; columns?: number };
  environment: Record<string, string | undefined>;
}
