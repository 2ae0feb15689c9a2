import { describe, expect, it } from 'vitest';
import { MAX_SEARCH_POOL } from '../../src/retrieval/hybrid-search.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer();

describe('search pages past MAX_SEARCH_POOL', () => {
  it('next_offset never points at an offset the server refuses', async () => {
    const { engram, request } = testServer();
    for (let batch = 0; batch < 11; batch++) {
      await engram.memories.create(
        'default',
        Array.from({ length: 1_000 }, (_, index) => ({ text: `note ${batch} ${index}` })),
        { deduplicate: false },
      );
    }
    const page = async (offset: number) => {
      const response = await request('/v1/long-term-memory/search', {
        method: 'POST',
        body: { text: '', limit: 100, offset },
      });
      return {
        status: response.status,
        body: (await response.json()) as { total: number; next_offset: number | null },
      };
    };
    const last = await page(MAX_SEARCH_POOL - 100);
    expect(last.body).toMatchObject({ total: 11_000, next_offset: MAX_SEARCH_POOL });
    const beyond = await page(MAX_SEARCH_POOL);
    expect(beyond.status).toBe(200);
    // total still says how many match; there is no next page to ask for.
    expect(beyond.body).toMatchObject({ total: 11_000, next_offset: null });
    expect((await page(MAX_SEARCH_POOL + 100)).status).toBe(400);
  });
});
