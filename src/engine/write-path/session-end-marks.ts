import { z } from 'zod';
import { type JsonObject, jsonObjectSchema } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';

/** `store.documents` collection holding, per session, how far it has been ended. */
export const SESSION_ENDS_COLLECTION = 'session-ends';

const markSchema = z.object({
  /** The session's `createdAt` when it was ended: a session deleted and created again starts over. */
  sessionCreatedAt: z.string(),
  /** Messages with seq <= throughSeq are in an episode (or were skipped); later ones are not. */
  throughSeq: z.number().int().nonnegative(),
  episodeId: z.string().nullable(),
  procedureId: z.string().nullable(),
  endedAt: z.string(),
});
export type SessionEndMark = z.infer<typeof markSchema>;

/**
 * What an end's model calls produced, written into the mark document before any of its writes: an
 * attempt that dies between its writes and the mark leaves it there, and the retry replays it
 * (dedup returns what was already written) instead of asking the model again for new wording.
 */
const stagedSchema = z.object({
  fromSeq: z.number().int().positive(),
  throughSeq: z.number().int().positive(),
  agentId: z.string().nullable(),
  episode: z
    .object({
      summary: z.string(),
      keyFacts: z.array(z.string()),
      startedAt: z.string(),
      endedAt: z.string(),
    })
    .nullable(),
  proposal: jsonObjectSchema.nullable(),
  procedureSkipped: z.string().nullable(),
});
export type StagedEnd = z.infer<typeof stagedSchema>;

/** The mark of a session and the document version to compare-and-set against (0: none yet). */
export interface StoredEndMark {
  /** Null when the session was never ended, or the mark belongs to an earlier session of that key. */
  mark: SessionEndMark | null;
  /** An end staged for this incarnation and not yet marked (its attempt died); null when none. */
  staged: StagedEnd | null;
  version: number;
}

/** Document id of a session's mark within its tenant: namespace, user and session id, injectively. */
export function endMarkId(key: SessionKey): string {
  return JSON.stringify([key.namespace, key.userId, key.sessionId]);
}

/** Reads the end mark of the session created at `sessionCreatedAt`. */
export async function readEndMark(
  documents: DocumentStore,
  key: SessionKey,
  sessionCreatedAt: string,
): Promise<StoredEndMark> {
  const document = await documents.getDocument(key.tenantId, SESSION_ENDS_COLLECTION, endMarkId(key));
  if (!document) return { mark: null, staged: null, version: 0 };
  const parsed = markSchema.safeParse(document.value);
  const current = parsed.success && parsed.data.sessionCreatedAt === sessionCreatedAt;
  const staged = stagedSchema.safeParse(document.value.staged);
  const ours = staged.success && document.value.sessionCreatedAt === sessionCreatedAt;
  return {
    mark: current ? parsed.data : null,
    staged: ours ? staged.data : null,
    version: document.version,
  };
}

/** Seqs at or below this are already ended. */
export const endedThrough = (stored: StoredEndMark): number => stored.mark?.throughSeq ?? 0;

/**
 * Stages an end beside the current mark (kept as it is) by compare-and-set; returns the new
 * version. `sessionCreatedAt` stays on the document so the retention sweep can tell its session.
 */
export async function stageEnd(
  documents: DocumentStore,
  key: SessionKey,
  stored: StoredEndMark,
  sessionCreatedAt: string,
  staged: StagedEnd,
): Promise<number> {
  const value: JsonObject = { ...(stored.mark ?? { sessionCreatedAt }), staged: stagedSchema.parse(staged) };
  const written = await documents.putDocument(key.tenantId, SESSION_ENDS_COLLECTION, endMarkId(key), value, {
    expectedVersion: stored.version,
  });
  return written.version;
}

/** Writes the mark (clearing what was staged) if nobody else did since `expectedVersion` was read (else VersionConflictError). */
export async function writeEndMark(
  documents: DocumentStore,
  key: SessionKey,
  mark: SessionEndMark,
  expectedVersion: number,
): Promise<void> {
  await documents.putDocument(key.tenantId, SESSION_ENDS_COLLECTION, endMarkId(key), markSchema.parse(mark), {
    expectedVersion,
  });
}
