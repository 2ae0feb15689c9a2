import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { beforeAll, describe, expect, it } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { grants, type Operation, operations } from '../../src/engine/access/operation-permissions.js';
import { type Role, roles } from '../../src/server/auth/principal.js';
import { connectHttp } from '../mcp/mcp-test-client.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ auth: { mode: 'enabled' } });
const keys: Partial<Record<Role, string>> = {};
const table = Object.entries(operations as Record<string, Operation>);

/** Arguments each tool's schema accepts, so that only the permission check can refuse the call. */
const toolArguments: Record<string, Record<string, unknown>> = {
  search_long_term_memory: { text: 'kettle' },
  get_long_term_memory: { memory_id: 'mem-1' },
  create_long_term_memories: { memories: [{ text: 'Ada likes tea' }] },
  edit_long_term_memory: { memory_id: 'mem-1', text: 'Ada likes coffee' },
  delete_long_term_memories: { memory_ids: ['nothing-here'] },
  memory_prompt: { query: 'tea?', session_id: { eq: 'chat-1' } },
  get_working_memory: { session_id: 'chat-1' },
  append_working_memory: { session_id: 'chat-1', messages: [{ role: 'user', content: 'hi' }] },
  set_working_memory_data: { session_id: 'chat-1', data: { x: 1 } },
  'memory.query': { query: 'tea', user_id: 'ada' },
  get_current_datetime: {},
  get_long_term_memory_history: { memory_id: 'mem-1' },
  'context.assemble': { session_id: 'chat-1', message: 'tea?' },
  'knowledge.search': { query: 'tea' },
  'knowledge.upload': { name: 'Tea guide', content: '# Tea\nSteep for three minutes.' },
  'procedures.list': {},
  'tasks.get': { task_id: 'no-such-task' },
};

beforeAll(async () => {
  const apiKeys = createApiKeys(testServer().engram.store.documents);
  for (const role of roles) keys[role] = (await apiKeys.create({ tenantId: 'acme', role })).key;
});

describe('one permission table for REST and MCP', () => {
  it('every REST route of the table exists and the OpenAPI document states the table’s permission', async () => {
    const document = (await (await testServer().request('/openapi.json')).json()) as {
      paths: Record<string, Record<string, { 'x-engram-permission': string }>>;
    };
    for (const [name, operation] of table) {
      if (operation.rest === null) continue;
      const [method = '', url = ''] = operation.rest.split(' ');
      const path = url.replace(/:(\w+)/g, '{$1}');
      const documented = document.paths[path]?.[method.toLowerCase()];
      expect(documented, `${name}: ${operation.rest}`).toBeDefined();
      expect(documented?.['x-engram-permission'], name).toBe(operation.permission);
    }
  });

  it.each(roles)('REST: the %s role is refused exactly the operations the table denies it', async (role) => {
    for (const [name, operation] of table) {
      if (operation.rest === null) continue;
      const [method = '', url = ''] = operation.rest.split(' ');
      const path = url.replace(':memory_id', 'mem-1').replace(':session_id', 'chat-1');
      const response = await testServer().request(path, {
        method,
        headers: { authorization: `Bearer ${keys[role]}` },
        ...(method === 'GET' || method === 'DELETE' ? {} : { body: {} }),
      });
      const denied = !grants(role, operation.permission);
      expect(response.status === 403, `${role} ${name}: ${response.status}`).toBe(denied);
    }
  });

  it.each(roles)('MCP: the %s role is refused exactly the tools the table denies it', async (role) => {
    const client = await connectHttp(testServer().url, { authorization: `Bearer ${keys[role]}` });
    try {
      const { tools } = await client.listTools();
      const listed = new Set(table.map(([, operation]) => operation.mcp));
      // Every tool the server offers is in the table (define-tool.ts refuses one that is not).
      for (const tool of tools) expect(listed.has(tool.name), tool.name).toBe(true);
      for (const [name, operation] of table) {
        if (operation.mcp === null) continue;
        const result = (await client.callTool({
          name: operation.mcp,
          arguments: toolArguments[operation.mcp] ?? {},
        })) as CallToolResult;
        const code = (result.structuredContent as { error?: { code?: string } } | undefined)?.error?.code;
        const denied = !grants(role, operation.permission);
        expect(code === 'forbidden', `${role} ${name}: ${JSON.stringify(result.structuredContent)}`).toBe(
          denied,
        );
        const tool = tools.find((candidate) => candidate.name === operation.mcp);
        expect(tool?.annotations?.readOnlyHint, name).toBe(operation.permission === 'read');
      }
    } finally {
      await client.close();
    }
  });

  it('memory_prompt needs write on both transports: an inspector is refused on each', async () => {
    expect(operations.memoryPrompt.permission).toBe('write');
    const response = await testServer().request('/v1/memory/prompt', {
      method: 'POST',
      headers: { authorization: `Bearer ${keys.inspector}` },
      body: { query: 'x', session: { session_id: 'chat-1' } },
    });
    expect(response.status).toBe(403);
    const client = await connectHttp(testServer().url, { authorization: `Bearer ${keys.inspector}` });
    try {
      const result = (await client.callTool({
        name: 'memory_prompt',
        arguments: { query: 'x' },
      })) as CallToolResult;
      expect((result.structuredContent as { error: { code: string } }).error.code).toBe('forbidden');
    } finally {
      await client.close();
    }
  });
});
