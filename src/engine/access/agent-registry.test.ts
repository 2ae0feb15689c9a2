import { describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError, VersionConflictError } from '../../core/errors.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { AGENTS_COLLECTION, createAgentRegistry } from './agent-registry.js';

const registryWith = () => {
  const store = createMemoryStore();
  return { store, agents: createAgentRegistry(store.documents) };
};

describe('createAgentRegistry', () => {
  it('creates, reads, lists and deletes agents with their memory config defaults filled', async () => {
    const { agents } = registryWith();
    const created = await agents.create('t1', {
      id: 'support',
      systemPrompt: 'You help with returns.',
      memory: { maxWorkingMemoryTokens: 4_000, model: 'gpt-4o-mini' },
    });
    expect(created).toMatchObject({ id: 'support', version: 1, systemPrompt: 'You help with returns.' });
    expect(created.memory).toMatchObject({ maxWorkingMemoryTokens: 4_000, reservedOutputTokens: 1_000 });
    expect(await agents.get('t1', 'support')).toEqual(created);
    const generated = await agents.create('t1', {});
    expect(generated.id).toMatch(/^agent_[0-9A-Z]{26}$/);
    expect(await agents.list('t1')).toMatchObject({
      total: 2,
      agents: [{ id: generated.id }, { id: 'support' }],
    });
    await agents.delete('t1', 'support');
    await expect(agents.get('t1', 'support')).rejects.toBeInstanceOf(NotFoundError);
    await expect(agents.delete('t1', 'support')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('refuses a second agent under the same id and invalid configs', async () => {
    const { agents } = registryWith();
    await agents.create('t1', { id: 'a' });
    await expect(agents.create('t1', { id: 'a' })).rejects.toBeInstanceOf(VersionConflictError);
    await expect(
      agents.create('t1', { id: 'b', memory: { maxWorkingMemoryTokens: 100, reservedOutputTokens: 100 } }),
    ).rejects.toBeInstanceOf(ValidationError);
    await expect(agents.create('t1', { id: '' })).rejects.toBeInstanceOf(ValidationError);
    // A misspelt field or setting is refused, not dropped for its default.
    const misspelt = [
      { id: 'c', systemPromt: 'You help with returns.' },
      { id: 'c', memory: { semanticTopk: 5 } },
      { id: 'c', memory: { sectionCaps: { knowlege: 500 } } },
    ];
    for (const input of misspelt) {
      await expect(agents.create('t1', input as never), JSON.stringify(input)).rejects.toThrow(
        /systemPromt|Unknown memory setting "(semanticTopk|knowlege)"/,
      );
    }
    await expect(agents.update('t1', 'a', { memory: { semanticTopk: 5 } })).rejects.toThrow(
      /Unknown memory setting "semanticTopk"/,
    );
    await expect(agents.get('t1', 'c')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('merges memory changes, bumps the version and honours an expected version', async () => {
    const { agents } = registryWith();
    await agents.create('t1', { id: 'a', memory: { semanticTopK: 7 } });
    const updated = await agents.update('t1', 'a', { memory: { episodicTopK: 1 } });
    expect(updated.memory).toMatchObject({ semanticTopK: 7, episodicTopK: 1 });
    expect(updated.version).toBe(2);
    await expect(
      agents.update('t1', 'a', { systemPrompt: 'x' }, { expectedVersion: 1 }),
    ).rejects.toBeInstanceOf(VersionConflictError);
    const prompt = await agents.update('t1', 'a', { systemPrompt: 'Be brief.' }, { expectedVersion: 2 });
    expect(prompt).toMatchObject({ systemPrompt: 'Be brief.', version: 3 });
    expect(prompt.memory.semanticTopK).toBe(7);
    // A merge that breaks a cross-field rule is refused and changes nothing.
    await expect(
      agents.update('t1', 'a', { memory: { reservedOutputTokens: 8_000 } }),
    ).rejects.toBeInstanceOf(ValidationError);
    expect((await agents.get('t1', 'a')).version).toBe(3);
    await expect(agents.update('t1', 'missing', {})).rejects.toBeInstanceOf(NotFoundError);
  });

  it('loses no concurrent edit: unconditional updates retry on the fresh state', async () => {
    const { agents } = registryWith();
    await agents.create('t1', { id: 'a' });
    await Promise.all([
      agents.update('t1', 'a', { memory: { semanticTopK: 9 } }),
      agents.update('t1', 'a', { systemPrompt: 'Concurrent.' }),
    ]);
    const final = await agents.get('t1', 'a');
    expect(final).toMatchObject({ systemPrompt: 'Concurrent.', version: 3 });
    expect(final.memory.semanticTopK).toBe(9);
  });

  it('resolves the built-in default agent until one is stored, and never an unknown id', async () => {
    const { agents } = registryWith();
    expect(await agents.resolve('t1')).toMatchObject({ id: 'default', version: 0 });
    await agents.create('t1', { id: 'default', systemPrompt: 'Tenant default.' });
    expect(await agents.resolve('t1', null)).toMatchObject({ systemPrompt: 'Tenant default.', version: 1 });
    await expect(agents.resolve('t1', 'ghost')).rejects.toBeInstanceOf(NotFoundError);
  });

  it('keeps tenants apart and stores agents in the agents collection', async () => {
    const { store, agents } = registryWith();
    await agents.create('t1', { id: 'a', systemPrompt: 'one' });
    await expect(agents.get('t2', 'a')).rejects.toBeInstanceOf(NotFoundError);
    await expect(agents.delete('t2', 'a')).rejects.toBeInstanceOf(NotFoundError);
    expect((await agents.list('t2')).total).toBe(0);
    await agents.create('t2', { id: 'a', systemPrompt: 'two' });
    expect((await agents.get('t1', 'a')).systemPrompt).toBe('one');
    expect(await store.documents.getDocument('t1', AGENTS_COLLECTION, 'a')).toMatchObject({ version: 1 });
  });
});
