import { VersionConflictError } from '../../core/errors.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import { type MessageInput, messageRoleSchema } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { INDEXED_ROLES, sessionScopeDigest } from '../write-path/index-messages-records.js';
import type { MessageIndexState, RepeatDocument } from '../write-path/index-messages-state.js';
import type { SessionOperations } from './session-operations.js';
import { type SessionRef, toSessionKey } from './session-ref.js';

/** A put takes at most this many messages: a longer conversation is rebuilt from its newest ones. */
const MAX_REBUILT_MESSAGES = 100_000;
const PAGE = 1_000;

interface Occurrence {
  messageId: string;
  role: string;
  content: string;
  seq: number;
  part: number;
  parts: number;
  generation: number;
  createdAt: string;
}

const ROLES = new Set<string>(INDEXED_ROLES);

/** `"<role>: <content>"` split on the first `": "`; null when the text is not of that form. */
export function splitMessageText(text: string): { role: string; content: string } | null {
  const at = text.indexOf(': ');
  if (at < 0) return null;
  return { role: text.slice(0, at), content: text.slice(at + 2) };
}

const numberOr = (value: unknown, fallback: number) =>
  typeof value === 'number' && Number.isFinite(value) ? value : fallback;

/** The occurrence a record stands for; records a client created carry no metadata, so defaults. */
function occurrenceOf(record: MemoryRecord): Occurrence | null {
  const split = splitMessageText(record.text);
  if (!split) return null;
  const { metadata } = record;
  return {
    ...split,
    messageId: typeof metadata.messageId === 'string' ? metadata.messageId : record.id,
    seq: numberOr(metadata.seq, 0),
    part: numberOr(metadata.part, 0),
    parts: numberOr(metadata.parts, 1),
    generation: numberOr(metadata.generation, 0),
    createdAt: record.createdAt,
  };
}

function repeatOccurrence(repeat: RepeatDocument, records: Map<string, MemoryRecord>): Occurrence | null {
  const record = records.get(repeat.recordId);
  const split = record ? splitMessageText(record.text) : null;
  if (!split) return null;
  return { ...repeat, role: split.role, content: split.content };
}

/** Joins the parts of each message, drops unusable ones, orders by time then seq. */
export function rebuildMessages(occurrences: Occurrence[], generation: number): MessageInput[] {
  const byMessage = new Map<string, Occurrence[]>();
  for (const occurrence of occurrences) {
    if (occurrence.generation !== generation) continue;
    const parts = byMessage.get(occurrence.messageId) ?? [];
    if (!parts.some((part) => part.part === occurrence.part)) parts.push(occurrence);
    byMessage.set(occurrence.messageId, parts);
  }
  const messages: (Occurrence & { id: string })[] = [];
  for (const [id, parts] of byMessage) {
    parts.sort((a, b) => a.part - b.part);
    const first = parts[0];
    // A message missing a part (its record deleted) or of a role that cannot be rebuilt is left out.
    if (!first || parts.length !== first.parts || !ROLES.has(first.role)) continue;
    messages.push({ ...first, id, content: parts.map((part) => part.content).join('') });
  }
  messages.sort(
    (a, b) => Date.parse(a.createdAt) - Date.parse(b.createdAt) || a.seq - b.seq || compare(a.id, b.id),
  );
  return messages.slice(-MAX_REBUILT_MESSAGES).map((message) => ({
    id: message.id,
    role: messageRoleSchema.parse(message.role),
    content: message.content,
    createdAt: message.createdAt,
  }));
}

const compare = (a: string, b: string) => (a < b ? -1 : a > b ? 1 : 0);

export interface SessionReconstructionOptions {
  memories: LongTermMemory;
  state: MessageIndexState;
}

/**
 * Rebuilds a missing session from its `message` records (AMS §7.3): messages of the current delete
 * generation, ordered by time then seq, no context, data `{}`, no memories. Null when there are none.
 */
export function createSessionReconstruction(options: SessionReconstructionOptions) {
  const { memories, state } = options;

  async function readRecords(key: SessionKey): Promise<MemoryRecord[]> {
    const filter = {
      memoryType: { eq: 'message' },
      sessionId: { eq: key.sessionId },
      namespace: key.namespace === null ? { exists: false } : { eq: key.namespace },
      userId: key.userId === null ? { exists: false } : { eq: key.userId },
    };
    const records: MemoryRecord[] = [];
    for (let offset = 0; ; offset += PAGE) {
      const page = await memories.list(key.tenantId, filter, { limit: PAGE, offset, order: 'created_asc' });
      records.push(...page.memories);
      if (page.memories.length < PAGE) return records;
    }
  }

  return async function rebuildMessagesOf(ref: SessionRef): Promise<MessageInput[]> {
    const key = toSessionKey(ref);
    const generation = await state.generation(key);
    const records = await readRecords(key);
    if (records.length === 0) return [];
    const byId = new Map(records.map((record) => [record.id, record]));
    const repeats = await state.listRepeats(key.tenantId, sessionScopeDigest(key));
    const occurrences = [
      ...records.map(occurrenceOf),
      ...repeats.map((repeat) => repeatOccurrence(repeat, byId)),
    ].filter((occurrence): occurrence is Occurrence => occurrence !== null);
    return rebuildMessages(occurrences, generation);
  };
}

export type SessionReconstruction = ReturnType<typeof createSessionReconstruction>;

/**
 * Session operations that rebuild a missing session on `get` from its indexed messages and write
 * it back as a new session (later appends continue it), and that start a new delete generation on
 * `delete`, so a session deleted on purpose is never rebuilt from what was said before.
 */
export function withSessionReconstruction(
  sessions: SessionOperations,
  rebuild: SessionReconstruction,
  state: MessageIndexState,
): SessionOperations {
  return {
    ...sessions,
    async get(ref, options) {
      const found = await sessions.get(ref, options);
      if (found) return found;
      const messages = await rebuild(ref);
      if (messages.length === 0) return null;
      try {
        await sessions.put(ref, { messages, data: {}, context: null }, { expectedVersion: 0 });
      } catch (error) {
        // Written meanwhile (another reader rebuilt it, or a client wrote it): that one stands.
        if (!(error instanceof VersionConflictError)) throw error;
      }
      return sessions.get(ref, options);
    },
    async delete(ref) {
      // After the delete, never before: an index job that still saw the session read the old
      // generation first, so what it writes stays in the generation this delete closes.
      const deleted = await sessions.delete(ref);
      await state.nextGeneration(toSessionKey(ref));
      return deleted;
    },
  };
}
