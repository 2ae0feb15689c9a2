import { extractQueryDates } from './extract-query-dates.js';
import { resolveRelativeDates } from './resolve-relative-dates.js';

/** A question that asks for a time: "When did …", "How long ago …", "What year …", "Which month …". */
const WHEN = /^\W*(?:when|how long ago|(?:what|which) (?:date|day|week|month|year|time))\b/i;

/** Whether `query` asks when something happened (English; the question word first). */
export function asksWhen(query: string): boolean {
  return WHEN.test(query);
}

/**
 * A word or digit that every pattern of `extractQueryDates` (a year's digits) and of
 * `resolveRelativeDates` contains. One pass of this rules out most texts before the two readers'
 * dozens of patterns run: on a "when" question, search asks this of every candidate (about 400).
 */
const MAY_STATE_WHEN =
  /\d|yesterday|tomorrow|today|tonight|morning|afternoon|evening|night|ago|week|month|year|last|next|past|coming/i;

/**
 * Whether `text` states when something happened: a calendar date ("3 May 2023", "in July 2023")
 * or a relative one that `resolveRelativeDates` reads ("yesterday", "last week", "two days ago").
 */
export function statesWhen(text: string): boolean {
  if (!MAY_STATE_WHEN.test(text)) return false;
  return resolveRelativeDates(text, 0).length > 0 || extractQueryDates(text).spans.length > 0;
}
