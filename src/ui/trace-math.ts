import type { Trace, TraceItem, TraceRecord } from './api-types.js';

/** Section order and colours of the budget bar and the chart (the order of assembly). */
export const sectionNames = ['system', 'procedure', 'knowledge', 'episodes', 'history', 'current'] as const;

export interface BudgetPart {
  name: string;
  tokens: number;
  /** Share of the window (max working memory tokens), 0–1. */
  share: number;
}

/**
 * The budget split by section against the window: every section, the reserved output, and what
 * stayed unused. Shares add up to 1 (the bar is the whole window).
 */
export function budgetParts(trace: Trace): BudgetPart[] {
  const window = Math.max(1, trace.budget.max_working_memory_tokens);
  const tokensOf = (name: string) => trace.sections.find((section) => section.name === name)?.tokens ?? 0;
  const parts = sectionNames.map((name) => ({ name, tokens: tokensOf(name) }));
  const sectionTotal = parts.reduce((sum, part) => sum + part.tokens, 0);
  // Framing tokens (reply priming) count in `used` but belong to no section: shown with `system`.
  const framing = Math.max(0, trace.budget.used - sectionTotal);
  if (parts[0]) parts[0].tokens += framing;
  const reserved = trace.budget.reserved_output_tokens;
  const unused = Math.max(0, window - reserved - Math.max(trace.budget.used, sectionTotal));
  return [...parts, { name: 'reserved', tokens: reserved }, { name: 'unused', tokens: unused }].map(
    (part) => ({
      ...part,
      share: part.tokens / window,
    }),
  );
}

const itemsOf = (trace: Trace): Map<string, TraceItem & { section: string }> => {
  const items = new Map<string, TraceItem & { section: string }>();
  for (const section of trace.sections) {
    for (const item of section.items) {
      if (item.included && item.kind !== 'current' && item.kind !== 'system') {
        items.set(`${section.name}:${item.id}`, { ...item, section: section.name });
      }
    }
  }
  return items;
};

/** What entered and what left the context between an earlier turn and a later one. */
export function compareTraces(
  earlier: TraceRecord,
  later: TraceRecord,
): { entered: (TraceItem & { section: string })[]; left: (TraceItem & { section: string })[]; kept: number } {
  const before = itemsOf(earlier.trace);
  const after = itemsOf(later.trace);
  const entered = [...after].filter(([key]) => !before.has(key)).map(([, item]) => item);
  const left = [...before].filter(([key]) => !after.has(key)).map(([, item]) => item);
  return { entered, left, kept: after.size - entered.length };
}
