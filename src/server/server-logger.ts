import { type Logger, pino } from 'pino';

/** Bytes of log lines gathered before one write: a busy server pays a system call per ~20 lines. */
const LOG_BUFFER_BYTES = 4_096;
/** The longest a buffered line waits on a quiet server before it is written. */
const LOG_FLUSH_MS = 250;

/**
 * The server's JSON logger on stdout. Writes are asynchronous and batched: lines gather in a
 * buffer until it holds `LOG_BUFFER_BYTES` (or `LOG_FLUSH_MS` passed), then go out in one write,
 * so the per-request line costs its formatting, not a system call (profiles of the cached GET
 * showed the log writes costing as much as the HTTP responses). `close()` of the server flushes
 * what is left; a crash may lose the last quarter-second of lines.
 */
export function createServerLogger(level: string): Logger {
  const destination = pino.destination({ dest: 1, sync: false, minLength: LOG_BUFFER_BYTES });
  setInterval(() => {
    try {
      destination.flush();
    } catch {
      // Not ready yet, or already closed: the next tick (or close) writes it.
    }
  }, LOG_FLUSH_MS).unref();
  return pino({ level }, destination);
}
