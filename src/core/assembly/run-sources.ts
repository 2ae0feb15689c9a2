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

/** Items taken from one source per turn; a source's ranking puts its best first. */
export const MAX_SOURCE_ITEMS = 1_000;

/** An item assembly can place: an id, a text and a finite score (a custom source may send anything). */
const isPlaceable = (item: unknown): item is MemoryItem => {
  const candidate = item as Partial<MemoryItem> | null;
  return (
    typeof candidate === 'object' &&
    candidate !== null &&
    typeof candidate.id === 'string' &&
    candidate.id !== '' &&
    typeof candidate.text === 'string' &&
    typeof candidate.score === 'number' &&
    Number.isFinite(candidate.score)
  );
};

/** The source's items assembly may use, and what it had to leave out (for the report). */
function placeable(result: unknown): { taken: MemoryItem[]; problem?: string } {
  if (!Array.isArray(result)) return { taken: [], problem: 'retrieve() must resolve to an array of items' };
  const taken: MemoryItem[] = [];
  let invalid = 0;
  for (const item of result.slice(0, MAX_SOURCE_ITEMS)) {
    if (isPlaceable(item)) taken.push(item);
    else invalid++;
  }
  const problems = [
    ...(invalid > 0 ? [`${invalid} items left out: an item needs an id, a text and a finite score`] : []),
    ...(result.length > MAX_SOURCE_ITEMS
      ? [`${result.length - MAX_SOURCE_ITEMS} items past MAX_SOURCE_ITEMS (${MAX_SOURCE_ITEMS}) left out`]
      : []),
  ];
  return problems.length > 0 ? { taken, problem: problems.join('; ') } : { taken };
}

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
        const section = Object.hasOwn(items, source.section) ? items[source.section] : undefined;
        if (!section) {
          return {
            ...base,
            status: 'error',
            durationMs,
            itemCount: 0,
            error: `Unknown section ${String(source.section)}`,
          };
        }
        const { taken, problem } = placeable(result);
        // One at a time: a spread of 150,000 items overflowed the call stack.
        for (const item of taken) section.push(item);
        return problem === undefined
          ? { ...base, status: 'ok', durationMs, itemCount: taken.length }
          : { ...base, status: 'error', durationMs, itemCount: taken.length, error: problem };
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
