import { writeSync } from 'node:fs';
import { type Logger, pino } from 'pino';
import { loggedError } from './logged-error.js';

/** Characters of log lines gathered before one write: a busy server pays a system call per ~70 lines. */
const LOG_CHUNK_CHARS = 16_384;
/** The longest a gathered line waits on a quiet server before it is written. */
const LOG_FLUSH_MS = 250;

/** Releases of every server logger's gathered lines, run on the process's `exit`. */
const pendingAtExit = new Set<() => void>();
let exitListening = false;

/**
 * The server's JSON logger on stdout (or `dest`, a file descriptor or path). Writes are
 * asynchronous and batched: lines gather in an array until they hold `LOG_CHUNK_CHARS` (or
 * `LOG_FLUSH_MS` passed), then go to pino's asynchronous destination as one chunk, so the
 * per-request line costs its formatting, not a system call (profiles of the cached GET showed the
 * log writes costing as much as the HTTP responses). The gathering is done here rather than by
 * the destination's `minLength`: that one re-measures its whole growing buffer per line, which in
 * a server profile cost more than formatting the line. `close()` of the server flushes what is
 * left (`flush`, and `flushSync` for the fatal handlers); so does the process's `exit`; a crash
 * may lose the last quarter-second of lines.
 */
export function createServerLogger(level: string, dest: number | string = 1): Logger {
  // minLength 1: whatever the destination is handed goes out at once (the batching is ours), and
  // its flush still waits for a write in flight (with 0 it would answer at once).
  const destination = pino.destination({ dest, sync: false, minLength: 1 });
  let lines: string[] = [];
  let chars = 0;
  const take = (): string => {
    const chunk = lines.join('');
    lines = [];
    chars = 0;
    return chunk;
  };
  const release = () => {
    if (lines.length > 0) destination.write(take());
  };
  /**
   * Writes what the destination holds and the gathered lines, synchronously. Handed to the
   * destination, the lines would start an asynchronous write that the destination's `flushSync`
   * leaves to the thread pool, which a process exiting right after may never run: a fatal line lost.
   */
  const releaseSync = () => {
    // The descriptor (the type leaves it out); -1 while a path is being opened: nothing to write to yet.
    const fd = (destination as unknown as { fd: number }).fd;
    if (fd < 0) return release();
    destination.flushSync();
    if (lines.length > 0) writeSync(fd, take());
  };
  if (!exitListening) {
    exitListening = true;
    // Ahead of pino's own exit handler, which writes out what its destinations hold synchronously.
    process.prependListener('exit', () => {
      for (const releaseLines of pendingAtExit) releaseLines();
    });
  }
  pendingAtExit.add(releaseSync);
  setInterval(release, LOG_FLUSH_MS).unref();
  const stream = {
    write(line: string) {
      lines.push(line);
      chars += line.length;
      if (chars >= LOG_CHUNK_CHARS) release();
    },
    flush(callback: (error?: Error) => void) {
      release();
      destination.flush(callback);
    },
    flushSync: releaseSync,
  };
  // Errors content-free: their details may quote users' data (logged-error.ts).
  return pino({ level, serializers: { err: loggedError } }, stream);
}
