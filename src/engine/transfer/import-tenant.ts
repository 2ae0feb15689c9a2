import { isDeepStrictEqual } from 'node:util';
import { EngramError, parseWith, ValidationError, VersionConflictError } from '../../core/errors.js';
import { hashUsesOwnerFields, memoryHash } from '../../core/memory-hash.js';
import { truncateText } from '../../core/preview-value.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { EngramStore } from '../../stores/engram-store.js';
import type { MemoryUpdate, NewMemoryRecord } from '../../stores/memory-record-store.js';
import { AGENTS_COLLECTION } from '../access/agent-registry.js';
import { readEndMark, writeEndMark } from '../write-path/session-end-marks.js';
import type { AgentLine, MemoryLine, SessionLine } from './transfer-line.js';
import { TRANSFER_FORMAT_VERSION } from './transfer-line.js';
import { transferLineSchema } from './transfer-line-schema.js';

/** What became of one imported item. */
export interface ImportOutcome {
  status: 'created' | 'deduplicated' | 'skipped' | 'failed';
  /** e.g. `memory mem_01…`, `session support/ada/s1`, `agent support`. */
  item: string;
  reason?: string;
}

/** Applies export lines to a store, one at a time; see `createTenantImporter`. */
export interface TenantImporter {
  /**
   * Validates and applies one line (a parsed JSON value): the outcomes of its item and of items that
   * waited for it (none for the header, or for a version held back until its predecessor comes).
   * Never throws for a bad item: it reports it.
   */
  importLine(value: unknown): Promise<ImportOutcome[]>;
  /**
   * Settles what waited for later lines: memories merged from one that never came are stored as
   * they are, and memories merged into one that never came are removed again.
   */
  finish(): Promise<ImportOutcome[]>;
}

const sessionLabel = (key: SessionKey) =>
  `session ${[key.namespace, key.userId, key.sessionId].map((part) => part ?? '-').join('/')}`;

function toNewRecord(memory: MemoryRecord): NewMemoryRecord {
  const {
    tenantId: _tenant,
    supersededBy: _by,
    validTo: _to,
    embeddingModel: _model,
    version: _version,
    ...fields
  } = memory;
  // Vectors are not exported; the engine re-embeds current records (`memories.reembed`). An owned
  // record's hash is recomputed: an older engram's export carries one that ignores the owner (as
  // SQLite migration 17 recomputes them); others hash as they always did.
  return {
    ...fields,
    ...(hashUsesOwnerFields(fields) ? { memoryHash: memoryHash(fields) } : {}),
    embedding: null,
  };
}

/** A later version of a memory as `updateMemory` takes it: what a version changes. */
function toUpdate(memory: MemoryRecord): MemoryUpdate {
  const {
    id: _id,
    createdAt: _created,
    lastAccessed: _accessed,
    accessCount: _count,
    persistedAt: _persisted,
    supersedes: _supersedes,
    ...next
  } = toNewRecord(memory);
  return next;
}

/**
 * Imports an export (docs/cli.md) into `tenantId` of `store`, idempotently: an item the store
 * already holds (same agent id, session key or memory id) is skipped, so re-running an import that
 * stopped half-way adds only what is missing. Writes go to the store directly, as a restore: they
 * enqueue no extraction or summaries. A memory's versions are replayed in order: the first is
 * inserted (by `supersede` when it was merged from another memory), each later one written by
 * `updateMemory`, which rebuilds its history with its id, version numbers and times. A version at
 * or below the stored one is skipped, so an import stopped within a memory's history resumes.
 */
export function createTenantImporter(store: EngramStore, tenantId: string): TenantImporter {
  /** Versions of memories merged from one not yet stored, by that memory's id. */
  const waiting = new Map<string, MemoryRecord[]>();
  /** Merged-away memories stored as current until the memory they were merged into arrives. */
  const awaitingSuccessor = new Map<string, MemoryRecord>();
  /** Ids of the file that the store already gives to another memory: never edited or merged away. */
  const foreign = new Set<string>();

  async function importAgent(line: AgentLine): Promise<ImportOutcome> {
    const item = `agent ${line.id}`;
    const stored = await store.documents.getDocument(tenantId, AGENTS_COLLECTION, line.id);
    if (stored) {
      // Never overwritten; but "already present" would pass a different config for the file's.
      const same = isDeepStrictEqual(stored.value, line.value);
      return {
        status: 'skipped',
        item,
        reason: same
          ? 'already present'
          : 'stored with another config (prompt or memory settings): kept as is',
      };
    }
    await store.documents.putDocument(tenantId, AGENTS_COLLECTION, line.id, line.value, {
      expectedVersion: 0,
    });
    return { status: 'created', item };
  }

  async function importSession(line: SessionLine): Promise<ImportOutcome> {
    const { session, messages } = line;
    const key = {
      tenantId,
      namespace: session.namespace,
      userId: session.userId,
      sessionId: session.sessionId,
    };
    const item = sessionLabel(key);
    const existing = await store.getSession(key);
    if (existing && existing.createdAt !== session.createdAt) {
      return { status: 'skipped', item, reason: 'another session with this key exists' };
    }
    if (!existing) {
      await store.putSession(
        key,
        {
          messages: messages.map(({ seq: _seq, ...message }) => message),
          memories: session.memories,
          data: session.data,
          context: session.context,
          ttlSeconds: session.ttlSeconds,
          longTermMemoryStrategy: session.longTermMemoryStrategy,
          createdAt: session.createdAt,
        },
        { expectedVersion: 0 },
      );
    }
    // The curation and the summary mark are set after the put; a re-run finishes what a stop left.
    const current = existing ?? (await store.getSession(key));
    if (current && JSON.stringify(current.workingSet) !== JSON.stringify(session.workingSet)) {
      await store.patchSession(key, { workingSet: session.workingSet });
    }
    // Seqs restart at 1 in the new session: the mark moves to the same message by position.
    const covered = messages.filter((message) => message.seq <= session.summarized.throughSeq).length;
    if (current && covered > 0 && current.summarized.throughSeq === 0 && session.context !== null) {
      await store.patchSession(key, {
        summary: { context: session.context, throughSeq: covered, expectedThroughSeq: 0 },
      });
    }
    // So does the end mark: the session is not ended again over what its episode holds.
    if (current && line.ended) {
      const stored = await readEndMark(store.documents, key, current.createdAt);
      if (stored.mark === null) {
        const through = messages.filter((message) => message.seq <= (line.ended?.throughSeq ?? 0)).length;
        await writeEndMark(
          store.documents,
          key,
          { ...line.ended, sessionCreatedAt: current.createdAt, throughSeq: through },
          stored.version,
        ).catch((error: unknown) => {
          // Written meanwhile (a server ended it): that mark stands.
          if (!(error instanceof VersionConflictError)) throw error;
        });
      }
    }
    if (!existing) return { status: 'created', item };
    // A newer export of the same session: its log continues the stored one, so the rest is added.
    const stored = await store.readMessages(key, { order: 'oldest-first' });
    const continues =
      stored.length < messages.length && stored.every((message, index) => messages[index]?.id === message.id);
    if (!continues) return { status: 'skipped', item, reason: 'already present' };
    const newer = messages.slice(stored.length).map(({ seq: _seq, ...message }) => message);
    await store.appendMessages(key, newer);
    return { status: 'created', item, reason: `${newer.length} newer messages appended` };
  }

  /** Ids whose versions wait with their first one, by the id of the memory it was merged from. */
  const parkedUnder = new Map<string, string>();

  async function storeVersion(memory: MemoryRecord, stored?: MemoryRecord): Promise<ImportOutcome[]> {
    const item = `memory ${memory.id}`;
    const existing = stored ?? (await store.memories.getMemories(tenantId, [memory.id]))[0];
    // A memory keeps its creation time across edits: another one means another memory (a store
    // with data of its own), which the file's later versions must not overwrite.
    if (
      foreign.has(memory.id) ||
      (existing && Date.parse(existing.createdAt) !== Date.parse(memory.createdAt))
    ) {
      foreign.add(memory.id);
      return [{ status: 'skipped', item, reason: 'another memory with this id exists' }];
    }
    if (existing && (existing.validTo !== null || memory.version <= existing.version)) {
      // Stored as current by a run that stopped before its newer memory came: still waiting.
      if (memory.supersededBy !== null && existing.validTo === null) awaitingSuccessor.set(memory.id, memory);
      return [{ status: 'skipped', item, reason: 'already present' }];
    }
    if (existing) {
      await store.memories.updateMemory(tenantId, memory.id, toUpdate(memory), {
        expectedVersion: existing.version,
      });
    } else {
      const record = toNewRecord(memory);
      const [predecessor] = memory.supersedes
        ? await store.memories.getMemories(tenantId, [memory.supersedes])
        : [];
      if (predecessor && predecessor.validTo === null && !foreign.has(predecessor.id)) {
        await store.memories.supersede(tenantId, predecessor.id, record);
        awaitingSuccessor.delete(predecessor.id);
      } else {
        // A restore stores every memory of the file: two memories may share a text and scope
        // (an edit can make them so), so no deduplication; a re-run skips by id above.
        await store.memories.insertMemories(tenantId, [record], { deduplicate: false });
      }
    }
    // Only a memory's last version names the memory it was merged into: what waits for it.
    if (memory.supersededBy === null) return [{ status: 'created', item }];
    awaitingSuccessor.set(memory.id, memory);
    return [{ status: 'created', item }, ...(await releaseWaiting(memory.id))];
  }

  async function releaseWaiting(id: string): Promise<ImportOutcome[]> {
    const next = waiting.get(id);
    if (!next) return [];
    waiting.delete(id);
    for (const memory of next) parkedUnder.delete(memory.id);
    const outcomes = [];
    for (const memory of next) outcomes.push(...(await storeVersion(memory)));
    return outcomes;
  }

  function park(predecessorId: string, memory: MemoryRecord): ImportOutcome[] {
    waiting.set(predecessorId, [...(waiting.get(predecessorId) ?? []), memory]);
    parkedUnder.set(memory.id, predecessorId);
    return [];
  }

  async function importMemory(line: MemoryLine): Promise<ImportOutcome[]> {
    const { memory } = line;
    // A later version of a memory whose first version waits: it waits with it, in order.
    const parked = parkedUnder.get(memory.id);
    if (parked !== undefined) return park(parked, memory);
    const [existing] = await store.memories.getMemories(tenantId, [memory.id]);
    if (!existing && memory.supersedes !== null) {
      const [predecessor] = await store.memories.getMemories(tenantId, [memory.supersedes]);
      // Its predecessor may come later in the file; `finish` stores it if it never does.
      if (!predecessor) return park(memory.supersedes, memory);
    }
    return storeVersion(memory, existing);
  }

  async function apply(value: unknown): Promise<ImportOutcome[]> {
    const line = parseWith(transferLineSchema, value, 'export line');
    switch (line.type) {
      case 'engram-export':
        if (line.formatVersion > TRANSFER_FORMAT_VERSION) {
          throw new ValidationError(
            `Export format ${line.formatVersion} is newer than this engram reads (${TRANSFER_FORMAT_VERSION})`,
          );
        }
        return [];
      case 'agent':
        return [await importAgent(line)];
      case 'session':
        return [await importSession(line)];
      case 'memory':
        return importMemory(line);
    }
  }

  return {
    async importLine(value) {
      try {
        return await apply(value);
      } catch (error) {
        if (!(error instanceof EngramError)) throw error;
        const type = (value as { type?: unknown } | null)?.type;
        const item = typeof type === 'string' ? truncateText(type, 80) : 'line';
        return [{ status: 'failed', item, reason: error.message }];
      }
    },

    async finish() {
      const outcomes: ImportOutcome[] = [];
      for (const [id, memories] of [...waiting]) {
        if (!waiting.has(id)) continue; // released by an earlier one
        waiting.delete(id);
        for (const memory of memories) parkedUnder.delete(memory.id);
        for (const memory of memories) outcomes.push(...(await storeVersion(memory)));
      }
      // A memory merged into one that is not in the file (deleted at the source) must not come back
      // as current.
      const orphans = [...awaitingSuccessor.keys()];
      for (let start = 0; start < orphans.length; start += 1_000) {
        await store.memories.deleteMemories(tenantId, orphans.slice(start, start + 1_000));
      }
      for (const id of orphans) {
        outcomes.push({
          status: 'skipped',
          item: `memory ${id}`,
          reason: 'the memory it was merged into is not in the file',
        });
      }
      awaitingSuccessor.clear();
      return outcomes;
    },
  };
}
