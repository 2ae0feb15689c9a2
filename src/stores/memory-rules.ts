import { EngramError, ValidationError, VersionConflictError } from '../core/errors.js';
import { type MemoryRecord, type MemoryVersion, VERSIONED_FIELDS } from '../core/schemas/memory-record.js';
import { takeWithinChars } from '../core/take-within-chars.js';
import { compareCodePoints } from './memory/list-order.js';
import type {
  HistoryRange,
  MemoryHistory,
  MemoryPage,
  MemoryUpdate,
  NewMemoryRecord,
} from './memory-record-store.js';
import { timestampMs } from './session-rules.js';

/**
 * Rules of the long-term memory contract that do not depend on the backend, shared by every
 * driver so that they agree to the letter (see `memory-record-store.ts`).
 */

// The last timestamp normalized: a batch's records share one `now` for four or five of their
// timestamps, so most calls repeat the previous one (parsing and formatting cost ~1 µs each).
let lastTimestamp = { value: '', iso: '' };

/** A caller's ISO timestamp in the UTC `toISOString` form every driver returns. */
export function isoTimestamp(value: string): string {
  if (value === lastTimestamp.value) return lastTimestamp.iso;
  const iso = new Date(timestampMs(value)).toISOString();
  lastTimestamp = { value, iso };
  return iso;
}

/** A copy of a record's metadata: most records have none, which needs no structured clone. */
export function copyMetadata<T extends Record<string, unknown>>(metadata: T): T {
  return Object.keys(metadata).length === 0 ? ({} as T) : structuredClone(metadata);
}

/**
 * The stored form of `input` in `tenantId`: a current version (not superseded), timestamps in UTC
 * ISO form, and nothing shared with the caller's object. Throws a ValidationError for a timestamp
 * that does not parse.
 */
export function toMemoryRecord(tenantId: string, input: NewMemoryRecord): MemoryRecord {
  return {
    id: input.id,
    tenantId,
    namespace: input.namespace,
    userId: input.userId,
    sessionId: input.sessionId,
    agentId: input.agentId,
    documentId: input.documentId,
    source: input.source,
    text: input.text,
    memoryType: input.memoryType,
    topics: [...input.topics],
    entities: [...input.entities],
    eventDate: input.eventDate === null ? null : isoTimestamp(input.eventDate),
    createdAt: isoTimestamp(input.createdAt),
    updatedAt: isoTimestamp(input.updatedAt),
    lastAccessed: isoTimestamp(input.lastAccessed),
    accessCount: input.accessCount,
    salience: input.salience,
    confidence: input.confidence,
    pinned: input.pinned,
    supersedes: input.supersedes,
    supersededBy: null,
    version: 1,
    writtenBy: input.writtenBy,
    validFrom: isoTimestamp(input.validFrom),
    validTo: null,
    memoryHash: input.memoryHash,
    persistedAt: isoTimestamp(input.persistedAt),
    metadata: copyMetadata(input.metadata),
    embeddingModel: input.embedding?.model ?? null,
  };
}

/**
 * The record `current` becomes with its next version `next` (see `updateMemory`): the same id,
 * creation time, access statistics and merge links, every versioned field of `next`, version + 1.
 * `validFrom` never goes back before the current version's. Throws a ValidationError for a
 * timestamp that does not parse.
 */
export function nextVersionOf(current: MemoryRecord, next: MemoryUpdate): MemoryRecord {
  const stored = toMemoryRecord(current.tenantId, {
    ...next,
    id: current.id,
    createdAt: current.createdAt,
    lastAccessed: current.lastAccessed,
    accessCount: current.accessCount,
    persistedAt: current.persistedAt,
    supersedes: current.supersedes,
  });
  const validFrom = stored.validFrom < current.validFrom ? current.validFrom : stored.validFrom;
  return { ...stored, version: current.version + 1, validFrom };
}

/** A record as one version of its history: closed at `validTo` (null while current). */
export function toMemoryVersion(
  record: MemoryRecord,
  validTo: string | null = record.validTo,
): MemoryVersion {
  const version = {
    id: record.id,
    version: record.version,
    validFrom: record.validFrom,
    validTo,
    writtenBy: record.writtenBy,
  } as MemoryVersion;
  const fields = version as unknown as Record<string, unknown>;
  for (const field of VERSIONED_FIELDS) fields[field] = structuredClone(record[field]);
  return version;
}

/** The error for a memory whose current version is not the one the caller read. */
export function memoryVersionConflict(expected: number, actual: number): VersionConflictError {
  return new VersionConflictError(expected, actual, 'memory');
}

/** Default and largest number of versions `memoryHistory` returns. */
export const HISTORY_LIMIT = { default: 100, max: 10_000 } as const;

/** `memoryHistory`'s limit: the default when absent, within [0, max]. */
export function historyLimit(limit: number | undefined): number {
  if (limit === undefined) return HISTORY_LIMIT.default;
  return Math.min(HISTORY_LIMIT.max, Math.max(0, Math.floor(limit)));
}

/** A `memoryHistory` range with its defaults: `before` and `maxChars` unbounded when absent. */
export function historyRange(range: HistoryRange = {}): Required<HistoryRange> {
  return {
    limit: historyLimit(range.limit),
    before: range.before ?? Number.POSITIVE_INFINITY,
    maxChars: range.maxChars ?? Number.POSITIVE_INFINITY,
  };
}

/**
 * A text's length in characters as SQL's `length` counts them (code points): its UTF-16 units less
 * the second unit of each surrogate pair.
 */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let index = 1; index < text.length; index += 1) {
    const unit = text.charCodeAt(index);
    if (unit >= 0xdc00 && unit <= 0xdfff) {
      const previous = text.charCodeAt(index - 1);
      if (previous >= 0xd800 && previous <= 0xdbff) pairs += 1;
    }
  }
  return text.length - pairs;
}

/** A prior version's number and its text's length in code points (`codePointLength`, SQL's `length`). */
export interface VersionLength {
  version: number;
  chars: number;
}

/** How a driver reads a memory's prior versions, for `readHistoryPage`. */
export interface PriorVersionReader {
  /** The numbers and text lengths of the prior versions below `below`, newest first, at most `count`. */
  lengths(below: number, count: number): VersionLength[] | Promise<VersionLength[]>;
  /** The prior versions numbered within [from, below), newest first. */
  versions(from: number, below: number): MemoryVersion[] | Promise<MemoryVersion[]>;
}

/**
 * A page of the versions of the memory whose current version is `current` (see `memoryHistory`),
 * for every driver alike: the prior versions' numbers and lengths first (one past the page's
 * limit, to cut it and to know whether there is more), then only the page's versions. Prior
 * versions never change (only the current one moves on, and the reads stay below it), so the two
 * reads need no transaction.
 */
export async function readHistoryPage(
  current: MemoryRecord,
  range: Required<HistoryRange>,
  reader: PriorVersionReader,
): Promise<MemoryHistory> {
  const head =
    current.version < range.before
      ? [{ version: current.version, chars: codePointLength(current.text) }]
      : [];
  const below = Math.min(range.before, current.version);
  const candidates = [...head, ...(await reader.lengths(below, range.limit + 1 - head.length))];
  const page = takeWithinChars(
    candidates.slice(0, range.limit),
    (candidate) => candidate.chars,
    range.maxChars,
  );
  const oldest = page.at(-1);
  if (!oldest) return { versions: [], nextBefore: null };
  const prior = await reader.versions(oldest.version, below);
  return {
    versions: head.length > 0 ? [toMemoryVersion(current), ...prior] : prior,
    nextBefore: page.length < candidates.length ? oldest.version : null,
  };
}

/** The error for a record id that the tenant already has (or that repeats within one batch). */
export function duplicateMemoryIdError(id: string, path: (string | number)[]): ValidationError {
  return new ValidationError(`Memory id ${id} already exists`, [
    { path, message: `Duplicate memory id ${id}` },
  ]);
}

/** The conflict of superseding a version that a newer one already replaced. */
export function alreadySupersededError(id: string, supersededBy: string | null): EngramError {
  return new EngramError(
    'already_superseded',
    'conflict',
    `Memory ${id} was already superseded by ${supersededBy}`,
    {
      details: { id, supersededBy },
    },
  );
}

/** `recordAccess`'s `times`: a positive safe integer (a ValidationError names the parameter). */
export function accessTimes(times = 1): number {
  if (!Number.isSafeInteger(times) || times < 1) {
    throw new ValidationError(
      `recordAccess times must be a positive integer, got ${String(times).slice(0, 40)}`,
    );
  }
  return times;
}

/** Ids without repeats, in first-seen order. */
export function uniqueIds(ids: readonly string[]): string[] {
  return [...new Set(ids)];
}

/** Non-negative limit and offset, and the default order. */
export function pageBounds(page: MemoryPage): Required<MemoryPage> {
  return {
    limit: Math.max(0, Math.floor(page.limit)),
    offset: Math.max(0, Math.floor(page.offset)),
    order: page.order ?? 'created_desc',
  };
}

/**
 * The listing orders: by creation time (or last access) with the id as tie-break, compared by code
 * point as SQLite does, so that pages are stable. `created_asc` is the exact reverse of `created_desc`.
 */
export function compareMemoryOrder(
  order: Required<MemoryPage>['order'],
): (left: MemoryRecord, right: MemoryRecord) => number {
  const key = order === 'last_accessed_desc' ? 'lastAccessed' : 'createdAt';
  const direction = order === 'created_asc' ? 1 : -1;
  return (left, right) =>
    direction * (compareInstants(left[key], right[key]) || compareCodePoints(left.id, right.id));
}

const CANONICAL_ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

/**
 * Orders two ISO timestamps. Stored times are canonical UTC (`toISOString()`), whose text order is
 * their time order, so sorting 100,000 records needs no date parsing; anything else is parsed.
 */
function compareInstants(left: string, right: string): number {
  if (left.length === 24 && right.length === 24 && CANONICAL_ISO.test(left) && CANONICAL_ISO.test(right)) {
    return left < right ? -1 : left > right ? 1 : 0;
  }
  return Date.parse(left) - Date.parse(right);
}

/** Oldest first, by creation time then id: the order of `findUnembedded`. */
export const compareOldestFirst = compareMemoryOrder('created_asc');

/** Rejects vectors no distance can be computed for: empty, or holding NaN or infinities. */
export function assertUsableVector(vector: Float32Array, path: (string | number)[]): void {
  const invalid = vector.length === 0 || vector.some((value) => !Number.isFinite(value));
  if (invalid) {
    throw new ValidationError('A vector must be non-empty and finite', [
      { path, message: 'Vector is empty or holds a non-finite value' },
    ]);
  }
}

/**
 * Checks `vector` against the dimensions on record for its model (`known`, absent for a new model).
 * A model identity names one vector space, so all its vectors in a tenant have one length.
 */
export function assertDimensions(
  model: string,
  known: number | undefined,
  vector: Float32Array,
  path: (string | number)[],
): void {
  if (known === undefined || known === vector.length) return;
  throw new ValidationError(
    `Model ${model} stores ${known}-dimensional vectors; this one has ${vector.length} dimensions`,
    [{ path, message: `Expected ${known} dimensions, got ${vector.length}` }],
  );
}

/** Euclidean length of a vector. */
export function vectorNorm(vector: ArrayLike<number>): number {
  let sum = 0;
  for (let index = 0; index < vector.length; index += 1) {
    const value = vector[index] ?? 0;
    sum += value * value;
  }
  return Math.sqrt(sum);
}

/**
 * Cosine distance from a dot product and the two norms, clamped to [0, 2]. A zero vector has no
 * direction: its distance to anything is 1, as for orthogonal vectors.
 */
export function cosineDistance(dot: number, leftNorm: number, rightNorm: number): number {
  if (leftNorm === 0 || rightNorm === 0) return 1;
  return Math.min(2, Math.max(0, 1 - dot / (leftNorm * rightNorm)));
}
