import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { afterAll, describe, expect, it } from 'vitest';
import { PAGE_TEXT_CHARS } from '../core/take-within-chars.js';
import { createEngram } from '../engram.js';
import { createMemoryStore } from '../stores/memory/memory-store.js';
import { createMcpServer } from './create-mcp-server.js';

const engramPromise = createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
afterAll(async () => (await engramPromise).close());

describe('memory.query', () => {
  it('bounds the records it answers to about PAGE_TEXT_CHARS and counts those left out', async () => {
    const engram = await engramPromise;
    // Five records of 100,000 characters of metadata each: 500,000 in all.
    const padding = 'm'.repeat(100_000);
    await engram.memories.create(
      'default',
      [1, 2, 3, 4, 5].map((n) => ({
        text: `Ada's coffee note ${n}`,
        userId: 'ada',
        metadata: { padding },
      })),
    );
    const server = createMcpServer({
      engram,
      tenantId: 'default',
      authorize: () => {},
      onUnexpected: () => {},
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await server.connect(serverSide);
    const client = new Client({ name: 'test', version: '1.0.0' });
    await client.connect(clientSide);
    const result = await client.callTool({
      name: 'memory.query',
      arguments: { query: 'coffee note', user_id: 'ada', limit: 100 },
    });
    const answer = result.structuredContent as {
      items: { id: string; memory: unknown }[];
      memories_omitted: number;
    };
    expect(answer.items).toHaveLength(5);
    const shown = answer.items.filter((item) => item.memory !== null).length;
    expect(shown).toBe(2);
    expect(answer.memories_omitted).toBe(3);
    expect(JSON.stringify(answer).length).toBeLessThan(PAGE_TEXT_CHARS);
    await client.close();
  });
});
