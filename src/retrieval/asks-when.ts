import { extractQueryDates } from './extract-query-dates.js';
import { resolveRelativeDates } from './resolve-relative-dates.js';

/** A question that asks for a time: "When did …", "How long ago …", "What year …", "Which month …". */
const WHEN = /^\W*(?:when|how long ago|(?:what|which) (?:date|day|week|month|year|time))\b/i;

/** Whether `query` asks when something happened (English; the question word first). */
export function asksWhen(query: string): boolean {
  return WHEN.test(query);
}

/**
 * Whether `text` states when something happened: a calendar date ("3 May 2023", "in July 2023")
 * or a relative one that `resolveRelativeDates` reads ("yesterday", "last week", "two days ago").
 */
export function statesWhen(text: string): boolean {
  return resolveRelativeDates(text, 0).length > 0 || extractQueryDates(text).spans.length > 0;
}
