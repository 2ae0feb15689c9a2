import { z } from 'zod';

/** Any JSON value. */
export type JsonValue = string | number | boolean | null | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Largest JSON document accepted for session `data` (serialized), 1 MiB. */
export const MAX_DATA_BYTES = 1_048_576;

export const jsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([
    z.string(),
    z.number().refine(Number.isFinite, 'Numbers must be finite'),
    z.boolean(),
    z.null(),
    z.array(jsonValueSchema),
    z.record(z.string(), jsonValueSchema),
  ]),
);

/** A JSON object at top level, bounded in size. */
export const jsonObjectSchema = z
  .record(z.string(), jsonValueSchema)
  .refine((value) => Buffer.byteLength(JSON.stringify(value)) <= MAX_DATA_BYTES, {
    message: `JSON object is larger than ${MAX_DATA_BYTES} bytes`,
  }) as z.ZodType<JsonObject>;
