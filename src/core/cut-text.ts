/**
 * `text` cut to at most `max` characters, never inside a surrogate pair (a character outside the
 * Basic Multilingual Plane, such as an emoji, is kept whole or left out whole).
 */
export function cutText(text: string, max: number): string {
  if (text.length <= max) return text;
  const end = /[\uD800-\uDBFF]/.test(text.charAt(max - 1)) ? max - 1 : max;
  return text.slice(0, end);
}
