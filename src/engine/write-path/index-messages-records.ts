import { createHash } from 'node:crypto';
import { MAX_MEMORY_TEXT_CHARS, type MemoryRecordInput } from '../../core/schemas/memory-record.js';
import type { MessageRole, StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';

/** Roles indexed as `message` records; tool results (and tool calls) are not (docs/write-path.md). */
export const INDEXED_ROLES: readonly MessageRole[] = ['user', 'assistant', 'system'];

/** Room left for the `"<role>: "` prefix inside a record's text limit. */
const PART_CHARS = MAX_MEMORY_TEXT_CHARS - 32;

/** Where one stored record (or repeat) sits in the conversation; kept in the record's metadata. */
export interface MessageOccurrence {
  messageId: string;
  role: MessageRole;
  seq: number;
  /** Long messages are split into parts of one record each, joined again on reconstruction. */
  part: number;
  parts: number;
  /** The delete generation of the session when it was indexed (a DELETE starts a new one). */
  generation: number;
}

/**
 * A short name of a session's scope (namespace, user, session id), across its incarnations: the
 * index belongs to the conversation, which an expiry does not end.
 */
export function sessionScopeDigest(key: Pick<SessionKey, 'namespace' | 'userId' | 'sessionId'>): string {
  const parts = [key.namespace, key.userId, key.sessionId];
  return createHash('sha256').update(JSON.stringify(parts)).digest('hex').slice(0, 32);
}

/** The record id of one part of one message: the same message is indexed once per generation. */
export function messageRecordId(scope: string, generation: number, messageId: string, part: number): string {
  const digest = createHash('sha256')
    .update(JSON.stringify([scope, generation, messageId, part]))
    .digest('hex')
    .slice(0, 40);
  return `msg_${digest}`;
}

/**
 * Splits content into parts that fit a record, never ending a part in whitespace (record text is
 * trimmed, so that whitespace would be lost) nor inside a surrogate pair.
 */
export function splitContent(content: string, size = PART_CHARS): string[] {
  const parts: string[] = [];
  let rest = content;
  while (rest.length > size) {
    let end = size;
    while (end > 1 && (/\s/.test(rest.charAt(end - 1)) || isHighSurrogate(rest.charCodeAt(end - 1)))) end--;
    parts.push(rest.slice(0, end));
    rest = rest.slice(end);
  }
  parts.push(rest);
  return parts;
}

const isHighSurrogate = (code: number) => code >= 0xd800 && code <= 0xdbff;

/** The `message` records of one stored message (none for tool messages or blank content). */
export function messageRecords(
  key: SessionKey,
  generation: number,
  message: StoredMessage,
): (MemoryRecordInput & { id: string })[] {
  if (!INDEXED_ROLES.includes(message.role) || message.content.trim() === '') return [];
  const scope = sessionScopeDigest(key);
  const contents = splitContent(message.content);
  return contents.map((content, part) => {
    const occurrence: MessageOccurrence = {
      messageId: message.id,
      role: message.role,
      seq: message.seq,
      part,
      parts: contents.length,
      generation,
    };
    return {
      id: messageRecordId(scope, generation, message.id, part),
      text: `${message.role}: ${content}`,
      memoryType: 'message',
      namespace: key.namespace,
      userId: key.userId,
      sessionId: key.sessionId,
      createdAt: new Date(message.createdAt).toISOString(),
      metadata: { ...occurrence },
    };
  });
}
