import { describe, expect, it } from 'vitest';
import type { MemorySource } from './memory-source.js';
import { MAX_SOURCE_ITEMS, runSources } from './run-sources.js';

const request = () => ({
  tenantId: 't',
  namespace: null,
  userId: null,
  sessionId: 's',
  agentId: 'a',
  query: 'q',
  limit: 5,
});

describe('runSources', () => {
  it('runs sources in parallel; a slow or failing source degrades, the rest still arrive', async () => {
    let aborted = false;
    const sources: MemorySource[] = [
      { name: 'fast', section: 'knowledge', retrieve: async () => [{ id: 'k1', text: 'fact', score: 1 }] },
      {
        name: 'slow',
        section: 'episodes',
        timeoutMs: 20,
        retrieve: (_request, signal) =>
          new Promise((resolve) => {
            signal.addEventListener('abort', () => {
              aborted = true;
            });
            setTimeout(() => resolve([]), 5_000).unref();
          }),
      },
      {
        name: 'broken',
        section: 'procedure',
        retrieve: async () => {
          throw new Error('index offline');
        },
      },
    ];
    const started = Date.now();
    const { items, reports } = await runSources(sources, request, 1_000);
    expect(Date.now() - started).toBeLessThan(2_000);
    expect(items.knowledge).toHaveLength(1);
    expect(reports.map((report) => [report.name, report.status])).toEqual([
      ['fast', 'ok'],
      ['slow', 'timeout'],
      ['broken', 'error'],
    ]);
    expect(reports[2]?.error).toBe('index offline');
    expect(aborted).toBe(true);
  });

  it('keeps a misbehaving source from failing the turn: wrong section, bad items, too many items', async () => {
    const many = Array.from({ length: 150_000 }, (_, index) => ({ id: `m${index}`, text: 'x', score: 0.5 }));
    const sources = [
      { name: 'nowhere', section: 'history', retrieve: async () => [{ id: 'h', text: 'x', score: 1 }] },
      {
        name: 'sloppy',
        section: 'knowledge',
        retrieve: async () => [
          { id: 'good', text: 'fine', score: 0.9 },
          { id: 'no-text', score: 1 },
          { id: 'nan', text: 'x', score: Number.NaN },
          { text: 'no id', score: 1 },
          null,
        ],
      },
      { name: 'flood', section: 'episodes', retrieve: async () => many },
      { name: 'not-a-list', section: 'procedure', retrieve: async () => ({ id: 'p' }) },
    ] as unknown as MemorySource[];
    const { items, reports } = await runSources(sources, request, 1_000);
    expect(items.knowledge.map((item) => item.id)).toEqual(['good']);
    expect(items.episodes).toHaveLength(MAX_SOURCE_ITEMS);
    expect(items.procedure).toEqual([]);
    expect(reports.map((report) => [report.name, report.status, report.itemCount])).toEqual([
      ['nowhere', 'error', 0],
      ['sloppy', 'error', 1],
      ['flood', 'error', MAX_SOURCE_ITEMS],
      ['not-a-list', 'error', 0],
    ]);
    expect(reports[0]?.error).toContain('Unknown section history');
    expect(reports[1]?.error).toContain('4 items left out');
    expect(reports[2]?.error).toContain('MAX_SOURCE_ITEMS');
  });
});
