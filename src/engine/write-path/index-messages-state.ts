import { VersionConflictError } from '../../core/errors.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';
import { sessionScopeDigest } from './index-messages-records.js';
import { createSessionCursors } from './session-cursors.js';

/** One cursor per session incarnation: every message with seq <= `seq` was indexed. */
export const MESSAGE_INDEX_CURSORS = 'message-index-cursors';
/** One counter per session scope, moved by every explicit DELETE (docs/write-path.md). */
export const MESSAGE_INDEX_GENERATIONS = 'message-index-generations';
/** Messages whose text equals an earlier message's (hash deduplication keeps one record). */
export const MESSAGE_INDEX_REPEATS = 'message-index-repeats';

/** The documents the message index keeps beside its records, in `store.documents`. */
export function createMessageIndexState(documents: DocumentStore) {
  const cursors = createSessionCursors(documents, MESSAGE_INDEX_CURSORS);
  return {
    readCursor: cursors.read,
    moveCursor: cursors.move,

    async generation(key: SessionKey): Promise<number> {
      const stored = await documents.getDocument(
        key.tenantId,
        MESSAGE_INDEX_GENERATIONS,
        sessionScopeDigest(key),
      );
      const value = stored?.value.generation;
      return typeof value === 'number' ? value : 0;
    },

    /** Starts a new generation: messages indexed before it are never rebuilt again. */
    async nextGeneration(key: SessionKey): Promise<number> {
      const id = sessionScopeDigest(key);
      for (let attempt = 1; ; attempt++) {
        const stored = await documents.getDocument(key.tenantId, MESSAGE_INDEX_GENERATIONS, id);
        const current = typeof stored?.value.generation === 'number' ? stored.value.generation : 0;
        try {
          await documents.putDocument(
            key.tenantId,
            MESSAGE_INDEX_GENERATIONS,
            id,
            { generation: current + 1, sessionId: key.sessionId },
            { expectedVersion: stored?.version ?? 0 },
          );
          return current + 1;
        } catch (error) {
          if (!(error instanceof VersionConflictError) || attempt >= 8) throw error;
        }
      }
    },

    /** Records that `recordId` also stands for the repeat (idempotent: one document per repeat). */
    async putRepeat(tenantId: string, scope: string, repeatId: string, value: RepeatDocument): Promise<void> {
      await documents.putDocument(tenantId, MESSAGE_INDEX_REPEATS, `${scope}:${repeatId}`, { ...value });
    },

    /** Every repeat recorded for the session scope. */
    async listRepeats(tenantId: string, scope: string): Promise<RepeatDocument[]> {
      const repeats: RepeatDocument[] = [];
      for (let offset = 0; ; offset += PAGE) {
        const { documents: page } = await documents.listDocuments(tenantId, MESSAGE_INDEX_REPEATS, {
          prefix: `${scope}:`,
          limit: PAGE,
          offset,
        });
        for (const document of page) repeats.push(document.value as unknown as RepeatDocument);
        if (page.length < PAGE) return repeats;
      }
    },
  };
}

const PAGE = 1_000;

/** A message stored as a repeat of an existing record with the same text. */
export interface RepeatDocument {
  recordId: string;
  createdAt: string;
  messageId: string;
  role: string;
  seq: number;
  part: number;
  parts: number;
  generation: number;
}

export type MessageIndexState = ReturnType<typeof createMessageIndexState>;
