/**
 * Characters of text in one page of an answer that lists long texts on REST and MCP (a memory's
 * history, an MCP search, the messages of MCP `get_working_memory`): past its first item, a page
 * ends before the item that would pass it (12 memories of the longest). 300 versions of 20,000
 * characters in one history answer held the event loop 20–48 ms (mostly the collector, with 6 MB
 * of text alive at once); pages of 1,000,000 characters still 15–20 ms.
 */
export const PAGE_TEXT_CHARS = 250_000;

/**
 * The longest prefix of `items` whose sizes (`chars` of each) total at most `maxChars`, always
 * holding the first item: a page bounded in size as well as in count, so that one answer never
 * holds megabytes however long each item may be (memory texts: up to 20,000 characters each).
 */
export function takeWithinChars<T>(items: readonly T[], chars: (item: T) => number, maxChars: number): T[] {
  let taken = 0;
  let total = 0;
  while (taken < items.length) {
    total += chars(items[taken] as T);
    if (taken > 0 && total > maxChars) break;
    taken += 1;
  }
  return items.slice(0, taken);
}
