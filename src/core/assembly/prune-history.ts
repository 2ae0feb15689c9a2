import type { PruningStrategy } from '../schemas/agent.js';
import type { StoredMessage } from '../schemas/message.js';
import type { TraceItem } from './context-trace.js';
import { groupTurns, groupUnits, type HistoryUnit } from './history-units.js';

export interface PruneHistoryInput {
  /** The fetched tail of the session, oldest first. */
  messages: readonly StoredMessage[];
  strategy: PruningStrategy;
  slidingWindowTurns: number;
  /** Tokens history may use (summary included). */
  allowance: number;
  /** Budget cost of one message (cached count, factor and overhead). */
  costOf: (message: StoredMessage) => number;
  /** Cost of the running summary message, or null when there is no summary to place. */
  summaryCost: number | null;
}

export interface PrunedHistory {
  /** Kept messages, oldest first: always a contiguous suffix of the usable history. */
  messages: StoredMessage[];
  includeSummary: boolean;
  tokens: number;
  items: TraceItem[];
}

const unitCost = (unit: HistoryUnit, costOf: (message: StoredMessage) => number): number =>
  unit.messages.reduce((sum, message) => sum + costOf(message), 0);

/**
 * Keeps the newest history that fits. Whole turns are kept, newest first, until one does not
 * fit; only when not even the newest turn fits is it cut, by whole units, from its newest end.
 * Tool calls and their results are units, so they are kept or dropped together.
 */
export function pruneHistory(input: PruneHistoryInput): PrunedHistory {
  const { costOf } = input;
  const reasons = new Map<StoredMessage, TraceItem['reason']>();
  const units = groupUnits(input.messages);
  for (const unit of units)
    if (unit.orphan) for (const message of unit.messages) reasons.set(message, 'orphan_tool_result');
  let turns = groupTurns(units.filter((unit) => !unit.orphan));

  if (input.strategy === 'sliding-window' && turns.length > input.slidingWindowTurns) {
    const outside = turns.slice(0, turns.length - input.slidingWindowTurns);
    for (const turn of outside)
      for (const unit of turn.units)
        for (const message of unit.messages) reasons.set(message, 'outside_window');
    turns = turns.slice(turns.length - input.slidingWindowTurns);
  }

  let remaining = input.allowance;
  let includeSummary = false;
  let summaryItem: TraceItem | null = null;
  if (input.summaryCost !== null) {
    includeSummary = input.summaryCost <= remaining;
    if (includeSummary) remaining -= input.summaryCost;
    summaryItem = {
      id: 'summary',
      kind: 'summary',
      included: includeSummary,
      reason: includeSummary ? 'included' : 'over_budget',
      tokens: input.summaryCost,
    };
  }

  const keptUnits: HistoryUnit[] = [];
  for (let index = turns.length - 1; index >= 0; index--) {
    const turn = turns[index] as (typeof turns)[number];
    const cost = turn.units.reduce((sum, unit) => sum + unitCost(unit, costOf), 0);
    if (cost <= remaining) {
      keptUnits.unshift(...turn.units);
      remaining -= cost;
      continue;
    }
    if (keptUnits.length === 0) {
      // Not even the newest turn fits: keep its newest units that do.
      for (let unitIndex = turn.units.length - 1; unitIndex >= 0; unitIndex--) {
        const unit = turn.units[unitIndex] as HistoryUnit;
        const unitTokens = unitCost(unit, costOf);
        if (unitTokens > remaining) break;
        keptUnits.unshift(unit);
        remaining -= unitTokens;
      }
    }
    break;
  }

  const kept = keptUnits.flatMap((unit) => unit.messages);
  const keptSet = new Set(kept);
  const items: TraceItem[] = summaryItem ? [summaryItem] : [];
  for (const message of input.messages) {
    const included = keptSet.has(message);
    items.push({
      id: message.id,
      kind: 'message',
      included,
      reason: included ? 'included' : (reasons.get(message) ?? 'over_budget'),
      tokens: costOf(message),
    });
  }
  return {
    messages: kept,
    includeSummary,
    tokens: input.allowance - remaining,
    items,
  };
}
