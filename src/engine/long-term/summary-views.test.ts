import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import type { ChatRequest, LlmProvider } from '../../providers/llm/llm-provider.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createJobRunner } from '../jobs/job-runner.js';
import { createSummaryViews } from './summary-views.js';

/** A model that answers with the user lines it was given, and records every request. */
function echoModel(): LlmProvider & { requests: ChatRequest[] } {
  const requests: ChatRequest[] = [];
  return {
    model: 'echo',
    requests,
    async complete(request) {
      requests.push(request);
      const lines = (request.messages.at(-1)?.content ?? '')
        .split('\n')
        .filter((line) => line.startsWith('- '));
      return { content: lines.join(' '), finishReason: 'stop', usage: null, model: 'echo' };
    },
    async *stream() {
      yield { delta: '', finishReason: 'stop' };
    },
  };
}

async function setup(llm: LlmProvider | null = echoModel()) {
  const store = createMemoryStore();
  const engram = await createEngram({ store, sweepIntervalMs: 0, defaultSources: false });
  // The test drives its own runner: engram's must not race it.
  await engram.jobs.close();
  const jobs = createJobRunner({ store: store.jobs });
  const views = createSummaryViews({
    documents: store.documents,
    memories: engram.memories,
    llm,
    jobs,
    clock: () => new Date(),
  });
  await engram.memories.create('t', [
    { id: 'a1', text: 'Ada likes tea.', userId: 'ada', namespace: 'shop' },
    {
      id: 'a2',
      text: 'Ada uses strategy x.',
      userId: 'ada',
      metadata: { __ams: { extraction_strategy: 'x' } },
    },
    { id: 'b1', text: 'Bo likes coffee.', userId: 'bo', memoryType: 'episodic' },
    { id: 'p1', text: 'Procedure text.', userId: 'ada', memoryType: 'procedural' },
    { id: 'n1', text: 'No user here.' },
    { id: 'k1', text: 'Chunk of a manual.', agentId: 'support', documentId: 'doc_manual' },
  ]);
  return { views, jobs };
}

describe('summary views', () => {
  it('a full run summarizes each group; memories without a group value and procedures are left out', async () => {
    const { views, jobs } = await setup();
    const view = await views.create('t', { source: 'long_term', groupBy: ['userId'] });
    const job = await views.startFullRun('t', view.id);
    expect(job.payload).toEqual({ view_id: view.id });
    expect(await jobs.runOnce()).toBe(true);
    expect(await jobs.get('t', job.id)).toMatchObject({
      status: 'succeeded',
      result: { partitions: 2, memories: 3 },
    });
    const partitions = await views.listPartitions('t', view.id);
    const byUser = Object.fromEntries(partitions.map((partition) => [partition.group.userId, partition]));
    expect(byUser.ada).toMatchObject({ memoryCount: 2, empty: false });
    expect(byUser.ada?.summary).not.toContain('Procedure');
    expect(byUser.bo?.summary).toBe('- Bo likes coffee.');
    expect(await views.listPartitions('t', view.id, { userId: 'bo' })).toHaveLength(1);
  });

  it('a view without groups summarizes memories, not an agent’s knowledge chunks', async () => {
    const { views } = await setup();
    const view = await views.create('t', { source: 'long_term' });
    const partition = await views.runPartition('t', view.id, {});
    expect(partition.memoryCount).toBe(4);
    expect(partition.summary).not.toContain('Chunk of a manual');
  });

  it('filters: extraction strategy, memory type, and a group contradicting a static filter is empty', async () => {
    const { views } = await setup();
    const strategy = await views.create('t', {
      source: 'long_term',
      groupBy: ['userId'],
      filters: { extractionStrategy: 'x' },
    });
    expect(await views.runPartition('t', strategy.id, { userId: 'ada' })).toMatchObject({
      summary: '- Ada uses strategy x.',
      memoryCount: 1,
    });
    const typed = await views.create('t', {
      source: 'long_term',
      groupBy: ['userId'],
      filters: { userId: 'bo' },
    });
    expect(await views.runPartition('t', typed.id, { userId: 'ada' })).toMatchObject({
      empty: true,
      memoryCount: 0,
    });
    const episodic = await views.create('t', { source: 'long_term', filters: { memoryType: 'episodic' } });
    expect(await views.runPartition('t', episodic.id, {})).toMatchObject({ summary: '- Bo likes coffee.' });
  });

  it('validates group keys, finds nothing across tenants, and needs an LLM to run', async () => {
    const { views } = await setup();
    const view = await views.create('t', { source: 'long_term', groupBy: ['userId'] });
    await expect(views.runPartition('t', view.id, { namespace: 'shop' })).rejects.toMatchObject({
      code: 'validation_failed',
    });
    await expect(views.runPartition('other', view.id, { userId: 'ada' })).rejects.toMatchObject({
      code: 'not_found',
    });
    expect(await views.get('other', view.id)).toBeNull();
    const { views: offline } = await setup(null);
    const stored = await offline.create('t', { source: 'long_term' });
    await expect(offline.runPartition('t', stored.id, {})).rejects.toMatchObject({
      code: 'llm_not_configured',
    });
    await expect(offline.startFullRun('t', stored.id)).rejects.toMatchObject({ code: 'llm_not_configured' });
  });

  it('a run of a deleted view fails for good', async () => {
    const { views, jobs } = await setup();
    const view = await views.create('t', { source: 'long_term' });
    const job = await views.startFullRun('t', view.id);
    expect(await views.delete('t', view.id)).toBe(true);
    await jobs.runOnce();
    expect(await jobs.get('t', job.id)).toMatchObject({ status: 'failed', error: { code: 'not_found' } });
  });
});
