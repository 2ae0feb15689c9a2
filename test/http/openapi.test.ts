import Fastify from 'fastify';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { registerOpenApi } from '../../src/server/openapi/register-openapi.js';
import { openApiProblems, sampleOf, schemaProblems } from './openapi-checks.js';
import { useTestServer } from './test-server.js';

type Json = Record<string, unknown>;
const testServer = useTestServer();

async function documentOf(): Promise<Json> {
  const response = await testServer().request('/openapi.json');
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toMatch(/^application\/json/);
  return (await response.json()) as Json;
}

const operation = (document: Json, method: string, path: string) =>
  ((document.paths as Record<string, Record<string, Json>>)[path]?.[method] ?? {}) as Json;
const bodySchema = (document: Json, method: string, path: string, mediaType = 'application/json') =>
  ((operation(document, method, path).requestBody as Json).content as Record<string, Json>)[mediaType]
    ?.schema as Json;
const responseSchema = (document: Json, method: string, path: string, status: string) =>
  (
    ((operation(document, method, path).responses as Record<string, Json>)[status]?.content ?? {}) as Record<
      string,
      Json
    >
  )['application/json']?.schema as Json;

/** The answer's JSON, checked against the documented schema of its status. */
async function conforms(document: Json, method: string, path: string, response: Response) {
  const schema = responseSchema(document, method, path, String(response.status));
  expect(schema, `${method} ${path} documents ${response.status}`).toBeDefined();
  const body = await response.json();
  expect(schemaProblems(document, schema, body)).toEqual([]);
  return body as Json;
}

describe('GET /openapi.json', () => {
  it('is a structurally sound OpenAPI 3.1 document, public', async () => {
    const document = await documentOf();
    expect(openApiProblems(document)).toEqual([]);
    expect(operation(document, 'get', '/openapi.json')['x-engram-permission']).toBe('public');
    const schemes = (document.components as Json).securitySchemes as Json;
    expect(schemes.bearerAuth).toEqual(expect.objectContaining({ type: 'http', scheme: 'bearer' }));
    expect(schemes.apiKeyHeader).toEqual({ type: 'apiKey', in: 'header', name: 'X-API-Key' });
  });

  it('documents every registered route (a route without config.docs fails this test)', async () => {
    const document = await documentOf();
    const operations = Object.entries(document.paths as Record<string, Record<string, Json>>).flatMap(
      ([path, item]) =>
        Object.entries(item).map(([method, value]) => ({ route: `${method} ${path}`, value })),
    );
    expect(operations.length).toBeGreaterThanOrEqual(10);
    const undocumented = operations
      .filter(({ value }) => value['x-engram-undocumented'])
      .map(({ route }) => route);
    expect(undocumented, 'routes registered without config.docs').toEqual([]);
    const unrepresentable = JSON.stringify(document).match(/"x-engram-unrepresentable":"[^"]*"/g) ?? [];
    expect(unrepresentable, 'schemas with no JSON Schema form (add .meta())').toEqual([]);
    for (const { route, value } of operations) {
      expect(value.summary, route).toEqual(expect.any(String));
      expect((value.tags as string[]).length, `${route} has a tag`).toBeGreaterThan(0);
    }
  });

  it('marks a route registered without docs, and omits HEAD twins', async () => {
    const app = Fastify();
    registerOpenApi(app);
    app.get('/documented', { config: { docs: { summary: 'ok', tags: ['t'] } } }, async () => ({}));
    app.get('/forgotten/:id', async () => ({}));
    const document = (await app.inject('/openapi.json')).json() as Json;
    await app.close();
    expect(operation(document, 'get', '/forgotten/{id}')['x-engram-undocumented']).toBe(true);
    expect(operation(document, 'get', '/documented')['x-engram-undocumented']).toBeUndefined();
    expect(Object.keys((document.paths as Json)['/documented'] as Json)).toEqual(['get']);
    expect(openApiProblems(document)).toEqual([]);
  });

  it('marks extensions and uses each route’s error shape', async () => {
    const document = await documentOf();
    const append = operation(document, 'post', '/v1/working-memory/{session_id}/messages');
    expect(append['x-engram-extension']).toBe(true);
    expect(Object.keys(append.responses as Json)).toEqual(
      expect.arrayContaining(['200', '400', '412', '500']),
    );
    expect(responseSchema(document, 'post', '/v1/working-memory/{session_id}/messages', '400')).toEqual({
      $ref: '#/components/schemas/EngramError',
    });
    const put = operation(document, 'put', '/v1/working-memory/{session_id}');
    expect(put['x-engram-extension']).toBeUndefined();
    expect(responseSchema(document, 'put', '/v1/working-memory/{session_id}', '422')).toEqual({
      $ref: '#/components/schemas/AmsValidationError',
    });
    const patch = operation(document, 'patch', '/v1/working-memory/{session_id}');
    expect(Object.keys((patch.requestBody as Json).content as Json)).toEqual([
      'application/merge-patch+json',
      'application/json',
    ]);
    const parameters = (operation(document, 'get', '/v1/working-memory/').parameters ?? []) as Json[];
    expect(parameters.find((parameter) => parameter.name === 'limit')).toEqual({
      name: 'limit',
      in: 'query',
      required: false,
      schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 },
    });
    // Every route with an id in its path may answer 404, every route with a body 413; the generic
    // long-term routes answer 409 for owned records, in AMS's shape with engram's `code`.
    expect(Object.keys(operation(document, 'get', '/v1/agents/{agent_id}').responses as Json)).toContain(
      '404',
    );
    expect(Object.keys(operation(document, 'post', '/v1/context').responses as Json)).toContain('413');
    expect(responseSchema(document, 'patch', '/v1/long-term-memory/{memory_id}', '409')).toEqual({
      $ref: '#/components/schemas/AmsError',
    });
    expect((document.components as { schemas: Record<string, Json> }).schemas.AmsError).toMatchObject({
      properties: { detail: { type: 'string' }, code: { type: 'string' } },
      required: ['detail'],
    });
    // The headers clients need: If-Match on conditional writes, ETag and Location on answers.
    for (const [method, path] of [
      ['put', '/v1/working-memory/{session_id}'],
      ['patch', '/v1/working-memory/{session_id}'],
      ['post', '/v1/working-memory/{session_id}/messages'],
      ['patch', '/v1/agents/{agent_id}'],
    ] as const) {
      const headers = ((operation(document, method, path).parameters ?? []) as Json[]).filter(
        (parameter) => parameter.in === 'header',
      );
      expect(
        headers.map((parameter) => parameter.name),
        `${method} ${path}`,
      ).toEqual(['If-Match']);
    }
    const getSession = operation(document, 'get', '/v1/working-memory/{session_id}').responses as Json;
    expect(Object.keys((getSession['200'] as { headers: Json }).headers)).toEqual(['ETag']);
    const upload = operation(document, 'post', '/v1/agents/{agent_id}/knowledge').responses as Json;
    expect(Object.keys((upload['202'] as { headers: Json }).headers)).toEqual(['Location']);
    // A knowledge document may also be sent as the text itself, named in the query.
    const uploadOperation = operation(document, 'post', '/v1/agents/{agent_id}/knowledge');
    const uploadContent = (uploadOperation.requestBody as { content: Record<string, Json> }).content;
    expect(Object.keys(uploadContent)).toEqual(['application/json', 'text/markdown', 'text/plain']);
    expect(uploadContent['text/plain']).toEqual({ schema: { type: 'string' } });
    const uploadQuery = ((uploadOperation.parameters ?? []) as Json[]).filter(
      (parameter) => parameter.in === 'query',
    );
    expect(uploadQuery.map((parameter) => [parameter.name, parameter.required])).toEqual([
      ['name', false],
      ['document_id', false],
    ]);
    // AMS's lax scalars say what to send: a boolean, a number, one of an enum's values.
    const search = bodySchema(document, 'post', '/v1/long-term-memory/search') as {
      properties: Record<string, Json>;
    };
    expect(JSON.stringify(search.properties.search_mode)).toContain('"enum":["semantic","keyword","hybrid"]');
    expect(JSON.stringify(search.properties.recency_boost)).toMatch(/"type":\[?"boolean"/);
    expect(JSON.stringify(search.properties.hybrid_alpha)).toMatch(/"type":\[?"number"/);
    // An engram query parameter on an AMS route is marked in its own schema.
    const get = (operation(document, 'get', '/v1/working-memory/{session_id}').parameters ?? []) as Json[];
    expect(get.find((parameter) => parameter.name === 'include_summarized')).toMatchObject({
      in: 'query',
      required: false,
      schema: { type: 'boolean', 'x-engram-extension': true },
    });
  });
});

describe('the working-memory schemas match what the routes accept and answer', () => {
  const path = '/v1/working-memory/{session_id}';

  it('accepts PUT bodies built from the documented required fields, and from all of them', async () => {
    const { request } = testServer();
    const document = await documentOf();
    const schema = bodySchema(document, 'put', path);
    for (const [id, all] of [
      ['openapi-required', false],
      ['openapi-all', true],
    ] as const) {
      const body = sampleOf(schema, all) as Json;
      if (!all) expect(body).toEqual({});
      const answer = await request(`/v1/working-memory/${id}`, { method: 'PUT', body });
      expect(answer.status, JSON.stringify(body)).toBe(200);
      const saved = await conforms(document, 'put', path, answer);
      if (all) expect((saved.messages as unknown[]).length).toBe(1);
    }
    // The message item's documented required fields are exactly what a message needs.
    const message = sampleOf(((schema.properties as Json).messages as Json).items as Json, false) as Json;
    expect(Object.keys(message).sort()).toEqual(['content', 'role']);
    const accepted = await request('/v1/working-memory/openapi-message', {
      method: 'PUT',
      body: { messages: [message] },
    });
    expect(accepted.status).toBe(200);
    const { content: _omitted, ...withoutContent } = message;
    const refused = await request('/v1/working-memory/openapi-message', {
      method: 'PUT',
      body: { messages: [withoutContent] },
    });
    expect(refused.status).toBe(422);
    await conforms(document, 'put', path, refused);
  });

  it('GET, the list and DELETE answer what is documented', async () => {
    const { request } = testServer();
    const document = await documentOf();
    const messages = Array.from({ length: 3 }, (_, index) => ({ role: 'user', content: `m${index}` }));
    await request('/v1/working-memory/openapi-get', {
      method: 'PUT',
      body: { messages, memories: [{ text: 'a fact' }], data: { k: 1 } },
    });
    const read = await conforms(document, 'get', path, await request('/v1/working-memory/openapi-get'));
    expect((read.memories as unknown[]).length).toBe(1);
    // Every field of the answer is documented, and every documented field is answered.
    const documented = responseSchema(document, 'get', path, '200');
    expect(Object.keys(read).sort()).toEqual(Object.keys(documented.properties as Json).sort());
    expect(Object.keys(read).sort()).toEqual([...(documented.required as string[])].sort());
    await conforms(document, 'get', path, await request('/v1/working-memory/openapi-missing'));
    await conforms(document, 'get', '/v1/working-memory/', await request('/v1/working-memory/?limit=5'));
    await conforms(
      document,
      'get',
      path,
      await request('/v1/working-memory/openapi-get?limit_typo=1&context_window_max=0'),
    );
    await conforms(
      document,
      'delete',
      path,
      await request('/v1/working-memory/openapi-get', { method: 'DELETE' }),
    );
  });

  it('append and PATCH accept documented bodies and answer what is documented', async () => {
    const { request } = testServer();
    const document = await documentOf();
    const appendPath = `${path}/messages`;
    const appendBody = sampleOf(bodySchema(document, 'post', appendPath), false) as Json;
    expect(Object.keys(appendBody)).toEqual(['messages']);
    const appended = await request('/v1/working-memory/openapi-append/messages', {
      method: 'POST',
      body: appendBody,
    });
    expect(appended.status).toBe(200);
    await conforms(document, 'post', appendPath, appended);
    const patchBody = sampleOf(bodySchema(document, 'patch', path, 'application/merge-patch+json'), true);
    const patched = await request('/v1/working-memory/openapi-append', {
      method: 'PATCH',
      body: patchBody,
      headers: { 'content-type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    await conforms(document, 'patch', path, patched);
    const invalid = await request('/v1/working-memory/openapi-append/messages', {
      method: 'POST',
      body: { messages: [] },
    });
    expect(invalid.status).toBe(400);
    await conforms(document, 'post', appendPath, invalid);
    const stale = await request('/v1/working-memory/openapi-append/messages', {
      method: 'POST',
      body: appendBody,
      headers: { 'if-match': '"999"' },
    });
    expect(stale.status).toBe(412);
    await conforms(document, 'post', appendPath, stale);
  });

  it('the zod response schemas parse real answers (as the document says)', async () => {
    const { workingMemoryResponseSchema } = await import(
      '../../src/server/ams/working-memory-response-schemas.js'
    );
    const answer = await (await testServer().request('/v1/working-memory/openapi-all')).json();
    expect(() => z.strictObject(workingMemoryResponseSchema.shape).parse(answer)).not.toThrow();
  });
});
