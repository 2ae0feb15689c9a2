import { vi } from 'vitest';

/**
 * Runs `request` while watching `JSON.stringify`, and gives its result with the calls that
 * serialized a list of more than one item under `key` in one step: a large answer that is written
 * item by item in slices makes none.
 */
export async function stringifiedWhole<T>(
  key: string,
  request: () => Promise<T>,
): Promise<{ result: T; whole: unknown[][] }> {
  const stringify = vi.spyOn(JSON, 'stringify');
  try {
    const result = await request();
    const whole = stringify.mock.calls.filter(([value]) => {
      const listed = (value as Record<string, unknown> | null)?.[key];
      return Array.isArray(listed) && listed.length > 1;
    });
    return { result, whole };
  } finally {
    stringify.mockRestore();
  }
}
