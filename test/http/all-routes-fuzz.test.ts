import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import type { Role } from '../../src/server/auth/principal.js';
import {
  encodePart,
  type JsonSchema,
  type Operation,
  operationsOf,
  textFor,
  valueFor,
  wrongValue,
} from './openapi-request-arbitrary.js';
import { type SeededIds, seedTenant, snapshotTenant } from './seeded-tenant.js';
import { useTestServer } from './test-server.js';

/**
 * Every route of GET /openapi.json gets random and mutated requests (wrong types, missing and extra
 * fields, huge limits, negative offsets, odd ids, malformed JSON, wrong content types, oversize
 * bodies) from callers that may not write to tenant A: A's inspector, and B's admin, agent and
 * inspector aiming at A's ids. No answer may be a 5xx, and A's data must stay exactly as seeded.
 */
const BODY_LIMIT = 32_768;
const RUNS_PER_ROUTE = Number(process.env.ENGRAM_FUZZ_RUNS_PER_ROUTE ?? 60);
const testServer = useTestServer({ auth: { mode: 'enabled' }, bodyLimitBytes: BODY_LIMIT });

const keys: Record<string, string> = { invalid: 'engram_not_a_real_key' };
const credentials: [string, string, Role][] = [
  ['aAdmin', 'tenant-a', 'admin'],
  ['aInspector', 'tenant-a', 'inspector'],
  ['bAdmin', 'tenant-b', 'admin'],
  ['bAgent', 'tenant-b', 'agent'],
  ['bInspector', 'tenant-b', 'inspector'],
];
let seeded: SeededIds;
/** Answers by `METHOD path status`, to check every handler was reached (ENGRAM_FUZZ_DEBUG prints them). */
const statuses = new Map<string, number>();
let operations: Operation[] = [];
let tools: { name: string; inputSchema: JsonSchema }[] = [];
let schemas: Record<string, JsonSchema> = {};
const resolve = (ref: string): JsonSchema => schemas[ref.split('/').at(-1) ?? ''] ?? {};

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const [name, tenantId, role] of credentials) {
    keys[name] = (await apiKeys.create({ tenantId, role })).key;
  }
  seeded = await seedTenant(testServer(), 'tenant-a', keys.aAdmin as string);
  const document = (await (await testServer().request('/openapi.json')).json()) as Parameters<
    typeof operationsOf
  >[0] & { components?: { schemas?: Record<string, JsonSchema> } };
  schemas = document.components?.schemas ?? {};
  operations = operationsOf(document);
  const listed = await testServer().request('/mcp', {
    method: 'POST',
    headers: { authorization: `Bearer ${keys.bAdmin}`, accept: 'application/json, text/event-stream' },
    body: { jsonrpc: '2.0', id: 1, method: 'tools/list' },
  });
  tools = ((await listed.json()) as { result: { tools: typeof tools } }).result.tools;
});

interface FuzzRequest {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: string | undefined;
}

function requestFor(operation: Operation): fc.Arbitrary<FuzzRequest> {
  const seededIds = [
    ...seeded.sessions.map((session) => session.sessionId),
    ...seeded.memoryIds,
    seeded.agentId,
    seeded.documentId,
    ...seeded.procedureIds,
    seeded.traceId,
    seeded.taskId,
  ];
  const pathParameters = operation.parameters.filter((parameter) => parameter.in === 'path');
  const queryParameters = operation.parameters.filter((parameter) => parameter.in === 'query');
  const pathValue = (schema: JsonSchema) =>
    fc.oneof(
      { weight: 3, arbitrary: fc.constantFrom(...seededIds).map(encodePart) },
      { weight: 2, arbitrary: textFor(schema, resolve).map(encodePart) },
      { weight: 1, arbitrary: fc.constantFrom('%zz', '%E0%A4%A', '..', '%2F', 'a%00b', '%', '.') },
    );
  const query = fc.tuple(
    ...queryParameters.map((parameter) =>
      fc.option(
        textFor(parameter.schema, resolve).map((value) => [parameter.name, value] as const),
        {
          freq: 2,
        },
      ),
    ),
    fc.option(
      fc.constantFrom(['namespace', 'shop'] as const, ['user_id', 'ada'] as const, ['extra', '1'] as const),
    ),
  );
  // A tool call with arguments from the tool's own JSON Schema (strict or loose), or anything.
  const toolCall = fc.oneof(
    ...tools.map((tool) =>
      fc.record({
        name: fc.constant(tool.name),
        arguments: fc.oneof(
          valueFor(tool.inputSchema, resolve, 0, true),
          valueFor(tool.inputSchema, resolve),
          fc.dictionary(
            fc.constantFrom('memory_id', 'memory_ids', 'session_id', 'user_id', 'query', 'text'),
            fc.oneof(fc.constantFrom(...seededIds), fc.constant([seeded.memoryIds[0]]), wrongValue),
            { maxKeys: 4 },
          ),
        ),
      }),
    ),
    fc.record({ name: fc.constantFrom('nope', ''), arguments: fc.jsonValue() }),
  );
  const mcpCall = fc.record({
    jsonrpc: fc.constantFrom('2.0', '2.0', '2.0', '1.0'),
    id: fc.oneof(fc.nat(), fc.string({ maxLength: 5 })),
    method: fc.constantFrom('tools/call', 'tools/call', 'tools/call', 'tools/list', 'initialize', 'nope'),
    params: toolCall,
  });
  const schemaBody =
    operation.path === '/mcp'
      ? mcpCall
      : operation.body
        ? fc.oneof(valueFor(operation.body, resolve, 0, true), valueFor(operation.body, resolve))
        : fc.jsonValue();
  const body = fc.oneof(
    { weight: 6, arbitrary: schemaBody.map((value) => JSON.stringify(value)) },
    { weight: 1, arbitrary: fc.jsonValue({ maxDepth: 3 }).map((value) => JSON.stringify(value)) },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '{"memories": [',
        '{"a":1}}',
        '',
        'null',
        '[]',
        '{"text": "\\ud800"}',
        'nan',
      ),
    },
    {
      weight: 1,
      arbitrary: fc.constant(JSON.stringify({ text: 'x'.repeat(BODY_LIMIT + 10), memories: [] })),
    },
    { weight: 1, arbitrary: fc.constant(undefined) },
  );
  const contentType = fc.constantFrom(
    operation.contentTypes[0] ?? 'application/json',
    operation.contentTypes[0] ?? 'application/json',
    'application/json',
    'text/plain',
    'application/x-www-form-urlencoded',
    'application/merge-patch+json',
    'text/markdown',
    ';;;',
  );
  return fc
    .record({
      who: fc.constantFrom('aInspector', 'bAdmin', 'bAdmin', 'bAdmin', 'bAgent', 'bInspector', 'invalid'),
      path: fc.tuple(...pathParameters.map((parameter) => pathValue(parameter.schema))),
      query,
      body,
      contentType,
    })
    .map(({ who, path, query: pairs, body: text, contentType: type }) => {
      let index = 0;
      const filled = operation.path.replace(/\{[^}]+\}/g, () => path[index++] ?? 'x');
      const search = pairs
        .filter((pair) => pair !== null)
        .map((pair) => `${encodePart(pair[0])}=${encodePart(pair[1])}`)
        .join('&');
      const hasBody = text !== undefined && operation.method !== 'GET';
      return {
        method: operation.method,
        url: `${filled}${search ? `?${search}` : ''}`,
        headers: {
          authorization: `Bearer ${keys[who]}`,
          ...(operation.path === '/mcp' ? { accept: 'application/json, text/event-stream' } : {}),
          ...(hasBody ? { 'content-type': type } : {}),
        },
        body: hasBody ? text : undefined,
      };
    });
}

describe('every documented route under random and mutated requests (auth on, no write access to tenant A)', () => {
  it('never answers a 5xx and never changes tenant A', { timeout: 240_000 }, async () => {
    expect(operations.length).toBeGreaterThan(35);
    const before = await snapshotTenant(testServer().engram, 'tenant-a', seeded.taskId);
    for (const operation of operations) {
      await fc.assert(
        fc.asyncProperty(requestFor(operation), async (request) => {
          const response = await fetch(`${testServer().url}${request.url}`, {
            method: request.method,
            headers: request.headers,
            ...(request.body === undefined ? {} : { body: request.body }),
          });
          const text = await response.text();
          const described = `${request.method} ${request.url} ${request.body?.slice(0, 300)} → ${response.status} ${text.slice(0, 300)}`;
          const key = `${request.method} ${operation.path} ${response.status}`;
          statuses.set(key, (statuses.get(key) ?? 0) + 1);
          // The one deliberate 5xx: an LLM feature (a chat turn, a summary view run) on a server without
          // an LLM: 503 llm_not_configured, whose AMS-shape `{"detail"}` carries only the message.
          const llmOff =
            response.status === 503 &&
            (text.includes('"llm_not_configured"') || text.includes('needs an LLM, and none is configured'));
          if (!llmOff) expect(response.status, described).toBeLessThan(500);
        }),
        { numRuns: RUNS_PER_ROUTE },
      );
      const after = await snapshotTenant(testServer().engram, 'tenant-a', seeded.taskId);
      expect(after, `${operation.method} ${operation.path} changed tenant A`).toEqual(before);
    }
    expect((await testServer().request('/ready')).status).toBe(200);
    if (process.env.ENGRAM_FUZZ_DEBUG) console.log([...statuses].sort().join('\n'));
    // Each route's handler (or its validation) was reached, not only the auth and body-parser gates.
    const gates = new Set([401, 403, 413, 415]);
    for (const { method, path } of operations) {
      const reached = [...statuses].some(([key]) => {
        const status = Number(key.split(' ').at(-1));
        return key.startsWith(`${method} ${path} `) && !gates.has(status);
      });
      expect(reached, `${method} ${path}`).toBe(true);
    }
  });
});
