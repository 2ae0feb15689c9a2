import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ bodyLimitBytes: 100_000 });

const sentinelPath = '/v1/working-memory/sentinel?namespace=protected&user_id=owner';
const validBody = {
  namespace: 'protected',
  user_id: 'owner',
  messages: [{ role: 'user', content: 'keep me', created_at: '2025-01-01T00:00:00Z' }],
  memories: [{ text: 'a fact', topics: ['t'] }],
  data: { counter: 1 },
  context: 'summary',
  ttl_seconds: 86_400,
};

const printable = fc.stringMatching(/^[\x20-\x7e]{0,40}$/);
const oddText = fc.oneof(
  fc.string({ maxLength: 40 }),
  fc.string({ unit: 'binary', maxLength: 20 }),
  fc.constantFrom(
    '',
    ' ',
    '..',
    '%',
    '%zz',
    '%2F',
    'a/b',
    '%00',
    '?',
    '#',
    'x'.repeat(300),
    'é✓',
    'sentinel ',
  ),
);
const numberText = fc.oneof(
  fc.integer({ min: -1_000_000, max: 1_000_000 }).map(String),
  fc.constantFrom('1e309', 'NaN', '-0', '99999999999999999999', '1.5', ' 7 ', '0x10', '', 'true'),
);
const contentType = fc.constantFrom(
  undefined,
  'application/json',
  'application/merge-patch+json',
  'text/plain',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=x',
  'application/json; charset=latin1',
  ';;;',
);

const encode = (text: string) => {
  try {
    return encodeURIComponent(text);
  } catch {
    return 'lone-surrogate';
  }
};

/** Bodies: valid ones with a field replaced by anything, arbitrary JSON, truncated JSON, junk text. */
const body = fc.oneof(
  fc
    .tuple(fc.constantFrom(...Object.keys(validBody), 'messages.0.role', 'memories.0.topics'), fc.jsonValue())
    .map(([field, value]) => {
      const copy = structuredClone(validBody) as Record<string, unknown>;
      const [head = '', index, leaf] = field.split('.');
      if (leaf)
        ((copy[head] as Record<string, unknown>[])[Number(index)] as Record<string, unknown>)[leaf] = value;
      else copy[head] = value;
      return JSON.stringify(copy);
    }),
  fc.jsonValue().map((value) => JSON.stringify(value)),
  fc.nat({ max: 200 }).map((cut) => JSON.stringify(validBody).slice(0, cut)),
  fc.string({ maxLength: 60 }),
);

const sessionPath = oddText
  .filter((id) => id.trim() !== 'sentinel')
  .map((id) => `/v1/working-memory/${encode(id)}`);
const query = fc.dictionary(
  fc.constantFrom(
    'limit',
    'offset',
    'namespace',
    'user_id',
    'model_name',
    'context_window_max',
    'recent_messages_limit',
  ),
  fc.oneof(numberText, printable),
  { maxKeys: 4 },
);
const route = fc.oneof(
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constant('GET'),
      path: fc.constantFrom('/v1/working-memory/', '/v1/working-memory'),
    }),
  },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('GET'), path: sessionPath }) },
  { weight: 4, arbitrary: fc.record({ method: fc.constant('PUT'), path: sessionPath }) },
  { weight: 1, arbitrary: fc.record({ method: fc.constant('DELETE'), path: sessionPath }) },
  {
    weight: 2,
    arbitrary: fc.record({
      method: fc.constant('POST'),
      path: sessionPath.map((path) => `${path}/messages`),
    }),
  },
  { weight: 2, arbitrary: fc.record({ method: fc.constant('PATCH'), path: sessionPath }) },
  {
    weight: 1,
    arbitrary: fc.record({
      method: fc.constantFrom('GET', 'PUT', 'POST', 'DELETE', 'PATCH'),
      path: fc.oneof(sessionPath, fc.constantFrom('/v1/health', '/v1/', '/v1/working-memory//x', '/ready')),
    }),
  },
);
const randomRequest = fc
  .tuple(
    route,
    fc.record({
      query,
      contentType,
      ifMatch: fc.option(printable, { nil: undefined }),
      body: fc.option(body, { nil: undefined, freq: 8 }),
    }),
  )
  .map(([target, rest]) => ({ ...target, ...rest }));

interface FuzzRequest {
  method: string;
  path: string;
  query?: Record<string, string>;
  contentType?: string | undefined;
  ifMatch?: string | undefined;
  body?: string | undefined;
}

async function send(request: FuzzRequest) {
  const query = new URLSearchParams(request.query ?? {}).toString();
  const separator = request.path.includes('?') ? '&' : '?';
  const headers: Record<string, string> = {};
  if (request.contentType !== undefined) headers['content-type'] = request.contentType;
  if (request.ifMatch !== undefined) headers['if-match'] = request.ifMatch;
  const withBody = request.method !== 'GET' && request.body !== undefined;
  return fetch(`${testServer().url}${request.path}${query ? separator + query : ''}`, {
    method: request.method,
    headers,
    ...(withBody ? { body: request.body } : {}),
  });
}

async function snapshot() {
  const response = await testServer().request(sentinelPath);
  return { status: response.status, etag: response.headers.get('etag'), body: await response.json() };
}

describe('working memory under random and hostile requests', () => {
  it('never answers 5xx, always answers JSON, and leaves an existing session unchanged', async () => {
    expect((await testServer().request(sentinelPath, { method: 'PUT', body: validBody })).status).toBe(200);
    const before = await snapshot();

    await fc.assert(
      fc.asyncProperty(randomRequest, async (request) => {
        const response = await send(request);
        expect(response.status, `${request.method} ${request.path}`).toBeLessThan(500);
        expect(response.headers.get('content-type')).toMatch(/^application\/json/);
        await response.arrayBuffer();
      }),
      { numRuns: 300 },
    );
    expect(await snapshot()).toEqual(before);
  });

  it('rejects every invalid write to the existing session with a 4xx and changes nothing', async () => {
    const before = await snapshot();
    const invalidWrite = fc.oneof(
      body
        .filter((text) => {
          try {
            const parsed = JSON.parse(text) as unknown;
            return JSON.stringify(parsed) !== JSON.stringify(validBody);
          } catch {
            return true;
          }
        })
        .map((text) => ({
          method: 'PUT',
          path: sentinelPath,
          contentType: 'application/json',
          ifMatch: '"999"',
          body: text,
        })),
      contentType
        .filter((type) => type !== undefined && !/json/.test(type))
        .map((type) => ({
          method: 'PUT',
          path: sentinelPath,
          contentType: type,
          body: JSON.stringify(validBody),
        })),
      fc.jsonValue().map((value) => ({
        method: 'PATCH',
        path: sentinelPath,
        contentType: 'application/merge-patch+json',
        ifMatch: '"0"',
        body: JSON.stringify({ data: { counter: value } }),
      })),
      fc.jsonValue().map((value) => ({
        method: 'POST',
        path: sentinelPath.replace('sentinel?', 'sentinel/messages?'),
        contentType: 'application/json',
        body: JSON.stringify({ messages: [{ role: 'user', content: value }] }),
        ifMatch: '"12345"',
      })),
    );
    await fc.assert(
      fc.asyncProperty(invalidWrite, async (request) => {
        const response = await send(request);
        expect(response.status).toBeGreaterThanOrEqual(400);
        expect(response.status).toBeLessThan(500);
        await response.arrayBuffer();
      }),
      { numRuns: 200 },
    );
    expect(await snapshot()).toEqual(before);
  });
});
