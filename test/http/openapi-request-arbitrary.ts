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
 * Values for `schema`: `strict` ones follow it (as far as a JSON Schema says: formats and zod
 * refinements are not in it); loose ones also bring wrong types, missing and extra fields.
 */
export function valueFor(
  schema: JsonSchema,
  resolve: (ref: string) => JsonSchema,
  depth = 0,
  strict = false,
): fc.Arbitrary<unknown> {
  if (schema.$ref) return valueFor(resolve(schema.$ref), resolve, depth, strict);
  if (depth > 4) return fc.constantFrom(null, 'deep', 1);
  const variants = schema.anyOf ?? schema.oneOf;
  if (variants && variants.length > 0)
    return fc.oneof(...variants.map((variant) => valueFor(variant, resolve, depth + 1, strict)));
  if (schema.enum && strict) return fc.constantFrom(...schema.enum);
  if (schema.enum)
    return fc.oneof(
      { weight: 4, arbitrary: fc.constantFrom(...schema.enum) },
      { weight: 1, arbitrary: wrongValue },
    );
  if (schema.const !== undefined) return fc.constant(schema.const);
  const types = Array.isArray(schema.type) ? schema.type : schema.type ? [schema.type] : [];
  const typed = types.map((type): fc.Arbitrary<unknown> => {
    switch (type) {
      case 'string':
        return strict
          ? fc.string({
              minLength: Math.min(schema.minLength ?? 1, 40),
              maxLength: Math.min(schema.maxLength ?? 40, 40),
            })
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
        return fc.array(schema.items ? valueFor(schema.items, resolve, depth + 1, strict) : fc.jsonValue(), {
          maxLength: 4,
        });
      case 'object':
        return objectFor(schema, resolve, depth, strict);
      default:
        return fc.jsonValue();
    }
  });
  if (schema.properties && !types.includes('object')) typed.push(objectFor(schema, resolve, depth, strict));
  const valid = typed.length > 0 ? fc.oneof(...typed) : fc.jsonValue({ maxDepth: 2 });
  if (strict) return valid;
  return fc.oneof({ weight: 5, arbitrary: valid }, { weight: 1, arbitrary: wrongValue });
}

function objectFor(
  schema: JsonSchema,
  resolve: (ref: string) => JsonSchema,
  depth: number,
  strict: boolean,
): fc.Arbitrary<unknown> {
  const properties = Object.entries(schema.properties ?? {});
  const required = new Set(schema.required ?? []);
  const fieldValue = (name: string, property: JsonSchema) =>
    strict && datelike.test(name) ? isoDate : valueFor(property, resolve, depth + 1, strict);
  const fields = Object.fromEntries(properties.map(([name, property]) => [name, fieldValue(name, property)]));
  const record = fc.record(fields, {
    requiredKeys: properties.filter(([name]) => required.has(name)).map(([name]) => name),
  });
  if (strict) {
    // Required fields, and a few optional ones: the fewer, the likelier the whole is valid.
    const optional = properties.filter(([name]) => !required.has(name));
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

export const encodePart = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return 'lone-surrogate';
  }
};
