import type { MemorySource } from '../../core/assembly/memory-source.js';
import type { TokenCounter } from '../../core/tokens/token-counter.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import type { MemoryRecordStore } from '../../stores/memory-record-store.js';
import {
  createEpisodicSource,
  createKnowledgeSource,
  createProceduralSource,
  createSemanticSource,
} from '../context/memory-sources.js';
import { createEpisodeLog, type EpisodeLog } from './episode-log.js';
import { createKnowledgeBase, type KnowledgeBase } from './knowledge-base.js';
import { createLongTermMemory, type LongTermMemory } from './long-term-memory.js';
import { createProcedureLibrary, type ProcedureLibrary } from './procedure-library.js';

/** Everything built on long-term memory, and the sources that feed it into assembly. */
export interface LongTermServices {
  memories: LongTermMemory;
  knowledge: KnowledgeBase;
  episodes: EpisodeLog;
  procedures: ProcedureLibrary;
  /** procedural, semantic, knowledge and episodic sources, in that order. */
  sources: MemorySource[];
}

export function createLongTermServices(
  store: MemoryRecordStore,
  embedder: EmbeddingProvider,
  counter: TokenCounter,
  clock: () => Date,
  /** Failures of background work (re-embedding, access statistics); default printed to stderr. */
  onBackgroundError?: (error: unknown) => void,
): LongTermServices {
  const memories = createLongTermMemory(store, embedder, clock, onBackgroundError);
  const knowledge = createKnowledgeBase(memories, counter);
  const episodes = createEpisodeLog(memories, clock);
  const procedures = createProcedureLibrary(memories, embedder);
  return {
    memories,
    knowledge,
    episodes,
    procedures,
    sources: [
      createProceduralSource(procedures),
      createSemanticSource(memories),
      createKnowledgeSource(memories),
      createEpisodicSource(episodes),
    ],
  };
}
