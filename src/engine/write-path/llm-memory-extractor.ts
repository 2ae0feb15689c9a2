import type { LlmProvider } from '../../providers/llm/llm-provider.js';
import type { LongTermMemory } from '../long-term/long-term-memory.js';
import { extractMemories } from './llm/extract-memories.js';
import type { MemoryExtractor } from './session-memory-extraction.js';

/** Known memories shown to the model so it does not repeat them. */
const KNOWN_MEMORIES = 100;

/**
 * The write path's extractor over a chat model: `extractMemories` with the session's strategy,
 * told the user's newest current memories (same namespace and user) so it adds only new facts.
 */
export function createLlmMemoryExtractor(llm: LlmProvider, memories: LongTermMemory): MemoryExtractor {
  return async ({ strategy, messages, now, session, signal }) => {
    const known = await memories.list(
      session.tenantId,
      {
        namespace: session.namespace === null ? { exists: false } : { eq: session.namespace },
        userId: session.userId === null ? { exists: false } : { eq: session.userId },
      },
      { limit: KNOWN_MEMORIES, offset: 0 },
    );
    return extractMemories(llm, {
      strategy,
      messages,
      now,
      namespace: session.namespace,
      userId: session.userId,
      sessionId: session.sessionId,
      existing: known.memories.map((memory) => memory.text),
      ...(signal ? { signal } : {}),
    });
  };
}
