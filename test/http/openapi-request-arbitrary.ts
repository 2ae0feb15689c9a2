import fc from 'fast-check';

/** The JSON Schema subset engram's OpenAPI document uses (zod's `z.toJSONSchema` output). */
export interface JsonSchema {
  $ref?: string;
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  additionalProperties?: boolean | JsonSchema;
  required?: string[];
  items?: JsonSchema;
  prefixItems?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
}

/** One documented operation, as the fuzzer drives it. */
export interface Operation {
  method: string;
  path: string;
  parameters: { in: 'path' | 'query' | 'header'; name: string; schema: JsonSchema }[];
  body: JsonSchema | null;
  contentTypes: string[];
}

interface OpenApiOperation {
  parameters?: Operation['parameters'];
  requestBody?: { content: Record<string, { schema?: JsonSchema }> };
}

/** Every operation of an OpenAPI document, its `$ref`s resolved (shallowly, on use). */
export function operationsOf(document: {
  paths: Record<string, Record<string, OpenApiOperation>>;
}): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    Object.entries(item).map(([method, operation]) => {
      const content = operation.requestBody?.content ?? {};
      const [first] = Object.values(content);
      return {
        method: method.toUpperCase(),
        path,
        parameters: operation.parameters ?? [],
        body: first?.schema ?? null,
        contentTypes: Object.keys(content),
      };
    }),
  );
}

const oddText = fc.oneof(
  fc.string({ maxLength: 30 }),
  fc.string({ unit: 'binary', maxLength: 12 }),
  fc.constantFrom('', ' ', '..', '%', '%zz', '%E0%A4%A', 'a/b', '\u0000', '__proto__', 'x'.repeat(300), 'é✓'),
);
/** Values of the wrong type or out of any sane range. */
export const wrongValue: fc.Arbitrary<unknown> = fc.oneof(
  fc.constantFrom(
    null,
    true,
    -1,
    0,
    -99_999_999_999,
    1e20,
    1.5,
    [],
    {},
    [null],
    { eq: 1 },
    'x'.repeat(5_000),
  ),
  oddText,
);
/** Fields named like dates get ISO 8601 text in strict values (JSON Schema carries no format here). */
const datelike = /(_at|date|last_accessed|_from|_to)$/;
const isoDate = fc
  .date({ min: new Date('2000-01-01T00:00:00Z'), max: new Date('2030-01-01T00:00:00Z'), noInvalidDate: true })
  .map((date) => date.toISOString());
const hugeOrNegative = fc.constantFrom(-1, 0, 1e9, -1e9, 2 ** 53, 100_001);

/**
 * Values a strict request uses for fields of a given name, where the schema alone cannot say what
 * the server accepts or finds (ids of things that exist, dates, plain words for text).
 */
export type FieldHints = (name: string, schema: JsonSchema) => fc.Arbitrary<unknown> | undefined;

const words = ['ada', 'kettle', 'oslo', 'refund', 'tea', 'garden', 'trip', 'budget', 'replacement', 'monday'];
/** Plain text within a schema's length bounds: words, never blank (servers trim text). */
export const plainText = (schema: JsonSchema = {}): fc.Arbitrary<string> =>
  fc.array(fc.constantFrom(...words), { minLength: 1, maxLength: 4 }).map((chosen) => {
    const text = chosen.join(' ');
    const padded = text.length < (schema.minLength ?? 0) ? text.padEnd(schema.minLength ?? 0, 'x') : text;
    return padded.slice(0, Math.max(1, schema.maxLength ?? 200));
  });

/**
 * Values for `schema`: `strict` ones follow it (as far as a JSON Schema says: formats and zod
 * refinements are not in it; `hints` fill in fields by name); loose ones also bring wrong types,
 * missing and extra fields.
 */
export function valueFor(
  schema: JsonSchema,
  resolve: (ref: string) => JsonSchema,
  depth = 0,
  strict = false,
  hints?: FieldHints,
): fc.Arbitrary<unknown> {
  if (schema.$ref) return valueFor(resolve(schema.$ref), resolve, depth, strict, hints);
  if (depth > (strict ? 8 : 4)) return fc.constantFrom(null, 'deep', 1);
  const variants = schema.anyOf ?? schema.oneOf;
  // A strict value prefers the non-null variant ("optional" fields are nullable, and null says little)
  // and a typed one over text: lax fields take a boolean or number as text too, but text in general
  // is not one.
  const nonNull = strict && variants ? variants.filter((variant) => variant.type !== 'null') : variants;
  const typedVariants = nonNull?.filter((variant) => variant.type !== 'string');
  const useful = strict && typedVariants && typedVariants.length > 0 ? typedVariants : nonNull;
  if (useful && useful.length > 0)
    return fc.oneof(...useful.map((variant) => valueFor(variant, resolve, depth + 1, strict, hints)));
  if (schema.enum && strict) return fc.constantFrom(...schema.enum);
  if (schema.enum)
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...schema.enum) },
      { weight: 1, arbitrary: wrongValue },
    );
  if (schema.const !== undefined) return fc.constant(schema.const);
  // Lax fields (a boolean or number also given as text) carry no type: their default, a number in
  // their range, or words.
  if (strict && untyped(schema)) {
    const fallback = (schema as { default?: unknown }).default;
    if (fallback !== undefined && fallback !== null) return fc.constant(fallback);
    if (schema.minimum !== undefined || schema.maximum !== undefined) {
      return fc.double({ noNaN: true, min: schema.minimum ?? 0, max: schema.maximum ?? 100 });
    }
    return plainText();
  }
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const typed = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return strict
          ? plainText(schema)
          : fc.oneof(fc.string({ maxLength: Math.min(schema.maxLength ?? 40, 40) }), oddText);
      case 'integer':
        return fc.oneof(
          fc.integer({ min: schema.minimum ?? -5, max: Math.min(schema.maximum ?? 200, 200) }),
          ...(strict ? [] : [hugeOrNegative]),
        );
      case 'number':
        return fc.oneof(
          fc.double({ noNaN: true, min: schema.minimum ?? -10, max: schema.maximum ?? 10 }),
          ...(strict ? [] : [hugeOrNegative]),
        );
      case 'boolean':
        return fc.boolean();
      case 'null':
        return fc.constant(null);
      case 'array':
        return fc.array(
          schema.items && Object.keys(schema.items).length > 0
            ? valueFor(schema.items, resolve, depth + 1, strict, hints)
            : strict
              ? plainText()
              : fc.jsonValue(),
          { maxLength: 4, ...(strict ? { minLength: 1 } : {}) },
        );
      case 'object':
        return objectFor(schema, resolve, depth, strict, hints);
      default:
        return fc.jsonValue();
    }
  });
  if (schema.properties && !types.includes('object'))
    typed.push(objectFor(schema, resolve, depth, strict, hints));
  const valid = typed.length > 0 ? fc.oneof(...typed) : strict ? plainText() : fc.jsonValue({ maxDepth: 2 });
  if (strict) return valid;
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: wrongValue });
}

/** A schema that says nothing of its type (lax fields), ignoring a null variant. */
function untyped(schema: JsonSchema): boolean {
  const variants = (schema.anyOf ?? schema.oneOf)?.filter((variant) => variant.type !== 'null');
  if (variants) return variants.every(untyped);
  return (
    schema.type === undefined &&
    schema.$ref === undefined &&
    schema.enum === undefined &&
    schema.const === undefined &&
    schema.properties === undefined &&
    schema.items === undefined
  );
}

/** Whether a schema takes text (itself, or one of its variants). */
export function takesText(schema: JsonSchema, resolve: (ref: string) => JsonSchema): boolean {
  const resolved = schema.$ref ? resolve(schema.$ref) : schema;
  return (
    [resolved.type].flat().includes('string') ||
    (resolved.anyOf ?? resolved.oneOf ?? []).some((variant) => takesText(variant, resolve))
  );
}

function objectFor(
  schema: JsonSchema,
  resolve: (ref: string) => JsonSchema,
  depth: number,
  strict: boolean,
  hints?: FieldHints,
): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fieldValue = (name: string, property: JsonSchema) =>
    (strict ? hints?.(name, property) : undefined) ??
    (strict && datelike.test(name) && takesText(property, resolve)
      ? isoDate
      : valueFor(property, resolve, depth + 1, strict, hints));
  const fields = Object.fromEntries(properties.map(([name, property]) => [name, fieldValue(name, property)]));
  const record = fc.record(fields, {
    requiredKeys: properties.filter(([name]) => required.has(name)).map(([name]) => name),
  });
  if (strict) {
    // Required fields, and a few optional ones: the fewer, the likelier the whole is valid. An
    // optional field of no declared type and no default is left out (its type is anyone's guess).
    const optional = properties.filter(
      ([name, property]) =>
        !required.has(name) &&
        !(
          untyped(property) &&
          (property as { default?: unknown }).default === undefined &&
          !hints?.(name, property)
        ),
    );
    return fc
      .tuple(
        fc.record(
          Object.fromEntries(
            properties
              .filter(([name]) => required.has(name))
              .map(([name, property]) => [name, fieldValue(name, property)]),
          ),
        ),
        fc
          .subarray(optional, { maxLength: Math.min(2, optional.length) })
          .chain((chosen) =>
            fc.record(
              Object.fromEntries(chosen.map(([name, property]) => [name, fieldValue(name, property)])),
            ),
          ),
      )
      .map(([base, extra]) => ({ ...base, ...extra }));
  }
  // Missing required fields and unknown extra ones.
  return fc
    .tuple(
      record,
      fc.dictionary(fc.constantFrom('extra', 'id', 'tenant_id', '__proto__x', 'memories'), wrongValue, {
        maxKeys: 2,
      }),
      fc.subarray([...required], { maxLength: Math.min(1, required.size) }),
    )
    .map(([value, extra, dropped]) => {
      const result: Record<string, unknown> = { ...(value as Record<string, unknown>), ...extra };
      for (const name of dropped) delete result[name];
      return result;
    });
}

/** A query or path value as text: from the schema, or odd text and numbers. */
export function textFor(schema: JsonSchema, resolve: (ref: string) => JsonSchema): fc.Arbitrary<string> {
  return fc.oneof(
    {
      weight: 3,
      arbitrary: valueFor(schema, resolve).map((value) =>
        typeof value === 'string' ? value : (JSON.stringify(value) ?? ''),
      ),
    },
    {
      weight: 1,
      arbitrary: fc.oneof(
        oddText,
        fc.constantFrom('-1', '1e309', 'NaN', '99999999999999999999', ' 7 ', 'true'),
      ),
    },
  );
}

/** A value of the wrong kind for one field of a valid request: the mutation of the fuzzer. */
export const mutation: fc.Arbitrary<{ kind: 'replace'; value: unknown } | { kind: 'drop' }> = fc.oneof(
  { weight: 3, arbitrary: wrongValue.map((value) => ({ kind: 'replace' as const, value })) },
  { weight: 1, arbitrary: fc.constant({ kind: 'drop' as const }) },
);

export const encodePart = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return 'lone-surrogate';
  }
};
