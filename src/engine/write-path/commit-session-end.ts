import type { JsonObject } from '../../core/schemas/json.js';
import type { SessionKey } from '../../core/schemas/session.js';
import type { DocumentStore } from '../../stores/document-store.js';
import type { EpisodeLog } from '../long-term/episode-log.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { type ProcedureLibrary, ProcedureLimitError } from '../long-term/procedure-library.js';
import { readEndMark, type StagedEnd, writeEndMark } from './session-end-marks.js';
import type { ProcedureProposal } from './session-end-writers.js';

/** What writing a staged end needs. */
export interface CommitSessionEndDependencies {
  documents: DocumentStore;
  episodes: EpisodeLog;
  procedures: ProcedureLibrary;
  memories: LongTermMemory;
  clock: () => Date;
  log: (message: string) => void;
}

/**
 * Writes a staged end: the episode, the pending procedure, then the end mark by compare-and-set
 * against `version` (the staged document's). Run again over the same staged end (a retry after a
 * crash), dedup returns the episode and procedure written before instead of copies. When a write
 * fails, what this attempt created is deleted again and the error is thrown. Returns the job result.
 */
export async function commitSessionEnd(
  dependencies: CommitSessionEndDependencies,
  key: SessionKey,
  sessionCreatedAt: string,
  staged: StagedEnd,
  version: number,
): Promise<JsonObject> {
  const { tenantId } = key;
  const { log } = dependencies;
  let procedureSkipped = staged.procedureSkipped;
  const written: { episodeId: string | null; procedureId: string | null } = {
    episodeId: null,
    procedureId: null,
  };
  /** What this attempt created, deleted again if it fails. */
  const created: string[] = [];
  try {
    if (staged.episode && key.userId !== null) {
      const episode = await dependencies.episodes.record(
        tenantId,
        {
          userId: key.userId,
          agentId: staged.agentId,
          sessionId: key.sessionId,
          namespace: key.namespace,
          ...staged.episode,
        },
        { writtenBy: 'llm' },
      );
      written.episodeId = episode.id;
      created.push(episode.id);
    }
    if (staged.proposal && staged.agentId) {
      const proposal = staged.proposal as unknown as ProcedureProposal;
      const procedure = await dependencies.procedures
        .create(tenantId, { ...proposal, agentId: staged.agentId, status: 'pending' }, { writtenBy: 'llm' })
        .catch((error: unknown) => {
          // A full library is the agent's state, not a failure of this end: the episode still lands.
          if (!(error instanceof ProcedureLimitError)) throw error;
          procedureSkipped = error.message;
          log(`procedure capture skipped for session ${key.sessionId}: ${error.message}`);
          return null;
        });
      if (procedure) {
        written.procedureId = procedure.id;
        // A duplicate of an existing procedure comes back as that one (maybe approved): never ours to undo.
        if (!procedure.deduplicated) created.push(procedure.id);
      }
    }
    await writeEndMark(
      dependencies.documents,
      key,
      {
        sessionCreatedAt,
        throughSeq: staged.throughSeq,
        ...written,
        endedAt: dependencies.clock().toISOString(),
      },
      version,
    );
  } catch (error) {
    await undo(dependencies, key, sessionCreatedAt, created);
    throw error;
  }
  return {
    ...written,
    fromSeq: staged.fromSeq,
    throughSeq: staged.throughSeq,
    ...(procedureSkipped ? { procedureSkipped } : {}),
  };
}

/**
 * Deletes what a failed attempt stored, so that nothing is half-written while the end is only
 * staged (a retry replays the staging and writes it again), except what another end's mark took
 * over (an end that replayed this one's staging meanwhile).
 */
async function undo(
  dependencies: CommitSessionEndDependencies,
  key: SessionKey,
  sessionCreatedAt: string,
  ids: string[],
): Promise<void> {
  if (ids.length === 0) return;
  try {
    const { mark } = await readEndMark(dependencies.documents, key, sessionCreatedAt);
    const kept = new Set([mark?.episodeId, mark?.procedureId]);
    const orphans = ids.filter((id) => !kept.has(id));
    if (orphans.length > 0) await dependencies.memories.delete(key.tenantId, orphans);
  } catch (error) {
    dependencies.log(`could not undo a failed session end (memories ${ids.join(', ')}): ${String(error)}`);
  }
}
