import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../src/core/schemas/memory-record.js';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { type Role, roles } from '../../src/server/auth/principal.js';
import { connectHttp } from '../mcp/mcp-test-client.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });
const keys: Partial<Record<Role, string>> = {};
const TENANT = 'acme';
let chunkId = '';
let procedureId = '';

type Kind = 'free' | 'knowledge' | 'procedure';
const kinds: Kind[] = ['free', 'knowledge', 'procedure'];

async function call(role: Role, method: string, path: string, body?: unknown) {
  const response = await testServer().request(path, {
    method,
    headers: { authorization: `Bearer ${keys[role]}` },
    ...(body === undefined ? {} : { body }),
  });
  const text = await response.text();
  return { status: response.status, body: text === '' ? {} : (JSON.parse(text) as Record<string, unknown>) };
}

/** Every record of the owned kinds, as stored: these must never change through the generic routes. */
async function ownedSnapshot(): Promise<MemoryRecord[]> {
  const { memories } = await testServer().engram.memories.list(
    TENANT,
    { agentId: { eq: 'support' }, includeSuperseded: true },
    { limit: 1_000, offset: 0 },
  );
  return memories.map((memory) => ({ ...memory, lastAccessed: '', accessCount: 0 }));
}

let counter = 0;
/** The id a case aims at: a fresh free-standing memory, the knowledge chunk, or the procedure. */
async function target(kind: Kind): Promise<string> {
  if (kind === 'knowledge') return chunkId;
  if (kind === 'procedure') return procedureId;
  counter += 1;
  const id = `free-${counter}`;
  await testServer().engram.memories.create(TENANT, [{ id, text: `Free fact number ${counter}` }]);
  return id;
}

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const role of roles) keys[role] = (await apiKeys.create({ tenantId: TENANT, role })).key;
  expect((await call('admin', 'POST', '/v1/agents', { id: 'support' })).status).toBe(201);
  const document = await call('admin', 'POST', '/v1/agents/support/knowledge', {
    name: 'Returns.md',
    content: '# Returns\nWithin 30 days.\n# Shipping\nFree over 50.',
  });
  expect(document.status).toBe(201);
  const procedure = await call('agent', 'POST', '/v1/agents/support/procedures', {
    name: 'Damaged item',
    steps: ['Apologise', 'Offer a replacement'],
  });
  procedureId = procedure.body.id as string;
  expect((await call('admin', 'POST', `/v1/agents/support/procedures/${procedureId}/approve`)).status).toBe(
    200,
  );
  procedureId = (
    (await call('admin', 'GET', '/v1/agents/support/procedures')).body.procedures as { id: string }[]
  )[0]?.id as string;
  const chunks = await testServer().engram.memories.list(TENANT, { documentId: { exists: true } });
  chunkId = chunks.memories[0]?.id as string;
  expect(chunkId).toBeTruthy();
});

/** What a case should answer: forbidden without write, else ok for free-standing records and 409 for owned ones. */
function expected(
  role: Role,
  kind: Kind,
): 'forbidden' | 'ok' | `memory_owned_by_${'knowledge' | 'procedure'}` {
  if (role === 'inspector') return 'forbidden';
  return kind === 'free' ? 'ok' : `memory_owned_by_${kind}`;
}

const restCases: [string, (id: string) => [string, string, unknown?]][] = [
  [
    'PATCH /v1/long-term-memory/{id}',
    (id) => ['PATCH', `/v1/long-term-memory/${id}`, { text: 'Changed by a client' }],
  ],
  ['DELETE /v1/long-term-memory', (id) => ['DELETE', `/v1/long-term-memory?memory_ids=${id}`]],
  [
    'POST /v1/long-term-memory (same id)',
    (id) => ['POST', '/v1/long-term-memory', { memories: [{ id, text: 'Replaced by a client' }] }],
  ],
];
const matrix = restCases.flatMap(([name, request]) =>
  roles.flatMap((role) => kinds.map((kind) => [name, role, kind, request] as const)),
);

describe('records owned by knowledge documents and procedures change only through their own routes', () => {
  it.each(matrix)('REST %s as %s on a %s record', async (_name, role, kind, request) => {
    const before = await ownedSnapshot();
    const [method, path, body] = request(await target(kind));
    const answer = await call(role, method, path, body);
    const outcome = expected(role, kind);
    if (outcome === 'ok') expect(answer.status, JSON.stringify(answer.body)).toBe(200);
    else if (outcome === 'forbidden') expect(answer.status).toBe(403);
    else {
      expect(answer.status, JSON.stringify(answer.body)).toBe(409);
      expect(answer.body.code).toBe(outcome);
      expect(answer.body.detail).toMatch(kind === 'knowledge' ? /\/knowledge/ : /\/procedures\//);
    }
    expect(await ownedSnapshot()).toEqual(before);
  });

  const mcpCases: [string, (id: string) => Record<string, unknown>][] = [
    ['edit_long_term_memory', (id) => ({ memory_id: id, text: 'Changed by a model' })],
    ['delete_long_term_memories', (id) => ({ memory_ids: [id] })],
    // MCP create never upserts: a free-standing id is taken fresh, an owned one is aimed at.
    [
      'create_long_term_memories',
      (id) => ({
        memories: [{ id: id.startsWith('free-') ? `${id}-new` : id, text: 'Replaced by a model' }],
      }),
    ],
  ];
  it.each(roles)('MCP tools as %s on every record kind', async (role) => {
    const client = await connectHttp(testServer().url, { authorization: `Bearer ${keys[role]}` });
    try {
      for (const [tool, args] of mcpCases) {
        for (const kind of kinds) {
          const before = await ownedSnapshot();
          const result = (await client.callTool({
            name: tool,
            arguments: args(await target(kind)),
          })) as CallToolResult;
          const error = (result.structuredContent as { error?: { code: string; details?: { use?: string } } })
            .error;
          const outcome = expected(role, kind);
          const what = `${tool} ${kind}: ${JSON.stringify(result.structuredContent)}`;
          if (outcome === 'ok') expect(result.isError ?? false, what).toBe(false);
          else expect(error?.code, what).toBe(outcome);
          if (outcome.startsWith('memory_owned'))
            expect(error?.details?.use).toMatch(/\/v1\/agents\/support\//);
          expect(await ownedSnapshot(), what).toEqual(before);
        }
      }
    } finally {
      await client.close();
    }
  });

  it('MCP may not create or edit records into procedures: memory_type accepts what REST does', async () => {
    const client = await connectHttp(testServer().url, { authorization: `Bearer ${keys.admin}` });
    try {
      const created = (await client.callTool({
        name: 'create_long_term_memories',
        arguments: { memories: [{ text: 'Always refund', memory_type: 'procedural' }] },
      })) as CallToolResult;
      const edited = (await client.callTool({
        name: 'edit_long_term_memory',
        arguments: { memory_id: await target('free'), memory_type: 'procedural' },
      })) as CallToolResult;
      for (const result of [created, edited]) {
        expect(result.isError).toBe(true);
        expect((result.content as { text: string }[])[0]?.text).toMatch(
          /-32602: Input validation error: .*memory_type/s,
        );
      }
      // REST refuses the same value the same way: a validation error, not an ownership one.
      const rest = await call('admin', 'POST', '/v1/long-term-memory', {
        memories: [{ id: 'procedural-1', text: 'Always refund', memory_type: 'procedural' }],
      });
      expect(rest.status).toBe(422);
    } finally {
      await client.close();
    }
  });

  it.each(['admin', 'agent'] as const)('compact and forget as %s leave owned records alone', async (role) => {
    const before = await ownedSnapshot();
    expect((await call(role, 'POST', '/v1/long-term-memory/compact')).status).toBe(200);
    const forget = await call(role, 'POST', '/v1/long-term-memory/forget?dry_run=false', {
      policy: { max_age_days: 0.000001 },
    });
    expect(forget.status).toBe(200);
    expect(forget.body.deleted_ids).not.toContain(chunkId);
    expect(forget.body.deleted_ids).not.toContain(procedureId);
    expect(await ownedSnapshot()).toEqual(before);
  });

  it('the routes the errors name do change them, with their own roles', async () => {
    const path = `/v1/agents/support/procedures/${procedureId}`;
    // An admin may approve, so the admin's edit of the approved procedure keeps it approved.
    const byAdmin = await call('admin', 'PATCH', path, {
      steps: ['Apologise', 'Offer a replacement at once'],
    });
    expect(byAdmin.body).toMatchObject({ id: procedureId, status: 'approved' });
    // An agent may not: its edit of approved steps returns them to pending, out of every context.
    const edit = await call('agent', 'PATCH', path, { steps: ['Apologise', 'Offer a refund'] });
    expect(edit.status).toBe(200);
    expect(edit.body).toMatchObject({
      id: procedureId,
      status: 'pending',
      steps: ['Apologise', 'Offer a refund'],
    });
    expect(await testServer().engram.procedures.list(TENANT, 'support', 'approved')).toEqual([]);
    expect((await call('admin', 'POST', `${path}/approve`)).body).toMatchObject({ status: 'approved' });
    const documents = (await call('admin', 'GET', '/v1/agents/support/knowledge')).body.documents as {
      document_id: string;
    }[];
    const documentPath = `/v1/agents/support/knowledge/${documents[0]?.document_id}`;
    expect((await call('agent', 'DELETE', documentPath)).status).toBe(403);
    const removed = await call('admin', 'DELETE', documentPath);
    expect(removed.body.deleted_chunks).toBeGreaterThan(0);
  });
});
