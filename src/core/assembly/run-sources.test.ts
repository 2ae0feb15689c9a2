import { describe, expect, it } from 'vitest';
import type { MemorySource } from './memory-source.js';
import { runSources } from './run-sources.js';

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
});
