import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

/**
 * The real AMS JavaScript client (agent-memory-client 0.3.2, unmodified build) from the shared
 * folder beside the repository (`../shared`, resolved from the repository root at run time). It
 * is not on the npm registry, so the test skips, saying why, only where that folder is missing.
 */
const repositoryRoot = resolve(dirname(fileURLToPath(import.meta.url)), '../..');
// The CommonJS build, loaded by Node itself (not through the test bundler, which looks for source maps the build lacks).
const clientPath = resolve(repositoryRoot, '../shared/vendor/agent-memory-client-js/dist/index.js');
const clientPresent = existsSync(clientPath);
if (!clientPresent) {
  console.warn(
    `Skipping the AMS client workflow: ${clientPath} is missing (../shared is not beside the repository)`,
  );
}

interface AmsMemory {
  id: string;
  text: string;
  namespace: string | null;
  user_id: string | null;
}
interface MemoryClient {
  createLongTermMemory(memories: unknown[]): Promise<{ status: string }>;
  searchLongTermMemory(options: Record<string, unknown>): Promise<{ memories: AmsMemory[]; total: number }>;
  getLongTermMemory(id: string): Promise<AmsMemory | null>;
  editLongTermMemory(id: string, updates: Record<string, unknown>): Promise<AmsMemory>;
  memoryPrompt(request: Record<string, unknown>): Promise<{ messages: { role: string; content: unknown }[] }>;
  deleteLongTermMemories(ids: string[]): Promise<{ status: string }>;
}

const testServer = useTestServer();

/** The text of every message of a memory prompt, whatever the content's shape. */
const promptText = (prompt: { messages: { content: unknown }[] }): string =>
  prompt.messages
    .map((message) =>
      typeof message.content === 'string' ? message.content : JSON.stringify(message.content),
    )
    .join('\n');

describe.skipIf(!clientPresent)('the real AMS JS client against engram', () => {
  it('create → search → get → edit → get → memory prompt → delete, with one stable id', async () => {
    const { MemoryAPIClient } = createRequire(import.meta.url)(clientPath) as {
      MemoryAPIClient: new (config: { baseUrl: string; defaultNamespace?: string }) => MemoryClient;
    };
    const client = new MemoryAPIClient({ baseUrl: testServer().url, defaultNamespace: 'workflow' });
    const id = '01JWORKFLOWSTABLEID000000A';

    expect(
      await client.createLongTermMemory([
        { id, text: 'Grace prefers window seats on long flights', namespace: 'workflow', user_id: 'grace' },
        { id: `${id}B`, text: 'Grace is allergic to peanuts', namespace: 'workflow', user_id: 'grace' },
      ]),
    ).toMatchObject({ status: 'ok' });

    const found = await client.searchLongTermMemory({
      text: 'window seat on a flight',
      namespace: { eq: 'workflow' },
      limit: 5,
    });
    expect(found.memories[0]?.id).toBe(id);

    expect(await client.getLongTermMemory(id)).toMatchObject({
      id,
      text: 'Grace prefers window seats on long flights',
    });

    const edited = await client.editLongTermMemory(id, { text: 'Grace prefers aisle seats on long flights' });
    expect(edited).toMatchObject({ id, text: 'Grace prefers aisle seats on long flights' });
    expect(await client.getLongTermMemory(id)).toMatchObject({
      id,
      text: 'Grace prefers aisle seats on long flights',
    });
    const afterEdit = await client.searchLongTermMemory({
      text: 'aisle seats',
      namespace: { eq: 'workflow' },
      limit: 5,
    });
    expect(afterEdit.memories.map((memory) => memory.id)).toContain(id);
    expect(afterEdit.total).toBe(2);

    const prompt = await client.memoryPrompt({
      query: 'Which seat does Grace like on long flights?',
      long_term_search: {
        text: 'Which seat does Grace like on long flights?',
        namespace: { eq: 'workflow' },
        limit: 5,
      },
    });
    const text = promptText(prompt);
    expect(text).toContain(`Grace prefers aisle seats on long flights (ID: ${id})`);
    expect(text).not.toContain('window seats');

    expect(await client.deleteLongTermMemories([id])).toMatchObject({ status: 'ok, deleted 1 memories' });
    expect(await client.getLongTermMemory(id)).toBeNull();
    const history = await testServer().request(`/v1/long-term-memory/${id}/history`);
    expect(history.status).toBe(404);
  });
});
