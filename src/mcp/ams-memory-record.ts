import type { MemoryRecord } from '../core/schemas/memory-record.js';
import type { SearchHit } from '../retrieval/hybrid-search.js';
import { formatAmsDateTime } from '../server/ams/ams-datetime.js';
import { toAmsRecord } from '../server/ams/long-term-memory-mapper.js';

/**
 * A long-term memory in AMS's MemoryRecord shape (all 21 fields, snake_case), plus engram's own
 * fields an agent needs to follow versions and ranking: `salience`, `confidence`, `version`,
 * `written_by`, `supersedes`, `superseded_by` (merges), `valid_to`, `agent_id`.
 */
export function toAmsMemoryRecord(memory: MemoryRecord) {
  return {
    ...toAmsRecord(memory),
    agent_id: memory.agentId,
    salience: memory.salience,
    confidence: memory.confidence,
    version: memory.version,
    written_by: memory.writtenBy,
    supersedes: memory.supersedes,
    superseded_by: memory.supersededBy,
    valid_to: memory.validTo === null ? null : formatAmsDateTime(memory.validTo),
  };
}

/** How a search ran, in AMS's words (`score_type`); null for a filter-only listing. */
export type AmsScoreType = 'semantic' | 'keyword' | 'hybrid' | null;

/**
 * A search hit as AMS's MemoryRecordResult: `dist` lower is better, `score` in [0, 1] higher is
 * better (AMS §5.3). Semantic hits report the cosine distance; keyword and hybrid hits report the
 * relevance, with `dist = 1 - score`; a filter-only listing has `dist` 0 and no score.
 */
export function toAmsSearchResult(hit: SearchHit, scoreType: AmsScoreType) {
  if (scoreType === null) return { ...toAmsMemoryRecord(hit.memory), dist: 0, score: null, score_type: null };
  const score =
    scoreType === 'semantic' && hit.distance !== null ? Math.max(0, 1 - hit.distance) : hit.relevance;
  const dist = scoreType === 'semantic' && hit.distance !== null ? hit.distance : 1 - score;
  return { ...toAmsMemoryRecord(hit.memory), dist, score, score_type: scoreType };
}
