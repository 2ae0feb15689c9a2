import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { exportTenant } from './export-tenant.js';

describe('an export beside writes', () => {
  it('misses no memory when an earlier one is deleted while it runs', async () => {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      sessionEnd: { idleMs: 0 },
      defaultSources: false,
    });
    // More than one page (500), with ties in creation time (one batch shares its time).
    const ids = Array.from({ length: 1_200 }, (_, index) => `m${String(index).padStart(4, '0')}`);
    for (let start = 0; start < ids.length; start += 300) {
      await engram.memories.create(
        'acme',
        ids.slice(start, start + 300).map((id) => ({ id, text: `Fact number ${id}.` })),
      );
    }
    const exported: string[] = [];
    for await (const line of exportTenant(engram.store, 'acme', { engramVersion: 'test' })) {
      if (line.type !== 'memory') continue;
      exported.push(line.memory.id);
      // A server deletes memories already written to the file.
      if (exported.length === 10) await engram.memories.delete('acme', ['m0000', 'm0001']);
      if (exported.length === 700) await engram.memories.delete('acme', ['m0600']);
    }
    expect(exported).toEqual(ids);
    await engram.close();
  }, 60_000);
});
