import { constants } from 'node:os';
import { type Logger, symbols } from 'pino';

/** The signals after which `engram serve` and `engram mcp` shut down (a second one exits at once). */
export const SHUTDOWN_SIGNALS = ['SIGTERM', 'SIGINT', 'SIGHUP'] as const;

/**
 * Sends what the logger has buffered now, synchronously: the server logger writes asynchronously
 * (server-logger.ts), and a process about to exit must not lose its last line.
 */
export function flushLogSync(logger: Logger): void {
  const stream = (logger as unknown as Record<symbol, { flushSync?: () => void }>)[symbols.streamSym];
  try {
    stream?.flushSync?.();
  } catch {
    // A full pipe (EAGAIN) cannot be drained here; the line is as flushed as it can be.
  }
}

/**
 * Makes every way the process may end leave one JSON line in `logger`, flushed before exit:
 * an uncaught exception or unhandled rejection (level `fatal`, with the error; then exit 1), a
 * shutdown signal (level `warn`; then `onSignal` drains and closes), and a second signal while
 * draining (level `fatal`; exit 128 + the signal number at once). Returns a function removing them.
 */
export function installFatalHandlers(logger: Logger, onSignal: (signal: NodeJS.Signals) => void): () => void {
  let signalled = false;
  const crash = (kind: string) => (error: unknown) => {
    logger.fatal({ err: error, kind }, `${kind}: exiting`);
    flushLogSync(logger);
    process.exit(1);
  };
  const onException = crash('uncaught exception');
  const onRejection = crash('unhandled rejection');
  const onShutdownSignal = (signal: NodeJS.Signals) => {
    if (signalled) {
      logger.fatal({ signal }, `second ${signal} while shutting down: exiting now`);
      flushLogSync(logger);
      process.exit(128 + (constants.signals[signal] ?? 0));
    }
    signalled = true;
    logger.warn({ signal }, `received ${signal}: shutting down`);
    flushLogSync(logger);
    onSignal(signal);
  };
  process.on('uncaughtException', onException);
  process.on('unhandledRejection', onRejection);
  for (const signal of SHUTDOWN_SIGNALS) process.on(signal, onShutdownSignal);
  return () => {
    process.off('uncaughtException', onException);
    process.off('unhandledRejection', onRejection);
    for (const signal of SHUTDOWN_SIGNALS) process.off(signal, onShutdownSignal);
  };
}
