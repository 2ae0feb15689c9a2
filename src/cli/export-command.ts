import { once } from 'node:events';
import { createWriteStream, realpathSync, renameSync, rmSync } from 'node:fs';
import { resolve } from 'node:path';
import type { Writable } from 'node:stream';
import { EngramError, ValidationError } from '../core/errors.js';
import { truncateText } from '../core/preview-value.js';
import { countTenant, exportTenant } from '../engine/transfer/export-tenant.js';
import type { ServerConfig } from '../server/server-config.js';
import type { CliIo } from './cli-io.js';
import { engramVersion } from './engram-version.js';
import { type StoreFlags, withEngram } from './open-engram.js';
import { createProgressBar } from './progress-bar.js';

export interface ExportFlags extends StoreFlags {
  tenant: string;
}

/**
 * Refuses a FILE that is the SQLite database (or its journal): the finished export is renamed
 * onto FILE, which would replace the database, other tenants and API keys included.
 */
function assertNotDatabase(file: string, config: ServerConfig): void {
  if (config.storeUrl) return;
  const real = (path: string) => {
    try {
      return realpathSync(path);
    } catch {
      return resolve(path);
    }
  };
  const database = real(config.databasePath);
  if ([database, `${database}-wal`, `${database}-shm`, `${database}-journal`].includes(real(file))) {
    throw new ValidationError(`${file} is the database (or its journal): give the export another file name`);
  }
}

function emptyTenantError(tenant: string): EngramError {
  const quoted = JSON.stringify(truncateText(tenant));
  return new EngramError(
    'tenant_empty',
    'not_found',
    `tenant ${quoted} holds nothing (no agents, sessions or memories): nothing exported; check --tenant`,
    { details: { tenantId: truncateText(tenant) } },
  );
}

async function writeLine(stream: Writable, text: string): Promise<void> {
  if (!stream.write(`${text}\n`)) await once(stream, 'drain');
}

/**
 * `engram export FILE`: the tenant as JSON Lines (docs/cli.md). The file appears complete or not
 * at all: lines go to `FILE.partial`, renamed once the last is written. `-` writes to stdout.
 */
export async function runExport(file: string, flags: ExportFlags, io: CliIo): Promise<number> {
  return withEngram(
    flags,
    io,
    async (engram, config) => {
      const toStdout = file === '-';
      if (!toStdout) assertNotDatabase(file, config);
      const total = await countTenant(engram.store, flags.tenant);
      // Most likely a mistyped --tenant: an empty file and exit 0 would pass for a backup.
      if (total === 0) throw emptyTenantError(flags.tenant);
      const partial = `${file}.partial`;
      const output = toStdout ? io.stdout : createWriteStream(partial);
      const progress = createProgressBar(io.stderr, { label: 'export', total });
      const counts = { agent: 0, session: 0, message: 0, memory: 0 };
      try {
        for await (const line of exportTenant(engram.store, flags.tenant, { engramVersion })) {
          await writeLine(output, JSON.stringify(line));
          if (line.type === 'engram-export') continue;
          counts[line.type]++;
          if (line.type === 'session') counts.message += line.messages.length;
          progress.increment();
        }
        progress.stop();
        if (!toStdout) {
          output.end();
          await once(output, 'finish');
          renameSync(partial, file);
        }
      } catch (error) {
        progress.stop();
        if (!toStdout) {
          output.destroy();
          rmSync(partial, { force: true });
        }
        throw error;
      }
      io.stderr.write(
        `exported tenant ${JSON.stringify(flags.tenant)}: ${counts.agent} agents, ${counts.session} sessions ` +
          `(${counts.message} messages), ${counts.memory} memory versions${toStdout ? '' : ` to ${file}`}\n`,
      );
      return 0;
    },
    { existing: true },
  );
}
