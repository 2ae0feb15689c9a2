/** Longest text a search ranks with; a longer one is fitted to it by `searchQueryOf`. */
export const MAX_QUERY_CHARS = 10_000;

/**
 * The text a search ranks with (and a turn's procedure matching, for the user's message): the text
 * itself, or, when it is longer than MAX_QUERY_CHARS, its first and last halves of that length,
 * each cut where whitespace starts or ends so that no word is split. A long message is mostly a
 * pasted document with the question before or after it; searching a 900 KB message in full also
 * analyzed and embedded all of it on the turn's thread, and a message over the limit made every
 * search fail (the context then had no memories at all).
 */
export function searchQueryOf(message: string): string {
  if (message.length <= MAX_QUERY_CHARS) return message;
  const half = Math.floor((MAX_QUERY_CHARS - 1) / 2);
  let headEnd = half;
  // Back to the last whitespace in the head (a word split in two matches neither half).
  while (headEnd > half / 2 && !/\s/.test(message.charAt(headEnd))) headEnd--;
  let tailStart = message.length - half;
  while (tailStart < message.length - half / 2 && !/\s/.test(message.charAt(tailStart - 1))) tailStart++;
  // A message without whitespace near the cuts is cut where the halves end.
  if (headEnd <= half / 2) headEnd = half;
  if (tailStart >= message.length - half / 2) tailStart = message.length - half;
  return `${message.slice(0, headEnd)}\n${message.slice(tailStart)}`;
}
