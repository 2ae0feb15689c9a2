import type { DateSpan } from './extract-query-dates.js';

const DAY_MS = 86_400_000;
const WEEKDAYS = ['sunday', 'monday', 'tuesday', 'wednesday', 'thursday', 'friday', 'saturday'] as const;
const NUMBERS: Record<string, number> = {
  a: 1,
  an: 1,
  one: 1,
  two: 2,
  three: 3,
  four: 4,
  five: 5,
  six: 6,
  seven: 7,
  eight: 8,
  nine: 9,
  ten: 10,
};
const COUNT = '(\\d{1,2}|an?|one|two|three|four|five|six|seven|eight|nine|ten)';
const WEEKDAY = '(sunday|monday|tuesday|wednesday|thursday|friday|saturday)';

const days = (start: number, from: number, to: number): DateSpan => ({
  start: start + from * DAY_MS,
  end: start + to * DAY_MS,
});

/** The whole calendar month `offset` months from the one that holds `day`. */
function month(day: number, offset: number): DateSpan {
  const date = new Date(day);
  return {
    start: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset, 1),
    end: Date.UTC(date.getUTCFullYear(), date.getUTCMonth() + offset + 1, 1),
  };
}

/** The whole calendar year `offset` years from the one that holds `day`. */
function year(day: number, offset: number): DateSpan {
  const date = new Date(day);
  return {
    start: Date.UTC(date.getUTCFullYear() + offset, 0, 1),
    end: Date.UTC(date.getUTCFullYear() + offset + 1, 0, 1),
  };
}

/** Days from `day` back to the latest earlier `weekday` (1-7), or on to the next later one (1-7). */
function toWeekday(day: number, weekday: number, direction: -1 | 1): number {
  const today = new Date(day).getUTCDay();
  const steps = direction < 0 ? (today - weekday + 7) % 7 || 7 : (weekday - today + 7) % 7 || 7;
  return direction * steps;
}

/** Expressions in the order they are tried; each match is consumed, so "last weekend" is not "last week". */
const EXPRESSIONS: { pattern: RegExp; span: (match: string[], day: number) => DateSpan | null }[] = [
  { pattern: /\bthe day before yesterday\b/gi, span: (_, day) => days(day, -2, -1) },
  { pattern: /\b(?:yesterday|last night)\b/gi, span: (_, day) => days(day, -1, 0) },
  { pattern: /\btomorrow\b/gi, span: (_, day) => days(day, 1, 2) },
  {
    pattern: /\b(?:today|tonight|this (?:morning|afternoon|evening))\b/gi,
    span: (_, day) => days(day, 0, 1),
  },
  {
    pattern: new RegExp(`\\b${COUNT}\\s+(month|year)s?\\s+ago\\b`, 'gi'),
    span: ([, count, unit], day) => {
      const value = NUMBERS[(count ?? '').toLowerCase()] ?? Number(count);
      return unit?.toLowerCase() === 'month' ? month(day, -value) : year(day, -value);
    },
  },
  {
    pattern: new RegExp(`\\b${COUNT}\\s+(day|week)s?\\s+ago\\b`, 'gi'),
    span: ([, count, unit], day) => {
      const value = NUMBERS[(count ?? '').toLowerCase()] ?? Number(count);
      // "three weeks ago" is vaguer than "three days ago": a week either way.
      return unit?.toLowerCase() === 'day'
        ? days(day, -value, -value + 1)
        : days(day, -7 * value - 3, -7 * value + 4);
    },
  },
  { pattern: /\ba couple (?:of )?days ago\b/gi, span: (_, day) => days(day, -3, -1) },
  { pattern: /\b(?:a few|some) days ago\b/gi, span: (_, day) => days(day, -5, -1) },
  {
    pattern: /\b(last|this|next) weekend\b/gi,
    span: ([, which], day) => {
      // A weekend is Saturday and Sunday: the last one ended before the day, this or the next one
      // is the one under way, else the coming one.
      const weekday = new Date(day).getUTCDay();
      if (which?.toLowerCase() === 'last') {
        const sunday = toWeekday(day, 0, -1);
        return days(day, sunday - 1, sunday + 1);
      }
      const saturday = weekday === 6 ? 0 : weekday === 0 ? -1 : 6 - weekday;
      return days(day, saturday, saturday + 2);
    },
  },
  { pattern: /\blast week\b/gi, span: (_, day) => days(day, -7, 0) },
  { pattern: /\bnext week\b/gi, span: (_, day) => days(day, 1, 8) },
  { pattern: /\blast month\b/gi, span: (_, day) => month(day, -1) },
  { pattern: /\bnext month\b/gi, span: (_, day) => month(day, 1) },
  { pattern: /\bthis month\b/gi, span: (_, day) => month(day, 0) },
  { pattern: /\bthis week\b/gi, span: (_, day) => days(day, -3, 4) },
  { pattern: /\blast year\b/gi, span: (_, day) => year(day, -1) },
  { pattern: /\bnext year\b/gi, span: (_, day) => year(day, 1) },
  { pattern: /\bthis year\b/gi, span: (_, day) => year(day, 0) },
  {
    pattern: new RegExp(`\\b(last|next|this (?:past|coming)) ${WEEKDAY}\\b`, 'gi'),
    span: ([which, , weekday], day) => {
      const index = WEEKDAYS.indexOf((weekday ?? '').toLowerCase() as (typeof WEEKDAYS)[number]);
      const offset = toWeekday(day, index, /last|past/i.test(which ?? '') ? -1 : 1);
      return days(day, offset, offset + 1);
    },
  },
];

/**
 * The days that relative time expressions in a memory's text refer to, read from the memory's own
 * date (`at`, UTC ms): "yesterday" and "last night" are the day before, "last Friday" the latest
 * Friday before, "last week" the seven days before, "three days ago", "last weekend", "last month",
 * "tomorrow", "next week" and the like likewise. A chat turn dated 8 May that says "we went
 * camping last week" is about 1-7 May, which is what a query "in early May" means. English only.
 */
export function resolveRelativeDates(text: string, at: number): DateSpan[] {
  const day = Math.floor(at / DAY_MS) * DAY_MS;
  const spans: DateSpan[] = [];
  let rest = text;
  for (const { pattern, span } of EXPRESSIONS) {
    rest = rest.replace(pattern, (...match: string[]) => {
      const found = span(match, day);
      if (found) spans.push(found);
      return ' ';
    });
  }
  return spans;
}
