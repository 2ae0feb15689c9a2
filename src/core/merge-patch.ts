import type { JsonObject, JsonValue } from './schemas/json.js';

const isObject = (value: JsonValue | undefined): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/**
 * Applies an RFC 7386 JSON merge patch: objects merge recursively, `null` deletes a key,
 * anything else replaces. Returns a new value; the target is not mutated.
 */
export function applyMergePatch(target: JsonValue | null, patch: JsonValue): JsonValue {
  if (!isObject(patch)) return patch;
  const result: JsonObject = isObject(target ?? undefined) ? { ...(target as JsonObject) } : {};
  for (const [key, value] of Object.entries(patch)) {
    if (value === null) delete result[key];
    else result[key] = applyMergePatch(result[key] ?? null, value);
  }
  return result;
}
