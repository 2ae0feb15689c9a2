import { groupUnitsInSteps } from '../../core/assembly/history-units.js';
import { drainInSlices } from '../../core/event-loop-slicer.js';
import type { StoredMessage } from '../../core/schemas/message.js';
import type { SessionKey } from '../../core/schemas/session.js';
import {
  chosenLine,
  composeSummary,
  createExtractiveCandidates,
} from '../../core/summarization/extractive-summary.js';
import { keepRecentUnits } from '../../core/summarization/plan-summarization.js';
import type { SessionStore } from '../../stores/session-store.js';

/**
 * Messages the summary job reads at a time. A session of 100,000 messages read whole held every
 * message on the request thread while it was planned and summarized, and the garbage collector
 * copied them in pauses of 12–59 ms (bench/adversarial.ts, "next 2 s" after the large PUT).
 */
export const SUMMARY_PAGE_MESSAGES = 1_024;

/** Seqs read back in one call for the chosen sentences' text: at most this span of messages. */
const READ_BACK_SPAN = 64;

/** Lets other work run between two steps (an event-loop slicer's `pause`). */
type Pause = () => Promise<unknown> | undefined;

/** Where a summary cuts a session: the last seq folded into it, what stays verbatim costs. */
export interface SummaryCut {
  throughSeq: number;
  keptTokens: number;
}

/**
 * The cut `planSummarization` makes over the unsummarized messages (those after `afterSeq`), read
 * from the newest back a page at a time: only as many as the verbatim tail needs (about
 * `keepBudget` tokens) are ever held. Null when nothing can be cut (the newest unit always stays).
 * The pages read start at a message that is not a tool result, where grouping into units starts
 * afresh, so the units found are the whole session's.
 */
export async function planCutInPages(
  store: SessionStore,
  key: SessionKey,
  options: {
    afterSeq: number;
    costOf: (message: StoredMessage) => number;
    keepBudget: number;
    pause: Pause;
    /** Messages per read (tests use small pages). */
    pageMessages?: number;
  },
): Promise<SummaryCut | null> {
  const pageMessages = options.pageMessages ?? SUMMARY_PAGE_MESSAGES;
  const newestFirst: StoredMessage[] = [];
  let cost = 0;
  for (;;) {
    const oldest = newestFirst.at(-1);
    const page = await store.readMessages(key, {
      order: 'newest-first',
      afterSeq: options.afterSeq,
      limit: pageMessages,
      ...(oldest ? { beforeSeq: oldest.seq } : {}),
    });
    for (const message of page) {
      newestFirst.push(message);
      cost += options.costOf(message);
    }
    const exhausted = page.length < pageMessages;
    if (!exhausted && (cost <= options.keepBudget || newestFirst.at(-1)?.role === 'tool')) continue;
    const units = await drainInSlices(groupUnitsInSteps(newestFirst.toReversed()), options.pause);
    const walk = await drainInSlices(
      keepRecentUnits(units, options.costOf, options.keepBudget),
      options.pause,
    );
    // A walk that kept every unit read may go on before them: read further back.
    if (!walk.stopped && !exhausted) continue;
    const lastFolded = units[walk.firstKept - 1]?.messages.at(-1);
    return lastFolded ? { throughSeq: lastFolded.seq, keptTokens: walk.kept } : null;
  }
}

/** Messages after `afterSeq` through `throughSeq`, read `pageMessages` at a time. */
export interface SummaryRange {
  afterSeq: number;
  throughSeq: number;
  /** Messages per read (tests use small pages); default `SUMMARY_PAGE_MESSAGES`. */
  pageMessages?: number;
}

/** Calls `visit` with each page of the messages after `afterSeq` through `throughSeq`, oldest first. */
export async function forEachPage(
  store: SessionStore,
  key: SessionKey,
  range: SummaryRange,
  visit: (page: StoredMessage[]) => Promise<void>,
): Promise<void> {
  const pageMessages = range.pageMessages ?? SUMMARY_PAGE_MESSAGES;
  let afterSeq = range.afterSeq;
  for (;;) {
    const page = await store.readMessages(key, {
      order: 'oldest-first',
      afterSeq,
      beforeSeq: range.throughSeq + 1,
      limit: pageMessages,
    });
    if (page.length > 0) await visit(page);
    const last = page.at(-1);
    if (!last || page.length < pageMessages) return;
    afterSeq = last.seq;
  }
}

/**
 * `extractiveSummary(previous, messages)` over the messages after `afterSeq` through `throughSeq`,
 * read a page at a time: the candidates are kept as numbers, each page is let go once read, and
 * only the messages whose sentences were chosen are read again (by seq) for their text. Null when
 * one of them is gone: the session was replaced or deleted meanwhile, so the summary would be too.
 */
export async function extractiveSummaryInPages(
  store: SessionStore,
  key: SessionKey,
  previous: string | null,
  range: SummaryRange,
  pause: Pause,
): Promise<{ context: string; messages: number } | null> {
  const candidates = createExtractiveCandidates();
  let messages = 0;
  await forEachPage(store, key, range, async (page) => {
    messages += page.length;
    await drainInSlices(
      candidates.add(page, (index) => (page[index] as StoredMessage).seq),
      pause,
    );
  });
  const choice = await drainInSlices(candidates.choose(previous), pause);
  // Chosen messages near each other are read back together (the chosen are in seq order).
  const wanted = [...new Set(choice.chosen.map((chosen) => chosen.message))];
  const contents = new Map<number, string>();
  for (let first = 0; first < wanted.length; ) {
    let last = first;
    while (
      last + 1 < wanted.length &&
      (wanted[last + 1] as number) - (wanted[first] as number) < READ_BACK_SPAN
    )
      last++;
    const page = await store.readMessages(key, {
      order: 'oldest-first',
      afterSeq: (wanted[first] as number) - 1,
      beforeSeq: (wanted[last] as number) + 1,
    });
    for (const message of page) contents.set(message.seq, message.content);
    first = last + 1;
  }
  if (wanted.some((seq) => !contents.has(seq))) return null;
  const context = composeSummary(previous, choice, (chosen) =>
    chosenLine(contents.get(chosen.message) ?? '', chosen),
  );
  return { context, messages };
}
