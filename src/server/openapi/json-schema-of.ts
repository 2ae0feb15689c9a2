import { z } from 'zod';

/** A JSON Schema (draft 2020-12, the dialect of OpenAPI 3.1) as a plain object. */
export type JsonSchema = Record<string, unknown>;

const boundKeys = ['minimum', 'maximum', 'exclusiveMinimum', 'exclusiveMaximum'] as const;

type OverrideContext = { zodSchema: z.core.$ZodType; jsonSchema: JsonSchema };

/**
 * `laxInteger().pipe(z.number().min(1))` is shown as its input (the lax field's `integer`): keep the
 * bounds the piped number schema checks, which the input side of the pipe does not carry.
 */
function keepPipedBounds({ zodSchema, jsonSchema }: OverrideContext): void {
  const { in: input, out } = zodSchema._zod.def as z.core.$ZodPipeDef;
  if (out._zod.def.type !== 'number' || input._zod.traits.has('$ZodTransform')) return;
  const bounds = z.toJSONSchema(out, { target: 'draft-2020-12' }) as JsonSchema;
  for (const key of boundKeys) if (bounds[key] !== undefined) jsonSchema[key] = bounds[key];
}

/** zod drops the default of a transformed field from input schemas; the caller still gets it. */
function keepDefault({ zodSchema, jsonSchema }: OverrideContext): void {
  const value = (zodSchema._zod.def as z.core.$ZodDefaultDef).defaultValue;
  if (jsonSchema.default === undefined && value !== undefined) jsonSchema.default = value;
}

function adjust(context: OverrideContext, io: 'input' | 'output'): void {
  const { type } = context.zodSchema._zod.def;
  if (io === 'input' && type === 'pipe') keepPipedBounds(context);
  if (io === 'input' && type === 'default') keepDefault(context);
  // `z.number().int()` states the safe-integer range, which says nothing to a reader.
  const { jsonSchema } = context;
  if (jsonSchema.minimum === Number.MIN_SAFE_INTEGER && jsonSchema.maximum === Number.MAX_SAFE_INTEGER) {
    delete jsonSchema.minimum;
    delete jsonSchema.maximum;
  }
}

/**
 * The JSON Schema of a zod schema as the document shows it: `input` for what a request may send
 * (defaulted fields optional, transforms shown by their input or their `.meta()`), `output` for
 * what a response carries. A part with no JSON Schema (a custom check, a bare transform with no
 * `.meta()`) becomes `{}` marked `x-engram-unrepresentable`, which the OpenAPI test rejects.
 */
export function jsonSchemaOf(schema: z.ZodType, io: 'input' | 'output'): JsonSchema {
  const json = z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io,
    reused: 'inline',
    unrepresentable: ({ message }) => ({ 'x-engram-unrepresentable': message }),
    override: (context) => adjust(context, io),
  }) as JsonSchema;
  const { $schema: _dialect, ...rest } = json;
  return rest;
}
