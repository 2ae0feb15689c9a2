import type { MemoryRecord, MemoryVersion } from '../../core/schemas/memory-record.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { HISTORY_LIMIT } from '../../stores/memory-rules.js';
import { AGENTS_COLLECTION } from '../access/agent-registry.js';
import { readEndMark } from '../write-path/session-end-marks.js';
import {
  type AgentLine,
  type MemoryLine,
  memoryKindOf,
  type SessionLine,
  TRANSFER_FORMAT_VERSION,
  type TransferLine,
} from './transfer-line.js';

/** Rows read per store call: bounds memory use whatever the tenant's size. */
const PAGE = 500;
/** Characters of version text read per history call (50 versions of the longest memories). */
const EXPORT_HISTORY_CHARS = 1_000_000;

/**
 * About how many items an export of the tenant writes (agents, sessions, memory versions): for
 * progress. Versions are counted from each record's version number, one listing pass.
 */
export async function countTenant(store: EngramStore, tenantId: string): Promise<number> {
  const [agents, sessions] = await Promise.all([
    store.documents.listDocuments(tenantId, AGENTS_COLLECTION, { limit: 1, offset: 0 }),
    store.listSessions({ tenantId, limit: 1, offset: 0 }),
  ]);
  let versions = 0;
  for await (const page of memoryRecords(store, tenantId)) {
    for (const memory of page) versions += memory.version;
  }
  return agents.total + sessions.total + versions;
}

/**
 * Every memory record of the tenant (merged-away ones included), oldest first, so that a memory
 * comes after the one it was merged from, a page at a time. Pages start at the creation time of
 * the last record read, not at an offset: a memory deleted while an export runs (beside a server)
 * would shift the next one out of an offset page, missing from the file without a word. Records of
 * that same creation time are read again and left out by id.
 */
export async function* memoryRecords(store: EngramStore, tenantId: string): AsyncGenerator<MemoryRecord[]> {
  let last: string | undefined;
  let seenAtLast = new Set<string>();
  for (;;) {
    const limit = PAGE + seenAtLast.size;
    const { memories } = await store.memories.listMemories(
      tenantId,
      { includeSuperseded: true, ...(last !== undefined ? { createdAt: { gte: last } } : {}) },
      { limit, offset: 0, order: 'created_asc' },
    );
    const fresh = memories.filter((memory) => !seenAtLast.has(memory.id));
    for (const memory of fresh) {
      if (memory.createdAt !== last) seenAtLast = new Set();
      last = memory.createdAt;
      seenAtLast.add(memory.id);
    }
    if (fresh.length > 0) yield fresh;
    if (memories.length < limit) return;
  }
}

/**
 * Every version of `memory`, oldest first, each as a whole record: the
 * record's lasting fields (id, creation, access statistics, merge link) with that version's
 * fields. Only the last version carries the merge that closed the memory (`supersededBy`); an
 * older one carries when it stopped being current (`validTo`).
 */
export async function memoryVersions(
  store: EngramStore,
  tenantId: string,
  memory: MemoryRecord,
): Promise<MemoryRecord[]> {
  const history: MemoryVersion[] = [];
  // Page by page, however many versions there are: an export loses none.
  for (let before: number | undefined; ; ) {
    const page = await store.memories.memoryHistory(tenantId, memory.id, {
      limit: HISTORY_LIMIT.max,
      maxChars: EXPORT_HISTORY_CHARS,
      ...(before !== undefined ? { before } : {}),
    });
    history.push(...page.versions);
    if (page.nextBefore === null) break;
    before = page.nextBefore;
  }
  return history
    .reverse()
    .map((version) =>
      version.version === memory.version
        ? memory
        : { ...memory, ...version, supersededBy: null, embeddingModel: null },
    );
}

/**
 * Leaves out superseded versions whose newer version was deleted: imported, they would be current
 * again, bringing back what was deleted.
 */
async function restorable(
  store: EngramStore,
  tenantId: string,
  page: MemoryRecord[],
): Promise<MemoryRecord[]> {
  const successors = [...new Set(page.flatMap((memory) => memory.supersededBy ?? []))];
  if (successors.length === 0) return page;
  const present = new Set(
    (await store.memories.getMemories(tenantId, successors)).map((memory) => memory.id),
  );
  return page.filter((memory) => memory.supersededBy === null || present.has(memory.supersededBy));
}

/** Pages after the last id read, not by offset: an agent deleted meanwhile shifts none out. */
async function* agentLines(store: EngramStore, tenantId: string): AsyncGenerator<AgentLine> {
  for (let after: string | undefined; ; ) {
    const { documents } = await store.documents.listDocuments(tenantId, AGENTS_COLLECTION, {
      limit: PAGE,
      offset: 0,
      order: 'id-asc',
      ...(after !== undefined ? { after } : {}),
    });
    for (const document of documents) yield { type: 'agent', id: document.id, value: document.value };
    if (documents.length < PAGE) return;
    after = documents.at(-1)?.id;
  }
}

/** Past every session's `updatedAt`: the listing's range is all sessions. */
const END_OF_TIME = '9999-12-31T23:59:59.999Z';

/**
 * The tenant's session keys, by the store's stable cursor (update time, then insertion), not by
 * offset in the newest-first listing: there a session deleted or expired meanwhile would shift
 * another out of the next page, and one written meanwhile would jump to the front, unread. One
 * written meanwhile here moves later in the listing, read again, and is kept once.
 */
async function sessionKeys(store: EngramStore, tenantId: string): Promise<SessionKey[]> {
  const keys = new Map<string, SessionKey>();
  for (let after: string | undefined; ; ) {
    const { sessions, cursor } = await store.listIdleSessions({
      tenantId,
      updatedBefore: END_OF_TIME,
      limit: PAGE,
      ...(after !== undefined ? { after } : {}),
    });
    for (const { namespace, userId, sessionId } of sessions) {
      keys.set(JSON.stringify([namespace, userId, sessionId]), { tenantId, namespace, userId, sessionId });
    }
    if (cursor === null) return [...keys.values()];
    after = cursor;
  }
}

async function* sessionLines(store: EngramStore, tenantId: string): AsyncGenerator<SessionLine> {
  // Keys first, then each session: the listing stays valid while sessions are read.
  for (const key of await sessionKeys(store, tenantId)) {
    const session = await store.getSession(key);
    if (!session) continue; // expired or deleted since the listing
    const messages = await store.readMessages(key, { order: 'oldest-first' });
    const { mark } = await readEndMark(store.documents, key, session.createdAt);
    yield { type: 'session', session, messages, ...(mark ? { ended: mark } : {}) };
  }
}

/**
 * The tenant as JSON Lines records (docs/cli.md): a header, then agents, sessions with their
 * messages, and every version of every memory record, oldest first (knowledge chunks, procedures
 * and episodes included).
 * Embeddings are left out: they are derived data of one model, recomputed by the importer.
 */
export async function* exportTenant(
  store: EngramStore,
  tenantId: string,
  options: { engramVersion: string; clock?: () => Date },
): AsyncGenerator<TransferLine> {
  yield {
    type: 'engram-export',
    formatVersion: TRANSFER_FORMAT_VERSION,
    tenantId,
    exportedAt: (options.clock ?? (() => new Date()))().toISOString(),
    engramVersion: options.engramVersion,
  };
  yield* agentLines(store, tenantId);
  yield* sessionLines(store, tenantId);
  for await (const page of memoryRecords(store, tenantId)) {
    for (const record of await restorable(store, tenantId, page)) {
      for (const memory of await memoryVersions(store, tenantId, record)) {
        const line: MemoryLine = { type: 'memory', kind: memoryKindOf(memory), memory };
        yield line;
      }
    }
  }
}
