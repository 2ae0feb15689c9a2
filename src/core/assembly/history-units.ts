import type { StoredMessage } from '../schemas/message.js';

/**
 * The smallest piece of history that can be kept or dropped: one message, or an assistant
 * message with tool calls together with the tool results answering it. Splitting a unit would
 * leave a tool call without its result (or the reverse), which model APIs reject.
 */
export interface HistoryUnit {
  messages: StoredMessage[];
  /** True when the unit is a tool result whose call is not in the fetched history. */
  orphan: boolean;
}

/** A turn: a user message and everything up to the next user message. */
export interface HistoryTurn {
  units: HistoryUnit[];
}

/** Groups messages (oldest first) into atomic units. */
export function groupUnits(messages: readonly StoredMessage[]): HistoryUnit[] {
  return runSteps(groupUnitsInSteps(messages));
}

/** Messages grouped between two steps of `groupUnitsInSteps`. */
const MESSAGES_PER_STEP = 2_048;

/** `groupUnits` as a generator that yields every 2,048 messages, so a caller can pause in between. */
export function* groupUnitsInSteps(messages: readonly StoredMessage[]): Generator<void, HistoryUnit[]> {
  const units: HistoryUnit[] = [];
  let open: { unit: HistoryUnit; pending: Set<string> } | null = null;
  for (const [index, message] of messages.entries()) {
    if (index % MESSAGES_PER_STEP === MESSAGES_PER_STEP - 1) yield;
    if (message.role === 'tool' && message.toolCallId !== undefined) {
      if (open?.pending.has(message.toolCallId)) {
        open.unit.messages.push(message);
        open.pending.delete(message.toolCallId);
        continue;
      }
      units.push({ messages: [message], orphan: true });
      continue;
    }
    open = null;
    const unit: HistoryUnit = { messages: [message], orphan: false };
    units.push(unit);
    if (message.role === 'assistant' && message.toolCalls) {
      open = { unit, pending: new Set(message.toolCalls.map((call) => call.id)) };
    }
  }
  return units;
}

/** Runs a stepwise computation to its end, without pausing. */
export function runSteps<T>(steps: Generator<void, T>): T {
  let step = steps.next();
  while (!step.done) step = steps.next();
  return step.value;
}

/** Groups units into turns; units before the first user message form a leading partial turn. */
export function groupTurns(units: readonly HistoryUnit[]): HistoryTurn[] {
  const turns: HistoryTurn[] = [];
  let current: HistoryTurn | null = null;
  for (const unit of units) {
    if (current === null || unit.messages[0]?.role === 'user') {
      current = { units: [] };
      turns.push(current);
    }
    current.units.push(unit);
  }
  return turns;
}
