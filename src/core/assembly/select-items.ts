import type { TraceItem } from './context-trace.js';
import { runSteps } from './history-units.js';
import type { MemoryItem, RetrievalSection } from './memory-source.js';
import { renderItem, renderSection, SECTION_HEADINGS } from './render-section.js';

export interface SelectItemsInput {
  section: RetrievalSection;
  items: readonly MemoryItem[];
  /** At most this many items are included. */
  limit: number;
  minScore: number;
  removedIds: ReadonlySet<string>;
  /** Pinned memories: filled first, never cut by `limit` or `minScore` (the budget still rules). */
  pinnedIds?: ReadonlySet<string>;
  /** The section's own cap. */
  cap: number;
  /** What is left of the whole budget. */
  remaining: number;
  /**
   * Cost of a whole section message whose content is `text` (factor and overhead applied); given a
   * `limit`, exact when at most `limit`, otherwise some cost above it, counted only that far.
   */
  costOfText: (text: string, limit?: number) => number;
}

export interface SelectedItems {
  included: MemoryItem[];
  /** The rendered section, or null when nothing is included. */
  text: string | null;
  tokens: number;
  items: TraceItem[];
}

/**
 * Picks the best items that fit: filters (removed, superseded, duplicate, threshold, limit; pinned
 * items pass the last two and come first), then fills greedily in that order, skipping items too large for what is left. The estimate is
 * confirmed by counting the rendered section; while it is over, the lowest-ranked item goes.
 */
export function selectItems(input: SelectItemsInput): SelectedItems {
  return runSteps(selectItemsSteps(input));
}

/**
 * `selectItems` as steps: it pauses (yields) after counting each line, so that a caller on the
 * event loop can let other requests run while 50 long candidates are counted.
 */
export function* selectItemsSteps(input: SelectItemsInput): Generator<void, SelectedItems> {
  const allowance = Math.min(input.cap, input.remaining);
  const pinned = input.pinnedIds ?? new Set<string>();
  const isPinned = (item: MemoryItem) => pinned.has(item.id);
  const ranked = [...input.items].sort(
    (a, b) => Number(isPinned(b)) - Number(isPinned(a)) || b.score - a.score,
  );
  const decisions = new Map<MemoryItem, TraceItem['reason']>();
  const seen = new Set<string>();
  const candidates: MemoryItem[] = [];
  let unpinned = 0;
  for (const item of ranked) {
    if (input.removedIds.has(item.id)) decisions.set(item, 'removed_by_user');
    else if (item.supersededBy) decisions.set(item, 'superseded');
    else if (seen.has(item.id)) decisions.set(item, 'duplicate');
    else if (isPinned(item)) candidates.push(item);
    else if (item.score < input.minScore) decisions.set(item, 'below_threshold');
    else if (unpinned >= input.limit) decisions.set(item, 'over_limit');
    else {
      candidates.push(item);
      unpinned++;
    }
    seen.add(item.id);
  }

  // A line's marginal cost: its text plus the newline joining it (overhead is in the heading's).
  // Counted as the section holds it, line then newline, so the section's count finds it memoized.
  const emptyCost = input.costOfText('');
  // A line is counted only as far as the room left in the section: a longer one cannot be placed
  // whatever its exact size, and counting a 20,000-character memory in full, for each of 50
  // candidates, made a turn's cost follow the memories instead of the budget. Its trace then shows
  // a lower bound above that room (docs/architecture.md, "Budget decisions").
  const costOfLine = (item: MemoryItem, room = allowance) =>
    input.costOfText(`${renderItem(input.section, item)}\n`, room + emptyCost) - emptyCost;
  // What keeps an item out when it does not fit: the section's cap where that is below what is
  // left of the whole budget, else the budget.
  const overReason = input.cap < input.remaining ? 'section_cap' : 'over_budget';
  const lineCost = new Map<MemoryItem, number>();
  const headingCost = input.costOfText(SECTION_HEADINGS[input.section]);
  let included: MemoryItem[] = [];
  let estimate = headingCost;
  for (const item of candidates) {
    yield;
    const cost = costOfLine(item, allowance - estimate);
    lineCost.set(item, cost);
    if (estimate + cost <= allowance) {
      included.push(item);
      estimate += cost;
    } else {
      decisions.set(item, overReason);
    }
  }

  yield;
  let text = included.length > 0 ? renderSection(input.section, included) : null;
  let tokens = text === null ? 0 : input.costOfText(text);
  while (text !== null && tokens > allowance) {
    const dropped = included.at(-1) as MemoryItem;
    decisions.set(dropped, overReason);
    included = included.slice(0, -1);
    text = included.length > 0 ? renderSection(input.section, included) : null;
    tokens = text === null ? 0 : input.costOfText(text);
  }

  const includedSet = new Set(included);
  const items: TraceItem[] = [];
  for (const item of ranked) {
    const isIncluded = includedSet.has(item);
    let lineTokens = lineCost.get(item);
    if (lineTokens === undefined) {
      yield;
      lineTokens = costOfLine(item);
    }
    items.push({
      id: item.id,
      kind: 'memory',
      included: isIncluded,
      reason: isIncluded ? 'included' : (decisions.get(item) ?? 'over_budget'),
      tokens: lineTokens,
      score: item.score,
      ...(item.components ? { components: { ...item.components } } : {}),
      ...(item.source ? { source: item.source } : {}),
    });
  }
  return { included, text, tokens, items };
}
