import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { EngramError, NotFoundError, parseWith, VersionConflictError } from '../../core/errors.js';
import { roleSchema, tenantIdSchema } from '../../core/schemas/role.js';
import type { DocumentStore, StoredDocument } from '../../stores/document-store.js';
import { newId } from '../new-id.js';

/**
 * API keys are system records, not tenant data: they live under tenant `''`, which no real tenant
 * can be (tenant ids are never empty), so no tenant-scoped call can reach them, and one lookup by
 * id finds a key whatever its tenant.
 */
export const SYSTEM_TENANT = '';
export const API_KEY_COLLECTION = 'api-keys';

/** `engram_<ULID id>_<43 base64url chars = 256 random bits>`: the id is public, the rest is the secret. */
const KEY_PATTERN = /^engram_([0-9A-HJKMNP-TV-Z]{26})_[A-Za-z0-9_-]{43}$/;

const isoSchema = z.iso.datetime({ offset: true });

/** What is stored per key: never the key itself, only its SHA-256. */
const storedKeySchema = z.object({
  tenantId: tenantIdSchema,
  role: roleSchema,
  name: z.string().nullable(),
  hash: z.string().regex(/^[0-9a-f]{64}$/),
  createdAt: isoSchema,
  expiresAt: isoSchema.nullable(),
  revokedAt: isoSchema.nullable(),
  lastUsedAt: isoSchema.nullable(),
});
type StoredKey = z.infer<typeof storedKeySchema>;

/** An API key as shown to an admin: everything but the hash. */
export type ApiKey = Omit<StoredKey, 'hash'> & { id: string };

export const createApiKeyInputSchema = z.strictObject({
  tenantId: tenantIdSchema,
  role: roleSchema,
  name: z.string().trim().min(1).max(200).optional(),
  /** Days until the key stops working; absent = never. */
  expiresInDays: z.number().int().min(1).max(36_500).optional(),
});
export type CreateApiKeyInput = z.input<typeof createApiKeyInputSchema>;

/** The outcome of checking a presented key: its record, or why it is refused. */
export type ApiKeyCheck = { ok: true; apiKey: ApiKey } | { ok: false; reason: 'invalid' | 'expired' };

/** Creating, listing, revoking and checking API keys. */
export interface ApiKeys {
  /** Creates a key; `key` is the only time the secret exists outside the caller's hands. */
  create(input: CreateApiKeyInput): Promise<{ key: string; apiKey: ApiKey }>;
  /** Every key (of one tenant, when given), oldest first. An admin operation: it reads them all. */
  list(query?: { tenantId?: string }): Promise<ApiKey[]>;
  /** Marks a key revoked (idempotent); NotFoundError for an unknown id. */
  revoke(id: string): Promise<ApiKey>;
  /** One document read by the id embedded in the key, then a constant-time hash comparison. */
  verify(key: string): Promise<ApiKeyCheck>;
}

const DAY_MS = 86_400_000;
const LIST_PAGE = 500;

const sha256 = (text: string) => createHash('sha256').update(text).digest();

const toApiKey = (id: string, stored: StoredKey): ApiKey => {
  const { hash: _hash, ...rest } = stored;
  return { id, ...rest };
};

function readStored(document: StoredDocument): StoredKey {
  const parsed = storedKeySchema.safeParse(document.value);
  if (!parsed.success) {
    throw new EngramError('corrupt_api_key', 'internal', `API key ${document.id} is malformed in the store`);
  }
  return parsed.data;
}

/**
 * API keys over `store.documents`. Keys are 256-bit random secrets, so a fast hash (SHA-256) is
 * enough: slow hashes (bcrypt) exist to make guessing low-entropy passwords expensive, and nobody
 * can enumerate 2^256 secrets; a fast hash also keeps every authenticated request cheap.
 * `lastUsedAt` is written at most once per `lastUsedIntervalMs` (default 1 hour) per key.
 */
export function createApiKeys(
  documents: DocumentStore,
  options: { clock?: () => Date; lastUsedIntervalMs?: number } = {},
): ApiKeys {
  const clock = options.clock ?? (() => new Date());
  const lastUsedIntervalMs = options.lastUsedIntervalMs ?? 3_600_000;
  const get = (id: string) => documents.getDocument(SYSTEM_TENANT, API_KEY_COLLECTION, id);
  const put = (id: string, stored: StoredKey, expectedVersion: number) =>
    documents.putDocument(SYSTEM_TENANT, API_KEY_COLLECTION, id, stored, { expectedVersion });

  /** Records the use unless it was recorded recently; losing a race to another write is fine. */
  async function touch(document: StoredDocument, stored: StoredKey, now: Date): Promise<void> {
    const last = stored.lastUsedAt === null ? 0 : Date.parse(stored.lastUsedAt);
    if (now.getTime() - last < lastUsedIntervalMs) return;
    try {
      await put(document.id, { ...stored, lastUsedAt: now.toISOString() }, document.version);
    } catch (error) {
      // Someone else wrote the key meanwhile (a revocation, another touch): theirs wins, and
      // the expected version guarantees this write can never undo a revocation.
      if (!(error instanceof VersionConflictError)) throw error;
    }
  }

  return {
    async create(input) {
      const parsed = parseWith(createApiKeyInputSchema, input, 'API key');
      const now = clock();
      const id = newId(now.getTime());
      const key = `engram_${id}_${randomBytes(32).toString('base64url')}`;
      const stored: StoredKey = {
        tenantId: parsed.tenantId,
        role: parsed.role,
        name: parsed.name ?? null,
        hash: sha256(key).toString('hex'),
        createdAt: now.toISOString(),
        expiresAt:
          parsed.expiresInDays === undefined
            ? null
            : new Date(now.getTime() + parsed.expiresInDays * DAY_MS).toISOString(),
        revokedAt: null,
        lastUsedAt: null,
      };
      await put(id, stored, 0);
      return { key, apiKey: toApiKey(id, stored) };
    },

    async list(query = {}) {
      const found: ApiKey[] = [];
      for (let offset = 0; ; offset += LIST_PAGE) {
        const page = await documents.listDocuments(SYSTEM_TENANT, API_KEY_COLLECTION, {
          limit: LIST_PAGE,
          offset,
        });
        for (const document of page.documents) {
          const stored = readStored(document);
          if (query.tenantId === undefined || stored.tenantId === query.tenantId) {
            found.push(toApiKey(document.id, stored));
          }
        }
        if (page.documents.length < LIST_PAGE) return found;
      }
    },

    async revoke(id) {
      for (;;) {
        const document = await get(id);
        if (!document) throw new NotFoundError('API key', id);
        const stored = readStored(document);
        if (stored.revokedAt !== null) return toApiKey(id, stored);
        const revoked = { ...stored, revokedAt: clock().toISOString() };
        try {
          await put(id, revoked, document.version);
          return toApiKey(id, revoked);
        } catch (error) {
          // A concurrent touch bumped the version: read again and retry.
          if (!(error instanceof VersionConflictError)) throw error;
        }
      }
    },

    async verify(key) {
      const id = KEY_PATTERN.exec(key)?.[1];
      if (id === undefined) return { ok: false, reason: 'invalid' };
      const document = await get(id);
      if (!document) return { ok: false, reason: 'invalid' };
      const stored = readStored(document);
      // Only a holder of the secret learns anything more about the key (revoked, expired).
      if (!timingSafeEqual(sha256(key), Buffer.from(stored.hash, 'hex')))
        return { ok: false, reason: 'invalid' };
      if (stored.revokedAt !== null) return { ok: false, reason: 'invalid' };
      const now = clock();
      if (stored.expiresAt !== null && Date.parse(stored.expiresAt) <= now.getTime()) {
        return { ok: false, reason: 'expired' };
      }
      await touch(document, stored, now);
      return { ok: true, apiKey: toApiKey(id, stored) };
    },
  };
}
