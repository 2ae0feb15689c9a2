/**
 * Small checks of an OpenAPI 3.1 document and of JSON values against its schemas, enough for the
 * subset of JSON Schema engram's zod schemas produce (no validator dependency).
 */
type Json = Record<string, unknown>;
const methods = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head', 'trace'];

/** Every `$ref` in `value`, with where it was found. */
function refsIn(value: unknown, at: string, found: [string, string][]): [string, string][] {
  if (Array.isArray(value)) {
    for (const [index, item] of value.entries()) refsIn(item, `${at}/${index}`, found);
  } else if (typeof value === 'object' && value !== null) {
    for (const [key, item] of Object.entries(value)) {
      if (key === '$ref' && typeof item === 'string') found.push([at, item]);
      else refsIn(item, `${at}/${key}`, found);
    }
  }
  return found;
}

function resolve(document: Json, ref: string): unknown {
  if (!ref.startsWith('#/')) return undefined;
  let value: unknown = document;
  for (const part of ref.slice(2).split('/')) value = (value as Json | undefined)?.[part];
  return value;
}

/** Structural problems of an OpenAPI 3.1 document; empty when it is sound. */
export function openApiProblems(document: Json): string[] {
  const problems: string[] = [];
  const problem = (text: string) => problems.push(text);
  if (document.openapi !== '3.1.0') problem(`openapi is ${String(document.openapi)}`);
  const info = document.info as Json | undefined;
  if (typeof info?.title !== 'string' || typeof info.version !== 'string')
    problem('info needs title and version');
  const schemes = ((document.components as Json | undefined)?.securitySchemes ?? {}) as Json;
  const operationIds = new Set<string>();
  const declaredTags = new Set(((document.tags ?? []) as Json[]).map((tag) => tag.name));
  for (const [path, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    if (!path.startsWith('/')) problem(`path ${path} does not start with /`);
    const templated = [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
    for (const [method, value] of Object.entries(item)) {
      const where = `${method.toUpperCase()} ${path}`;
      if (!methods.includes(method)) problem(`${where}: unknown method`);
      const operation = value as Json;
      const id = operation.operationId as string;
      if (operationIds.has(id)) problem(`${where}: duplicate operationId ${id}`);
      operationIds.add(id);
      const parameters = (operation.parameters ?? []) as Json[];
      const seen = new Set<string>();
      for (const parameter of parameters) {
        const key = `${parameter.in}:${parameter.name}`;
        if (seen.has(key)) problem(`${where}: parameter ${key} twice`);
        seen.add(key);
        if (!['path', 'query', 'header', 'cookie'].includes(String(parameter.in)))
          problem(`${where}: ${key} in?`);
        if (parameter.in === 'path' && parameter.required !== true) problem(`${where}: ${key} not required`);
        if (parameter.in === 'path' && !templated.includes(String(parameter.name)))
          problem(`${where}: ${key} unused`);
        if (typeof parameter.schema !== 'object') problem(`${where}: ${key} has no schema`);
      }
      for (const name of templated) if (!seen.has(`path:${name}`)) problem(`${where}: {${name}} undeclared`);
      const responses = (operation.responses ?? {}) as Record<string, Json>;
      if (Object.keys(responses).length === 0) problem(`${where}: no responses`);
      for (const [status, response] of Object.entries(responses)) {
        if (!/^(default|[1-5](\d\d|XX))$/.test(status)) problem(`${where}: response key ${status}`);
        if (typeof response.description !== 'string') problem(`${where} ${status}: no description`);
      }
      const body = operation.requestBody as Json | undefined;
      if (body && Object.keys((body.content ?? {}) as Json).length === 0)
        problem(`${where}: body without content`);
      for (const requirement of (operation.security ?? []) as Json[]) {
        for (const name of Object.keys(requirement))
          if (!(name in schemes)) problem(`${where}: scheme ${name}?`);
      }
      for (const tag of (operation.tags ?? []) as string[])
        if (!declaredTags.has(tag)) problem(`${where}: tag ${tag}`);
    }
  }
  for (const [at, ref] of refsIn(document, '#', [])) {
    if (resolve(document, ref) === undefined) problem(`${at}: $ref ${ref} does not resolve`);
  }
  return problems;
}

const typeOf = (value: unknown) =>
  value === null
    ? 'null'
    : Array.isArray(value)
      ? 'array'
      : Number.isInteger(value)
        ? 'integer'
        : typeof value;

/** Where `value` breaks `schema` (types, enum/const, required, properties, items, anyOf); empty when it conforms. */
export function schemaProblems(document: Json, schema: Json, value: unknown, at = '$'): string[] {
  if (typeof schema.$ref === 'string')
    return schemaProblems(document, resolve(document, schema.$ref) as Json, value, at);
  if (Array.isArray(schema.anyOf)) {
    const fits = (schema.anyOf as Json[]).some(
      (option) => schemaProblems(document, option, value, at).length === 0,
    );
    return fits ? [] : [`${at}: matches no anyOf option`];
  }
  const problems: string[] = [];
  const types = schema.type === undefined ? undefined : [schema.type].flat();
  const actual = typeOf(value);
  if (types && !types.includes(actual) && !(actual === 'integer' && types.includes('number'))) {
    return [`${at}: ${actual} is not ${types.join('|')}`];
  }
  if (Array.isArray(schema.enum) && !schema.enum.includes(value)) problems.push(`${at}: not in enum`);
  if ('const' in schema && schema.const !== value) problems.push(`${at}: is not ${String(schema.const)}`);
  if (actual === 'object') {
    const object = value as Json;
    const properties = (schema.properties ?? {}) as Record<string, Json>;
    for (const name of (schema.required ?? []) as string[])
      if (!(name in object)) problems.push(`${at}.${name}: missing`);
    for (const [name, item] of Object.entries(object)) {
      const property = properties[name];
      if (property) problems.push(...schemaProblems(document, property, item, `${at}.${name}`));
      else if (schema.additionalProperties === false) problems.push(`${at}.${name}: not declared`);
    }
  }
  if (actual === 'array' && typeof schema.items === 'object') {
    (value as unknown[]).forEach((item, index) => {
      problems.push(...schemaProblems(document, schema.items as Json, item, `${at}[${index}]`));
    });
  }
  return problems;
}

/**
 * A value built from a schema: with `all` every declared property, else only the required ones;
 * the first enum value or anyOf option, the minimum of a number, a past time for `date-time`.
 */
export function sampleOf(schema: Json, all: boolean): unknown {
  if (Array.isArray(schema.anyOf)) return sampleOf((schema.anyOf as Json[])[0] ?? {}, all);
  if ('const' in schema) return schema.const;
  if (Array.isArray(schema.enum)) return schema.enum[0];
  const type = [schema.type].flat()[0];
  switch (type) {
    case 'object': {
      const properties = Object.entries((schema.properties ?? {}) as Record<string, Json>);
      const required = new Set((schema.required ?? []) as string[]);
      return Object.fromEntries(
        properties
          .filter(([name]) => all || required.has(name))
          .map(([name, item]) => [name, sampleOf(item, all)]),
      );
    }
    case 'array':
      return Array.from({ length: Math.max(1, Number(schema.minItems ?? 0)) }, () =>
        sampleOf(schema.items as Json, all),
      );
    case 'integer':
    case 'number':
      return Number(schema.minimum ?? 1);
    case 'string':
      return schema.format === 'date-time' ? '2025-01-02T03:04:05Z' : 'sample';
    case 'boolean':
      return true;
    case 'null':
      return null;
    default:
      return {};
  }
}
