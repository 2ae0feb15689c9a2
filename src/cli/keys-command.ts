import type { Writable } from 'node:stream';
import { parseArgs } from 'node:util';
import { ValidationError } from '../core/errors.js';
import { type ApiKey, createApiKeys } from '../engine/access/api-keys.js';
import { openConfiguredStore } from '../server/open-configured-store.js';
import { resolveServerConfig } from '../server/server-config.js';

export const KEYS_HELP = `  engram keys create --tenant T --role admin|agent|inspector [--name N] [--expires-in-days D]
      Creates an API key and prints it once (stdout; details on stderr). Only its hash is stored.
  engram keys list [--tenant T] [--json]
      Lists keys (never the secrets): id, tenant, role, name, created, expires, revoked, last used.
  engram keys revoke ID
      Revokes a key at once; it then answers 401 Invalid token.
      All three take [--db PATH] [--store URL] [--config FILE], resolved like \`engram serve\`'s store.
`;

interface KeysIo {
  stdout: Writable;
  stderr: Writable;
  environment: Record<string, string | undefined>;
}

const usage = (message: string) => new ValidationError(`${message}\n\nUsage:\n${KEYS_HELP}`);

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

/** Parses a positive integer flag, or undefined when absent. */
function integerFlag(value: string | undefined, name: string): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value)) throw usage(`--${name} must be a whole number of days`);
  return Number(value);
}

/**
 * `engram keys create|list|revoke`: manages API keys in the store the server uses (`--store` or
 * `ENGRAM_STORE_URL` for PostgreSQL; else `--db`, `ENGRAM_DATABASE_PATH`, the config file, ./data/engram.db). Resolves the exit code.
 */
export async function runKeysCommand(args: string[], io: KeysIo): Promise<number> {
  const { values, positionals } = parseArgs({
    args,
    allowPositionals: true,
    options: {
      tenant: { type: 'string' },
      role: { type: 'string' },
      name: { type: 'string' },
      'expires-in-days': { type: 'string' },
      db: { type: 'string' },
      store: { type: 'string' },
      config: { type: 'string' },
      json: { type: 'boolean', default: false },
    },
  });
  const [action, ...operands] = positionals;
  if (action !== 'create' && action !== 'list' && action !== 'revoke') {
    throw usage(action === undefined ? 'Missing action' : `Unknown action "${action}"`);
  }
  const config = resolveServerConfig(
    { db: values.db, store: values.store, config: values.config },
    io.environment,
  );
  const { store } = await openConfiguredStore(config, (message) => io.stderr.write(`${message}\n`));
  try {
    const keys = createApiKeys(store.documents);
    if (action === 'create') {
      if (values.tenant === undefined || values.role === undefined)
        throw usage('--tenant and --role are required');
      const expiresInDays = integerFlag(values['expires-in-days'], 'expires-in-days');
      const { key, apiKey } = await keys.create({
        tenantId: values.tenant,
        role: values.role as ApiKey['role'],
        ...(values.name === undefined ? {} : { name: values.name }),
        ...(expiresInDays === undefined ? {} : { expiresInDays }),
      });
      io.stdout.write(values.json ? `${JSON.stringify({ key, ...apiKey })}\n` : `${key}\n`);
      io.stderr.write(
        `Created ${describeKey(apiKey)}\nThis is the only time the key is shown: store it now.\n`,
      );
      return 0;
    }
    if (action === 'list') {
      const listed = await keys.list(values.tenant === undefined ? {} : { tenantId: values.tenant });
      io.stdout.write(
        values.json ? `${JSON.stringify(listed)}\n` : listed.map((key) => `${describeKey(key)}\n`).join(''),
      );
      return 0;
    }
    const [id] = operands;
    if (id === undefined) throw usage('revoke needs the key id');
    const revoked = await keys.revoke(id);
    io.stdout.write(values.json ? `${JSON.stringify(revoked)}\n` : `Revoked ${describeKey(revoked)}\n`);
    return 0;
  } finally {
    await store.close();
  }
}
