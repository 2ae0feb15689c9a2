import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { describe, expect, it } from 'vitest';
import { createMcpServer } from './create-mcp-server.js';

describe('the long-term memory tools’ input schemas', () => {
  it('list the memory types REST accepts for the same operation, not procedural', async () => {
    const server = createMcpServer({} as Parameters<typeof createMcpServer>[0]);
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    const { tools } = await client.listTools();
    const schemaOf = (name: string): unknown => tools.find((tool) => tool.name === name)?.inputSchema;
    const created = schemaOf('create_long_term_memories') as {
      properties: { memories: { items: { properties: Record<string, unknown> } } };
    };
    const edited = schemaOf('edit_long_term_memory') as { properties: Record<string, unknown> };
    for (const memoryType of [
      created.properties.memories.items.properties.memory_type,
      edited.properties.memory_type,
    ]) {
      const text = JSON.stringify(memoryType);
      expect(text).toContain('"enum":["semantic","episodic","message"]');
      expect(text).not.toContain('procedural');
      expect(text).toMatch(/message \(a conversation message\)/);
    }
    await client.close();
  });
});
