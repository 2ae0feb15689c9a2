import { Command, CommanderError, Option } from 'commander';
import { ValidationError } from '../core/errors.js';
import { type ApiKey, createApiKeys } from '../engine/access/api-keys.js';
import { openConfiguredStore } from '../server/open-configured-store.js';
import { resolveServerConfig } from '../server/server-config.js';
import type { CliIo } from './cli-io.js';
import { assertDatabaseExists, type OpenOptions } from './open-engram.js';

interface KeysFlags {
  tenant?: string;
  role?: string;
  name?: string;
  expiresInDays?: string;
  db?: string;
  store?: string;
  config?: string;
  json?: boolean;
}

function describeKey(key: ApiKey): string {
  const state = key.revokedAt ? `revoked ${key.revokedAt}` : `expires ${key.expiresAt ?? 'never'}`;
  return [
    key.id,
    `tenant=${JSON.stringify(key.tenantId)}`,
    `role=${key.role}`,
    ...(key.name === null ? [] : [`name=${JSON.stringify(key.name)}`]),
    `created ${key.createdAt}`,
    state,
    `last used ${key.lastUsedAt ?? 'never'}`,
  ].join('  ');
}

/** Parses a whole number of days, or undefined when absent. */
function daysFlag(value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw new ValidationError('--expires-in-days must be a whole number of days');
  return Number(value);
}

/** Opens the key store on the database `serve` uses, runs `work`, closes it. */
async function withKeys<T>(
  flags: KeysFlags,
  io: CliIo,
  work: (keys: ReturnType<typeof createApiKeys>) => Promise<T>,
  options: OpenOptions = {},
) {
  const config = resolveServerConfig(
    { db: flags.db, store: flags.store, config: flags.config },
    io.environment,
  );
  if (options.existing) assertDatabaseExists(config);
  const { store } = await openConfiguredStore({ ...config, storeThread: 'main' }, (warning) =>
    io.stderr.write(`engram: ${warning}\n`),
  );
  try {
    return await work(createApiKeys(store.documents));
  } finally {
    await store.close();
  }
}

const storeOptions = (command: Command) =>
  command
    .option(
      '--db <path>',
      'SQLite database (default: ENGRAM_DATABASE_PATH, the config file, ./data/engram.db)',
    )
    .option('--store <url>', 'PostgreSQL URL instead of the SQLite file (or ENGRAM_STORE_URL)')
    .option('--config <file>', 'JSON config file (as `engram serve`)');

/**
 * `engram keys create|list|revoke`: manages API keys in the SQLite file the server uses. `report`
 * receives each subcommand's exit code.
 */
export function createKeysCommand(io: CliIo, report: (code: number) => void): Command {
  const keys = new Command('keys')
    .summary('create, list and revoke API keys')
    .description('manage API keys (docs/auth.md); only their hashes are stored');
  storeOptions(
    keys
      .command('create')
      .description('create an API key and print it once (stdout; details on stderr)')
      .requiredOption('--tenant <tenant>', 'tenant the key is scoped to')
      .addOption(
        new Option('--role <role>', 'what the key may do')
          .choices(['admin', 'agent', 'inspector'])
          .makeOptionMandatory(),
      )
      .option('--name <name>', 'a label for the key')
      .option('--expires-in-days <days>', 'days until the key expires (default: never)')
      .option('--json', 'print the key and its details as JSON'),
  ).action(async (flags: KeysFlags) => {
    const expiresInDays = daysFlag(flags.expiresInDays);
    await withKeys(flags, io, async (store) => {
      const { key, apiKey } = await store.create({
        tenantId: flags.tenant as string,
        role: flags.role as ApiKey['role'],
        ...(flags.name === undefined ? {} : { name: flags.name }),
        ...(expiresInDays === undefined ? {} : { expiresInDays }),
      });
      io.stdout.write(flags.json ? `${JSON.stringify({ key, ...apiKey })}\n` : `${key}\n`);
      io.stderr.write(
        `Created ${describeKey(apiKey)}\nThis is the only time the key is shown: store it now.\n`,
      );
    });
    report(0);
  });
  storeOptions(
    keys
      .command('list')
      .description(
        'list keys (never the secrets): id, tenant, role, name, created, expires, revoked, last used',
      )
      .option('--tenant <tenant>', 'only this tenant')
      .option('--json', 'print JSON'),
  ).action(async (flags: KeysFlags) => {
    await withKeys(
      flags,
      io,
      async (store) => {
        const listed = await store.list(flags.tenant === undefined ? {} : { tenantId: flags.tenant });
        io.stdout.write(
          flags.json ? `${JSON.stringify(listed)}\n` : listed.map((key) => `${describeKey(key)}\n`).join(''),
        );
      },
      { existing: true },
    );
    report(0);
  });
  storeOptions(
    keys
      .command('revoke')
      .description('revoke a key at once; it then answers 401 Invalid token')
      .argument('<id>', 'the key id (`engram keys list`)')
      .option('--json', 'print JSON'),
  ).action(async (id: string, flags: KeysFlags) => {
    await withKeys(
      flags,
      io,
      async (store) => {
        const revoked = await store.revoke(id);
        io.stdout.write(flags.json ? `${JSON.stringify(revoked)}\n` : `Revoked ${describeKey(revoked)}\n`);
      },
      { existing: true },
    );
    report(0);
  });
  return keys;
}

/**
 * Runs `engram keys ARGS` in process (tests, embedding): resolves the exit code; a usage error
 * (missing action, unknown option, bad value) rejects with a ValidationError naming it.
 */
export async function runKeysCommand(args: string[], io: CliIo): Promise<number> {
  let code = 0;
  const keys = createKeysCommand(io, (exitCode) => {
    code = exitCode;
  });
  let usage = '';
  keys.exitOverride().configureOutput({
    writeOut: (text) => io.stdout.write(text),
    writeErr: (text) => {
      usage += text;
    },
  });
  for (const command of keys.commands) {
    command.exitOverride().configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => {
        usage += text;
      },
    });
  }
  try {
    await keys.parseAsync(args, { from: 'user' });
  } catch (error) {
    if (error instanceof CommanderError) {
      if (error.code === 'commander.helpDisplayed') return 0;
      throw new ValidationError(`${error.message}\n${usage}`.trim());
    }
    throw error;
  }
  return code;
}
