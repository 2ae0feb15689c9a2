import type { Pause } from '../engine/parse-in-slices.js';

/**
 * `JSON.stringify(object)`, byte for byte, with `object[key]` (a long array) serialized one item at
 * a time and `pause` before each item: echoing 100,000 messages holds no other request. `toItem`
 * maps each item first (so the mapped copies never all exist at once).
 */
export async function stringifyInSlices<T>(
  object: Record<string, unknown>,
  key: string,
  toItem: (item: T) => unknown,
  pause: Pause,
): Promise<string> {
  const members: string[] = [];
  for (const [name, value] of Object.entries(object)) {
    let text: string | undefined;
    if (name === key) {
      const items: string[] = [];
      for (const item of value as readonly T[]) {
        await pause();
        // As in JSON.stringify: an item with no JSON form (undefined, a function) is written null.
        items.push(JSON.stringify(toItem(item)) ?? 'null');
      }
      text = `[${items.join(',')}]`;
    } else {
      text = JSON.stringify(value);
    }
    // As in JSON.stringify: a member with no JSON form is left out.
    if (text !== undefined) members.push(`${JSON.stringify(name)}:${text}`);
  }
  return `{${members.join(',')}}`;
}
