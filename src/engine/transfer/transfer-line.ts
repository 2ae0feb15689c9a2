import type { JsonObject } from '../../core/schemas/json.js';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionState } from '../../core/schemas/session.js';
import type { SessionEndMark } from '../write-path/session-end-marks.js';

/**
 * Version of the export format; an importer refuses files of a newer one. 2: a memory's versions
 * share its id (one line each, oldest first); 1 had a record per version, linked by `supersedes`.
 */
export const TRANSFER_FORMAT_VERSION = 2;

/** First line of every export: what it is and where it came from. */
export interface HeaderLine {
  type: 'engram-export';
  formatVersion: number;
  tenantId: string;
  exportedAt: string;
  /** The engram version that wrote the file. */
  engramVersion: string;
}

/** An agent as stored in `store.documents` (`agents`): its id and stored value. */
export interface AgentLine {
  type: 'agent';
  id: string;
  value: JsonObject;
}

/**
 * A session's state and every message of its durable log, oldest first, and how far it was
 * ended (its end mark, when it has one): a restored session is not ended again over the messages
 * its episode already holds.
 */
export interface SessionLine {
  type: 'session';
  session: SessionState;
  messages: StoredMessage[];
  ended?: SessionEndMark;
}

/**
 * What a memory record is for. Knowledge chunks, procedures and episodes are memory records in
 * engram, so they travel as memory lines; `kind` only names them for a reader of the file.
 */
export type MemoryKind = 'memory' | 'knowledge' | 'procedure' | 'episode';

/**
 * One version of a long-term memory record (its history's or the current one), without its
 * embedding; a memory's lines share its id and come oldest first.
 */
export interface MemoryLine {
  type: 'memory';
  kind: MemoryKind;
  memory: MemoryRecord;
}

export type TransferLine = HeaderLine | AgentLine | SessionLine | MemoryLine;

export function memoryKindOf(memory: MemoryRecord): MemoryKind {
  if (memory.memoryType === 'procedural') return 'procedure';
  if (memory.memoryType === 'episodic') return 'episode';
  if (memory.documentId !== null) return 'knowledge';
  return 'memory';
}
