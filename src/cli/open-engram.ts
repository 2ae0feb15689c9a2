import { existsSync } from 'node:fs';
import { EngramError } from '../core/errors.js';
import { truncateText } from '../core/preview-value.js';
import { createEngram, type Engram } from '../engram.js';
import { openConfiguredStore } from '../server/open-configured-store.js';
import { resolveServerConfig, type ServerConfig } from '../server/server-config.js';
import { writePathOptionsOf } from '../server/write-path-options.js';
import type { CliIo } from './cli-io.js';

/** The flags every data command takes, resolved like `engram serve`'s. */
export interface StoreFlags {
  db?: string;
  /** A PostgreSQL URL (`--store`), else the SQLite file. */
  store?: string;
  config?: string;
}

/** How a command opens the database. */
export interface OpenOptions {
  /**
   * The command only reads (export, inspect, keys list): a SQLite file that does not exist is a
   * mistyped path, refused, not created empty (an empty export that says it succeeded).
   */
  existing?: boolean;
}

/** Throws unless the SQLite file `config` names exists (a PostgreSQL store is not checked here). */
export function assertDatabaseExists(config: Pick<ServerConfig, 'storeUrl' | 'databasePath'>): void {
  if (config.storeUrl || existsSync(config.databasePath)) return;
  throw new EngramError(
    'not_found',
    'not_found',
    `No database at ${truncateText(config.databasePath)}: this command reads an existing one (set --db, ENGRAM_DATABASE_PATH or databasePath in the config file)`,
  );
}

/**
 * Opens engram on the database `serve` would use (`--db`, else `ENGRAM_DATABASE_PATH`, else the
 * config file, else ./data/engram.db), with the same LLM settings, and no sweepers: a command
 * does its work and closes.
 */
export async function openEngram(
  flags: StoreFlags,
  io: CliIo,
  options: OpenOptions = {},
): Promise<{ engram: Engram; config: ServerConfig }> {
  const config = resolveServerConfig(
    { db: flags.db, store: flags.store, config: flags.config },
    io.environment,
  );
  if (options.existing) assertDatabaseExists(config);
  const { store } = await openConfiguredStore({ ...config, storeThread: 'main' }, (warning) =>
    io.stderr.write(`engram: ${warning}\n`),
  );
  const engram = await createEngram({
    store,
    sweepIntervalMs: 0,
    sessionEnd: { idleMs: 0 },
    ...writePathOptionsOf(config, () => {}),
    onBackgroundError: (error) => io.stderr.write(`engram: background work failed: ${String(error)}\n`),
  });
  return { engram, config };
}

/** Runs `work` on an opened engram and always closes it. */
export async function withEngram<T>(
  flags: StoreFlags,
  io: CliIo,
  work: (engram: Engram, config: ServerConfig) => Promise<T>,
  options: OpenOptions = {},
): Promise<T> {
  const { engram, config } = await openEngram(flags, io, options);
  try {
    return await work(engram, config);
  } finally {
    await engram.close();
  }
}
