/** A calendar span a query names: `start` inclusive, `end` exclusive, both UTC instants (ms). */
export interface DateSpan {
  start: number;
  end: number;
}

const MONTHS = ['jan', 'feb', 'mar', 'apr', 'may', 'jun', 'jul', 'aug', 'sep', 'oct', 'nov', 'dec'] as const;
const MONTH =
  '(jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)';
const DAY = '(\\d{1,2})(?:st|nd|rd|th)?';
const YEAR = '(\\d{4})';

const monthIndex = (name: string) =>
  MONTHS.indexOf(name.slice(0, 3).toLowerCase() as (typeof MONTHS)[number]);

function daySpan(year: number, month: number, day: number): DateSpan | null {
  const start = Date.UTC(year, month, day);
  // Date.UTC rolls "31 February" over into March: such a date names nothing.
  if (day < 1 || new Date(start).getUTCMonth() !== month) return null;
  return { start, end: Date.UTC(year, month, day + 1) };
}

/** Patterns in the order they are tried: the most specific first, so "3 May 2023" is one day. */
const PATTERNS: { pattern: RegExp; span: (match: string[]) => DateSpan | null }[] = [
  {
    // 25 May, 2022 · 25th May 2022
    pattern: new RegExp(`\\b${DAY}\\s+(?:of\\s+)?${MONTH},?\\s+${YEAR}\\b`, 'gi'),
    span: ([, day, month, year]) => daySpan(Number(year), monthIndex(month ?? ''), Number(day)),
  },
  {
    // May 25, 2022 · May 25th 2022
    pattern: new RegExp(`\\b${MONTH}\\s+${DAY},?\\s+${YEAR}\\b`, 'gi'),
    span: ([, month, day, year]) => daySpan(Number(year), monthIndex(month ?? ''), Number(day)),
  },
  {
    // 2022-05-25
    pattern: /\b(\d{4})-(\d{2})-(\d{2})\b/g,
    span: ([, year, month, day]) => daySpan(Number(year), Number(month) - 1, Number(day)),
  },
  {
    // May 2022 · May, 2022
    pattern: new RegExp(`\\b${MONTH},?\\s+${YEAR}\\b`, 'gi'),
    span: ([, month, year]) => {
      const index = monthIndex(month ?? '');
      return { start: Date.UTC(Number(year), index, 1), end: Date.UTC(Number(year), index + 1, 1) };
    },
  },
  {
    // in 2023 · during 2023 (a bare number is too often not a year)
    pattern: /\b(?:in|during|throughout)\s+((?:19|20)\d{2})\b/gi,
    span: ([, year]) => ({ start: Date.UTC(Number(year), 0, 1), end: Date.UTC(Number(year) + 1, 0, 1) }),
  },
];

/**
 * Finds the calendar dates an English query names ("on 25 May, 2022", "May 25th 2022",
 * "2022-05-25", "in July 2023", "in 2023") as UTC day, month or year spans, and returns the query
 * with those phrases removed (the rest is what keyword and vector search should match; a month
 * name such as "May" would otherwise match the verb). Relative dates ("last week") are not parsed.
 */
export function extractQueryDates(query: string): { spans: DateSpan[]; text: string } {
  const spans: DateSpan[] = [];
  let text = query;
  for (const { pattern, span } of PATTERNS) {
    text = text.replace(pattern, (...match: string[]) => {
      const found = span(match);
      if (!found) return match[0] ?? '';
      spans.push(found);
      return ' ';
    });
  }
  return { spans, text: spans.length > 0 ? text.replace(/\s+/g, ' ').trim() : query };
}
