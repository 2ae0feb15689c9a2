import { type Logger, pino } from 'pino';

/**
 * The server's JSON logger on stdout. Writes are asynchronous: a line goes out at once when the
 * stream is idle, and lines logged while a write is in flight are sent together with the next
 * one, so a busy server pays one write per batch instead of one system call per request.
 * `close()` of the server flushes what is left.
 */
export function createServerLogger(level: string): Logger {
  return pino({ level }, pino.destination({ dest: 1, sync: false, minLength: 0 }));
}
