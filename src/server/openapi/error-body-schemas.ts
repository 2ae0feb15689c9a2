import { z } from 'zod';

/** One FastAPI/pydantic validation item (`RequestValidationError.details`). */
export const validationDetailSchema = z.object({
  type: z.string(),
  loc: z.array(z.union([z.string(), z.number()])),
  msg: z.string(),
  input: z.unknown(),
  ctx: z.record(z.string(), z.unknown()).optional(),
});

/**
 * AMS/FastAPI error body: `{"detail": "<text>"}`; engram adds a stable `code` where AMS has no
 * such case (a record owned by a knowledge document or a procedure: 409).
 */
export const amsErrorSchema = z.object({ detail: z.string(), code: z.string().optional() });

/** AMS/FastAPI validation error body (422): `{"detail": [items]}`. */
export const amsValidationErrorSchema = z.object({ detail: z.array(validationDetailSchema) });

/** engram's error body (`EngramError.toJSON()`); validation puts the items in `details.issues`. */
export const engramErrorSchema = z.object({
  error: z.object({
    code: z.string(),
    category: z.string(),
    message: z.string(),
    details: z.record(z.string(), z.unknown()).optional(),
  }),
});
