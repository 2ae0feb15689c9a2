import { afterEach, describe, expect, it } from 'vitest';
import { ValidationError } from '../../core/errors.js';
import { nextTurn } from '../../core/event-loop-slicer.js';
import type { JsonObject } from '../../core/schemas/json.js';
import { createEngram, type Engram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { BACKGROUND_DOCUMENT_CHARS, INGEST_DOCUMENT_JOB } from './knowledge-ingest-job.js';

/** A Markdown document of `sections` sections of a few paragraphs each. */
function bigDocument(sections: number): string {
  return Array.from(
    { length: sections },
    (_, section) =>
      `## Section ${section}\n\n` +
      Array.from(
        { length: 3 },
        (_, paragraph) =>
          `Paragraph ${paragraph} of section ${section} explains policy number ${section * 3 + paragraph} ` +
          'in enough words to make a chunk of its own once the section is packed together.',
      ).join('\n\n'),
  ).join('\n\n');
}

/** Counts event-loop turns (setImmediate callbacks) until stopped: what a health request needs. */
function turnCounter() {
  const state = { turns: 0, running: true };
  (async () => {
    while (state.running) {
      await nextTurn();
      state.turns++;
    }
  })();
  return state;
}

let engram: Engram | undefined;
afterEach(async () => {
  await engram?.close();
  engram = undefined;
});

describe('knowledge ingest in slices', () => {
  it('lets the event loop run between steps while chunking and storing a large document', async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const ticker = turnCounter();
    const phases = new Set<string>();
    const document = await engram.knowledge.ingest(
      't1',
      { agentId: 'hr', name: 'Handbook.md', content: bigDocument(200) },
      { sliceMs: 0, onProgress: (progress) => void phases.add(progress.phase) },
    );
    ticker.running = false;
    // 200 sections of 3 paragraphs are 600+ steps; a synchronous ingest lets no turn through.
    expect(ticker.turns).toBeGreaterThanOrEqual(600);
    expect([...phases]).toEqual(['chunking', 'storing', 'done']);
    expect(document.chunks).toBeGreaterThanOrEqual(200);
  });

  it('runs a background ingest as a job whose progress is reported and that stores every chunk', async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const content = bigDocument(300);
    const { task, documentId } = await engram.knowledge.ingestInBackground('t1', {
      agentId: 'hr',
      name: 'Handbook.md',
      content,
    });
    expect(task).toMatchObject({ type: INGEST_DOCUMENT_JOB, status: 'pending' });
    const seen: JsonObject[] = [];
    const ticker = turnCounter();
    for (let poll = 0; poll < 100_000; poll++) {
      const job = await engram.jobs.get('t1', task.id);
      const progress = await engram.taskProgress.get('t1', task.id);
      if (progress) seen.push(progress);
      if (job?.status === 'succeeded' || job?.status === 'failed') break;
      await nextTurn();
    }
    ticker.running = false;
    const job = await engram.jobs.get('t1', task.id);
    expect(job?.status).toBe('succeeded');
    const [listed] = await engram.knowledge.list('t1', 'hr');
    expect(listed).toMatchObject({ documentId, chunks: job?.result?.chunks });
    expect(seen.at(-1)).toMatchObject({ phase: 'done', total: job?.result?.chunks, unit: 'chunks' });
    expect(seen.some((progress) => progress.phase === 'queued')).toBe(true);
    expect(ticker.turns).toBeGreaterThan(1);
    // Another tenant sees neither the task nor its progress.
    expect(await engram.jobs.get('t2', task.id)).toBeNull();
    expect(await engram.taskProgress.get('t2', task.id)).toBeNull();
  });

  it('takes documents larger than a job payload may be (1 MiB): the text waits beside the job', async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const paragraph = (index: number) =>
      `Paragraph ${index}: ${'the policy applies to every office. '.repeat(50)}`;
    const content = Array.from({ length: 700 }, (_, index) => paragraph(index)).join('\n\n');
    expect(content.length).toBeGreaterThan(1_200_000);
    const { task } = await engram.knowledge.ingestInBackground('t1', {
      agentId: 'hr',
      name: 'Large.md',
      content,
      chunkTokens: 2_000,
    });
    expect(JSON.stringify(task.payload).length).toBeLessThan(2_000);
    for (let poll = 0; poll < 100_000; poll++) {
      const job = await engram.jobs.get('t1', task.id);
      if (job?.status === 'succeeded' || job?.status === 'failed') break;
      await nextTurn();
    }
    const finished = await engram.jobs.get('t1', task.id);
    expect(finished?.error).toBeNull();
    expect(finished).toMatchObject({ status: 'succeeded' });
    const [listed] = await engram.knowledge.list('t1', 'hr');
    expect(listed?.chunks).toBeGreaterThan(10);
    const uploads = await engram.store.documents.listDocuments('t1', 'knowledge_uploads', {
      limit: 10,
      offset: 0,
    });
    expect(uploads.total).toBe(0);
  });

  it('drops the waiting text when the job fails for good', async () => {
    const store = createMemoryStore();
    // Every insert refused as invalid: the job fails on its first attempt, with no retry.
    store.memories.insertMemories = async () => {
      throw new ValidationError('refused by the test store');
    };
    engram = await createEngram({ store, sweepIntervalMs: 0 });
    const { task } = await engram.knowledge.ingestInBackground('t1', {
      agentId: 'hr',
      name: 'Doomed.md',
      content: bigDocument(5),
    });
    for (let poll = 0; poll < 100_000; poll++) {
      const job = await engram.jobs.get('t1', task.id);
      if (job?.status === 'succeeded' || job?.status === 'failed') break;
      await nextTurn();
    }
    expect(await engram.jobs.get('t1', task.id)).toMatchObject({ status: 'failed', attempts: 1 });
    const uploads = await engram.store.documents.listDocuments('t1', 'knowledge_uploads', {
      limit: 10,
      offset: 0,
    });
    expect(uploads.total).toBe(0);
  });

  it('validates a background document before queuing anything', async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    await expect(
      engram.knowledge.ingestInBackground('t1', { agentId: 'hr', name: 'Empty.md', content: '   ' }),
    ).rejects.toMatchObject({ code: 'validation_failed' });
    expect((await engram.jobs.list('t1', { limit: 10, offset: 0 })).total).toBe(0);
  });
});

describe('knowledge.upload (what REST and MCP uploads call)', () => {
  it('ingests a document up to BACKGROUND_DOCUMENT_CHARS at once, and a longer one as a task', async () => {
    engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0 });
    const small = await engram.knowledge.upload('t1', {
      agentId: 'hr',
      name: 'Small.md',
      content: bigDocument(2),
    });
    expect(small.task).toBeUndefined();
    expect(small.document?.chunks).toBeGreaterThan(0);
    const content = bigDocument(600);
    expect(content.length).toBeGreaterThan(BACKGROUND_DOCUMENT_CHARS);
    const large = await engram.knowledge.upload('t1', { agentId: 'hr', name: 'Large.md', content });
    expect(large.document).toBeUndefined();
    if (!large.task) throw new Error('a document over BACKGROUND_DOCUMENT_CHARS must become a task');
    expect(large.task.type).toBe(INGEST_DOCUMENT_JOB);
    expect(large.documentId).toEqual(expect.any(String));
  });
});
