import { cutText } from './cut-text.js';

/** How many characters of a caller's value an error may quote back (roughly: JSON of the preview). */
export const MAX_ECHO_CHARS = 300;

/** Budget for an error's structured details (a list of issues): each quoted value still cut at MAX_ECHO_CHARS. */
export const MAX_DETAILS_CHARS = 2_000;

/** Deepest nesting a preview keeps; deeper values are replaced by `"…"`. */
const MAX_ECHO_DEPTH = 4;

/** A string cut to `max` characters (never inside a surrogate pair), saying how long it was. */
export function truncateText(text: string, max = MAX_ECHO_CHARS): string {
  if (text.length <= max) return text;
  return `${cutText(text, max)}… (${text.length} characters)`;
}

function preview(value: unknown, budget: { left: number }, depth: number): unknown {
  if (typeof value === 'string') {
    const cut = truncateText(value, Math.max(16, Math.min(MAX_ECHO_CHARS, budget.left)));
    budget.left -= cut.length + 2;
    return cut;
  }
  if (typeof value !== 'object' || value === null) {
    budget.left -= String(value).length;
    return value;
  }
  if (depth >= MAX_ECHO_DEPTH) {
    budget.left -= 3;
    return '…';
  }
  budget.left -= 2; // the brackets: a million empty objects still use up the budget
  if (Array.isArray(value)) {
    const items: unknown[] = [];
    for (const item of value) {
      if (budget.left <= 0) {
        items.push(`… (${value.length} items)`);
        break;
      }
      items.push(preview(item, budget, depth + 1));
    }
    return items;
  }
  const entries: [string, unknown][] = [];
  const keys = Object.keys(value);
  for (const key of keys) {
    if (budget.left <= 0) {
      entries.push(['…', `${keys.length} keys`]);
      break;
    }
    budget.left -= key.length + 3;
    entries.push([
      truncateText(key, 64),
      preview((value as Record<string, unknown>)[key], budget, depth + 1),
    ]);
  }
  return Object.fromEntries(entries);
}

/**
 * A bounded copy of a caller's value for an error to echo: strings cut to a few hundred characters,
 * arrays and objects cut once about MAX_ECHO_CHARS characters are used, nesting cut at four levels.
 * Its cost depends on the bound, not on the value's size, so a 5 MB document or a million-item
 * array is never copied into an error.
 */
export function previewValue(value: unknown, maxChars = MAX_ECHO_CHARS): unknown {
  return preview(value, { left: maxChars }, 0);
}
