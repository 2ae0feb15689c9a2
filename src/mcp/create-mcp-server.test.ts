import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from './create-mcp-server.js';

/** The validator the SDK's server holds (a private field: what the SDK would otherwise make). */
const validatorOf = (server: ReturnType<typeof createMcpServer>) =>
  (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;

describe('createMcpServer', () => {
  it('shares one JSON Schema validator between servers instead of compiling one per request', () => {
    // The HTTP transport makes a server per request.
    const context = {} as Parameters<typeof createMcpServer>[0];
    const [first, second] = [createMcpServer(context), createMcpServer(context)];
    expect(validatorOf(first)).toBeDefined();
    expect(validatorOf(second)).toBe(validatorOf(first));
  });
});

describe('initialize', () => {
  it('announces no tools/list_changed notification: the tool list never changes', async () => {
    const server = createMcpServer({} as Parameters<typeof createMcpServer>[0]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    expect(client.getServerCapabilities()?.tools).toEqual({ listChanged: false });
    await client.close();
  });
});

describe('a call of an unknown tool', () => {
  it('quotes the name it was given cut, not whole', async () => {
    const server = createMcpServer({} as Parameters<typeof createMcpServer>[0]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    const result = await client.callTool({ name: `no_such_tool_${'Z'.repeat(5_000)}`, arguments: {} });
    const [content] = result.content as { text: string }[];
    expect(result.isError).toBe(true);
    expect(content?.text).toMatch(/^MCP error -32602: Tool no_such_tool_Z+… \(5013 characters\) not found$/);
    expect(content?.text.length).toBeLessThan(200);
    await client.close();
  });
});
