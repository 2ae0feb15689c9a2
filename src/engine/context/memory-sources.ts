import type { TraceScoreComponents } from '../../core/assembly/context-trace.js';
import type { MemoryItem, MemorySource } from '../../core/assembly/memory-source.js';
import type { ScoreComponents } from '../../core/ranking/rank-working-set.js';
import { searchHitComponents } from '../../retrieval/search-hit-components.js';
import type { EpisodeLog } from '../long-term/episode-log.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { type ProcedureLibrary, renderProcedure } from '../long-term/procedure-library.js';

/** A working-set item's score parts, flattened to named numbers for the trace. */
function workingSetComponents(parts: ScoreComponents): TraceScoreComponents {
  return {
    similarity: parts.similarity,
    salience: parts.salience,
    decay: parts.decay,
    decayed_salience: parts.decayedSalience,
    confidence: parts.confidence,
    weight_similarity: parts.weights.similarity,
    weight_salience: parts.weights.salience,
    weight_confidence: parts.weights.confidence,
  };
}

/**
 * Semantic facts about the user: the working set (similarity + salience + confidence, latest
 * versions only, session pins and removals honoured). Knowledge chunks are left to the knowledge
 * source. No user, no facts: memories are never read across users.
 */
export function createSemanticSource(memories: LongTermMemory): MemorySource {
  return {
    name: 'semantic',
    section: 'knowledge',
    async retrieve(request) {
      if (request.userId === null || request.limit === 0) return [];
      const set = await memories.workingSet(request.tenantId, {
        query: request.query,
        userId: request.userId,
        namespace: request.namespace,
        filter: { memoryType: { any: ['semantic', 'message'] }, documentId: { exists: false } },
        options: { limit: request.limit },
        ...(request.pinnedIds ? { pins: new Set(request.pinnedIds) } : {}),
        ...(request.removedIds ? { removals: new Set(request.removedIds) } : {}),
        recordAccess: request.readOnly !== true,
      });
      const byId = new Map(set.memories.map((memory) => [memory.id, memory]));
      // Memories the session removed that the query found still reach the assembler, which
      // excludes them first and records `removed_by_user` in the trace (no text is rendered).
      const removed = set.excluded
        .filter((entry) => entry.reason === 'removed_by_user')
        .map((entry): MemoryItem => ({ id: entry.id, text: '', score: 0 }));
      const included = set.items.flatMap((item): MemoryItem[] => {
        const memory = byId.get(item.id);
        return memory
          ? [
              {
                id: memory.id,
                text: memory.text,
                score: item.score,
                components: workingSetComponents(item.components),
                supersededBy: memory.supersededBy,
              },
            ]
          : [];
      });
      return [...included, ...removed];
    },
  };
}

/** Chunks of the agent's knowledge documents, with their document as the source. */
export function createKnowledgeSource(memories: LongTermMemory): MemorySource {
  return {
    name: 'knowledge',
    section: 'knowledge',
    async retrieve(request) {
      if (request.limit === 0) return [];
      const { hits } = await memories.search(
        request.tenantId,
        {
          text: request.query,
          limit: request.limit,
          filter: { agentId: { eq: request.agentId }, documentId: { exists: true } },
        },
        { countTotal: false },
      );
      return hits.map((hit) => ({
        id: hit.memory.id,
        text: hit.memory.text,
        score: hit.relevance,
        components: searchHitComponents(hit),
        ...(hit.memory.source ? { source: hit.memory.source } : {}),
      }));
    },
  };
}

/** Summaries of the user's past sessions, dated. */
export function createEpisodicSource(episodes: EpisodeLog): MemorySource {
  return {
    name: 'episodic',
    section: 'episodes',
    async retrieve(request) {
      if (request.userId === null || request.limit === 0) return [];
      const found = await episodes.search(request.tenantId, {
        userId: request.userId,
        query: request.query,
        limit: request.limit,
        ...(request.pinnedIds ? { pins: request.pinnedIds } : {}),
      });
      return found.map(({ episode, score, components }) => ({
        id: episode.id,
        text: [episode.summary, ...episode.keyFacts.map((fact) => `(${fact})`)].join(' '),
        score,
        components,
        date: episode.endedAt.slice(0, 10),
      }));
    },
  };
}

/** The approved procedure of the agent that matches the message, if any. */
export function createProceduralSource(procedures: ProcedureLibrary): MemorySource {
  return {
    name: 'procedural',
    section: 'procedure',
    async retrieve(request) {
      const match = await procedures.match(request.tenantId, request.agentId, request.query);
      return match
        ? [
            {
              id: match.procedure.id,
              text: renderProcedure(match.procedure),
              score: match.score,
              // A trigger phrase matches outright (1); an example match is its cosine similarity.
              components: { [match.matchedBy === 'trigger' ? 'trigger' : 'example_similarity']: match.score },
            },
          ]
        : [];
    },
  };
}
