import { z } from 'zod';
import type { TraceScoreComponents } from '../../core/assembly/context-trace.js';
import { parseWith } from '../../core/errors.js';
import type { MemoryRecord, MemoryWriter } from '../../core/schemas/memory-record.js';
import { isoDateTimeSchema } from '../../core/schemas/message.js';
import { searchHitComponents } from '../../retrieval/search-hit-components.js';
import type { LongTermMemory } from './long-term-memory.js';

export const episodeInputSchema = z.object({
  userId: z.string().min(1).max(256),
  agentId: z.string().max(256).nullable().default(null),
  sessionId: z.string().max(256).nullable().default(null),
  namespace: z.string().max(256).nullable().default(null),
  summary: z.string().trim().min(1, 'Episode summary cannot be empty').max(10_000),
  keyFacts: z.array(z.string().trim().min(1).max(1_000)).max(50).default([]),
  startedAt: isoDateTimeSchema.optional(),
  endedAt: isoDateTimeSchema.optional(),
});
export type EpisodeInput = z.input<typeof episodeInputSchema>;

export interface Episode {
  id: string;
  userId: string;
  agentId: string | null;
  sessionId: string | null;
  summary: string;
  keyFacts: string[];
  startedAt: string | null;
  endedAt: string;
}

/** Episodes: what happened in past sessions, searchable per user. */
export interface EpisodeLog {
  /** Records an episode; the user's identical current episode is returned instead of a copy. */
  record(tenantId: string, input: EpisodeInput, options?: { writtenBy?: MemoryWriter }): Promise<Episode>;
  /**
   * Best first; `score` is the search relevance in [0, 1]. `pins` (a session's pinned ids) that
   * are this user's episodes join the result when the search did not find them (score 0).
   */
  search(
    tenantId: string,
    request: { userId: string; query: string; limit?: number; agentId?: string; pins?: readonly string[] },
  ): Promise<{ episode: Episode; score: number; components: TraceScoreComponents }[]>;
}

const metadataSchema = z.object({
  summary: z.string(),
  keyFacts: z.array(z.string()),
  startedAt: z.string().nullable(),
});

export function toEpisode(record: MemoryRecord): Episode {
  const metadata = metadataSchema.parse(record.metadata);
  return {
    id: record.id,
    userId: record.userId ?? '',
    agentId: record.agentId,
    sessionId: record.sessionId,
    ...metadata,
    endedAt: record.eventDate ?? record.createdAt,
  };
}

export function createEpisodeLog(memories: LongTermMemory, clock: () => Date): EpisodeLog {
  return {
    async record(tenantId, input, options = {}) {
      const episode = parseWith(episodeInputSchema, input, 'episode');
      const endedAt = episode.endedAt ?? clock().toISOString();
      const text = [episode.summary, ...episode.keyFacts.map((fact) => `- ${fact}`)].join('\n');
      const { inserted, duplicates } = await memories.create(
        tenantId,
        [
          {
            text,
            memoryType: 'episodic',
            userId: episode.userId,
            agentId: episode.agentId,
            sessionId: episode.sessionId,
            namespace: episode.namespace,
            eventDate: endedAt,
            metadata: {
              summary: episode.summary,
              keyFacts: episode.keyFacts,
              startedAt: episode.startedAt ?? null,
            },
          },
        ],
        { writtenBy: options.writtenBy ?? 'api' },
      );
      const record = inserted[0] ?? duplicates[0]?.existing;
      return toEpisode(record as MemoryRecord);
    },

    async search(tenantId, request) {
      const filter = {
        userId: { eq: request.userId },
        memoryType: { eq: 'episodic' as const },
        ...(request.agentId ? { agentId: { eq: request.agentId } } : {}),
      };
      const { hits } = await memories.search(
        tenantId,
        { text: request.query, limit: request.limit ?? 3, filter },
        { countTotal: false },
      );
      const found = hits.map((hit) => ({
        episode: toEpisode(hit.memory),
        score: hit.relevance,
        components: searchHitComponents(hit),
      }));
      // A pin names a record by id, so it passes the search's filter: only this user's episodes.
      const seen = new Set(found.map(({ episode }) => episode.id));
      const missing = (request.pins ?? []).filter((id) => !seen.has(id)).slice(0, 1_000);
      if (missing.length === 0) return found;
      const { memories: pinned } = await memories.list(
        tenantId,
        { ...filter, ids: missing },
        { limit: missing.length, offset: 0 },
      );
      return [
        ...found,
        ...pinned.map((record) => ({ episode: toEpisode(record), score: 0, components: {} })),
      ];
    },
  };
}
