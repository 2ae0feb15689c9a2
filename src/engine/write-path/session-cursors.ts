import { z } from 'zod';
import { type JsonObject, jsonObjectSchema } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';
import { sessionDigest } from './session-job-payload.js';

/** Collection of `store.documents` holding one extraction cursor per session. */
export const EXTRACTION_CURSORS = 'extraction-cursors';

/** Where a job stands in a session: every message with seq <= `seq` was handled. */
export interface SessionCursor {
  seq: number;
  /** The document version to compare-and-set against; 0 when there is none yet. */
  version: number;
  /** Work staged by `stage` and not yet confirmed by `move` (a crash came between them). */
  staged?: StagedWork;
}

/** Results computed for the messages through `throughSeq`, written ahead of the writes they cause. */
export interface StagedWork {
  throughSeq: number;
  items: JsonObject[];
}

const stagedSchema = z.object({
  throughSeq: z.number().int().nonnegative(),
  items: z.array(jsonObjectSchema),
});

type CursorSession = SessionKey & { createdAt: string };

/**
 * Per-session cursors in one `store.documents` collection (extraction, message indexing). A cursor
 * belongs to one incarnation of a session: a session deleted and written again (a new `createdAt`)
 * starts from the beginning of its new log.
 */
export function createSessionCursors(documents: DocumentStore, collection: string) {
  return {
    async read(session: CursorSession): Promise<SessionCursor> {
      const stored = await documents.getDocument(session.tenantId, collection, sessionDigest(session));
      if (!stored) return { seq: 0, version: 0 };
      const seq = typeof stored.value.seq === 'number' ? stored.value.seq : 0;
      const staged = stagedSchema.safeParse(stored.value.staged);
      return { seq, version: stored.version, ...(staged.success ? { staged: staged.data } : {}) };
    },
    /**
     * Records `staged` beside the cursor (still at `seq`) by compare-and-set: a worker that dies after
     * acting on it finds it on the next read and can replay it instead of computing it again.
     */
    async stage(session: CursorSession, cursor: SessionCursor, staged: StagedWork): Promise<void> {
      await put(session, { seq: cursor.seq, staged: { ...staged } }, cursor.version);
    },
    /** Moves the cursor to `seq` by compare-and-set: VersionConflictError when another job moved it first. */
    async move(session: CursorSession, seq: number, expectedVersion: number): Promise<void> {
      await put(session, { seq }, expectedVersion);
    },
  };

  async function put(session: CursorSession, value: JsonObject, expectedVersion: number): Promise<void> {
    await documents.putDocument(
      session.tenantId,
      collection,
      sessionDigest(session),
      // The whole key, so the retention sweep can tell whether the session still exists.
      {
        ...value,
        namespace: session.namespace,
        userId: session.userId,
        sessionId: session.sessionId,
        sessionCreatedAt: session.createdAt,
      },
      { expectedVersion },
    );
  }
}

export type SessionCursors = ReturnType<typeof createSessionCursors>;
