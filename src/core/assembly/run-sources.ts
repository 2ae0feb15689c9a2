import type {
  MemoryItem,
  MemorySource,
  RetrievalRequest,
  RetrievalSection,
  SourceReport,
} from './memory-source.js';

export interface SourceResults {
  items: Record<RetrievalSection, MemoryItem[]>;
  reports: SourceReport[];
}

const TIMED_OUT = Symbol('timed out');

/**
 * Runs every source in parallel, each bounded by its own timeout. A source that throws or times
 * out contributes no items and is reported as degraded; it never fails the turn.
 */
export async function runSources(
  sources: readonly MemorySource[],
  requestFor: (source: MemorySource) => RetrievalRequest,
  defaultTimeoutMs: number,
  now: () => number = performance.now.bind(performance),
): Promise<SourceResults> {
  const items: SourceResults['items'] = { procedure: [], knowledge: [], episodes: [] };
  const reports = await Promise.all(
    sources.map(async (source): Promise<SourceReport> => {
      const started = now();
      const controller = new AbortController();
      let timer: NodeJS.Timeout | undefined;
      const timeout = new Promise<typeof TIMED_OUT>((resolve) => {
        timer = setTimeout(() => resolve(TIMED_OUT), source.timeoutMs ?? defaultTimeoutMs);
      });
      const base = { name: source.name, section: source.section };
      try {
        const result = await Promise.race([source.retrieve(requestFor(source), controller.signal), timeout]);
        const durationMs = now() - started;
        if (result === TIMED_OUT) {
          controller.abort();
          return { ...base, status: 'timeout', durationMs, itemCount: 0 };
        }
        items[source.section].push(...result);
        return { ...base, status: 'ok', durationMs, itemCount: result.length };
      } catch (error) {
        controller.abort();
        const message = error instanceof Error ? error.message : String(error);
        return { ...base, status: 'error', durationMs: now() - started, itemCount: 0, error: message };
      } finally {
        clearTimeout(timer);
      }
    }),
  );
  return { items, reports };
}
