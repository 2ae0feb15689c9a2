import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { exportTenant } from './export-tenant.js';
import { createTenantImporter, type ImportOutcome } from './import-tenant.js';

const tenant = 'acme';
const open = async () =>
  createEngram({
    store: createMemoryStore(),
    sweepIntervalMs: 0,
    sessionEnd: { idleMs: 0 },
    defaultSources: false,
  });

async function importFile(
  store: Awaited<ReturnType<typeof open>>['store'],
  lines: unknown[],
): Promise<ImportOutcome[]> {
  const importer = createTenantImporter(store, tenant);
  const outcomes: ImportOutcome[] = [];
  for (const line of lines) outcomes.push(...(await importer.importLine(JSON.parse(JSON.stringify(line)))));
  return [...outcomes, ...(await importer.finish())];
}

describe('importing into a store that holds another memory with the same id', () => {
  it('leaves the stored memory as it was instead of writing the file’s versions onto it', async () => {
    const source = await open();
    await source.memories.create(tenant, [{ id: 'm1', text: 'Ada prefers replacements.', userId: 'ada' }]);
    await source.memories.edit(tenant, 'm1', { text: 'Ada always prefers replacements.' });
    await source.memories.create(tenant, [{ id: 'p', text: 'Ada lives in Lisbon.', userId: 'ada' }]);
    const [old] = await source.store.memories.getMemories(tenant, ['p']);
    if (!old) throw new Error('no memory p');
    const { tenantId: _t, supersededBy: _b, validTo: _v, embeddingModel: _m, version: _n, ...fields } = old;
    const later = new Date(Date.parse(old.createdAt) + 1).toISOString();
    await source.store.memories.supersede(tenant, 'p', {
      ...fields,
      id: 'q',
      text: 'Ada lives in Porto.',
      createdAt: later,
      updatedAt: later,
      validFrom: later,
      embedding: null,
    });
    const lines = [];
    for await (const line of exportTenant(source.store, tenant, { engramVersion: 'test' })) lines.push(line);

    // Another engram's memories, created later, under ids the file uses too.
    const target = await open();
    await new Promise((resolve) => setTimeout(resolve, 5));
    await target.memories.create(tenant, [
      { id: 'm1', text: 'Bob is allergic to peanuts.', userId: 'bob' },
      { id: 'p', text: 'Bob lives in Faro.', userId: 'bob' },
    ]);
    const before = await target.store.memories.getMemories(tenant, ['m1', 'p']);
    const outcomes = await importFile(target.store, lines);

    expect(outcomes.filter((outcome) => outcome.status === 'skipped')).toEqual([
      { status: 'skipped', item: 'memory m1', reason: 'another memory with this id exists' },
      { status: 'skipped', item: 'memory m1', reason: 'another memory with this id exists' },
      { status: 'skipped', item: 'memory p', reason: 'another memory with this id exists' },
    ]);
    // Neither edited by the file's later version nor merged away into the file's q.
    expect(await target.store.memories.getMemories(tenant, ['m1', 'p'])).toEqual(before);
    expect((await target.store.memories.memoryHistory(tenant, 'm1')).versions).toHaveLength(1);
    const [q] = await target.store.memories.getMemories(tenant, ['q']);
    expect(q).toMatchObject({ text: 'Ada lives in Porto.', validTo: null });
    await source.close();
    await target.close();
  });
});

describe('importing an agent whose id the store holds', () => {
  it('says whether the stored config differs from the file’s, and keeps the stored one', async () => {
    const source = await open();
    await source.agents.create(tenant, { id: 'support', systemPrompt: 'You help Acme customers.' });
    await source.agents.create(tenant, { id: 'sales', systemPrompt: 'You sell.' });
    const lines = [];
    for await (const line of exportTenant(source.store, tenant, { engramVersion: 'test' })) lines.push(line);
    const target = await open();
    await target.agents.create(tenant, { id: 'support', systemPrompt: 'You help Acme customers.' });
    await target.agents.create(tenant, { id: 'sales', systemPrompt: 'You sell, politely.' });
    const outcomes = await importFile(target.store, lines);
    expect(outcomes.filter((outcome) => outcome.item.startsWith('agent '))).toEqual([
      {
        status: 'skipped',
        item: 'agent sales',
        reason: expect.stringContaining('stored with another config'),
      },
      { status: 'skipped', item: 'agent support', reason: 'already present' },
    ]);
    expect((await target.agents.get(tenant, 'sales')).systemPrompt).toBe('You sell, politely.');
    await Promise.all([source.close(), target.close()]);
  });
});
