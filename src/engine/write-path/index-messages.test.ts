import { afterEach, describe, expect, it } from 'vitest';
import { createEngram, type Engram, type EngramOptions } from '../../engram.js';
import type { Job } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { WRITE_PATH_JOBS } from './create-write-path.js';
import { splitContent } from './index-messages-records.js';

const ref = { sessionId: 'trip', userId: 'ana', namespace: 'travel' };
let now = Date.parse('2026-03-01T10:00:00.000Z');
const clock = () => new Date(now);
const opened: Engram[] = [];

afterEach(async () => {
  for (const engram of opened.splice(0)) await engram.close();
});

async function open(options: { indexMessages?: boolean; store?: EngramOptions['store'] } = {}) {
  now = Date.parse('2026-03-01T10:00:00.000Z');
  const engram = await createEngram({
    store: options.store ?? createMemoryStore({ clock }),
    clock,
    sweepIntervalMs: 0,
    defaultSources: false,
    jobs: { minPollMs: 2, maxPollMs: 10, retry: { baseDelayMs: 1, maxDelayMs: 2 }, defaultMaxAttempts: 3 },
    writePath: {
      catchUpIntervalMs: 0,
      ...(options.indexMessages === undefined ? {} : { indexMessages: options.indexMessages }),
    },
  });
  opened.push(engram);
  return engram;
}

const indexJobs = async (engram: Engram, tenantId = 'default') =>
  (await engram.jobs.list(tenantId, { type: WRITE_PATH_JOBS.indexMessages, limit: 100, offset: 0 })).jobs;

async function settled(engram: Engram, job: Job): Promise<Job> {
  for (let tries = 0; tries < 500; tries++) {
    const current = await engram.jobs.get(job.tenantId, job.id);
    if (current?.status === 'succeeded' || current?.status === 'failed') return current;
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error(`Job ${job.id} did not finish`);
}

/** Waits for every index job of the tenant. */
async function indexed(engram: Engram, tenantId = 'default'): Promise<Job[]> {
  const jobs = await indexJobs(engram, tenantId);
  return Promise.all(jobs.map((job) => settled(engram, job)));
}

/** The index job enqueued by the write that brought the session to `lastSeq`. */
const jobAt = (jobs: Job[], lastSeq: number) =>
  jobs.find((job) => job.idempotencyKey?.endsWith(`:s${lastSeq}`));

const messageRecords = async (engram: Engram, tenantId = 'default') =>
  (
    await engram.memories.list(
      tenantId,
      { memoryType: { eq: 'message' } },
      { limit: 1000, order: 'created_asc' },
    )
  ).memories;

describe('message indexing', () => {
  it('is off by default: no job is enqueued and nothing is indexed', async () => {
    const engram = await open();
    expect(engram.writePath.settings.indexMessages).toBe(false);
    expect(engram.writePath.messageIndex).toBeNull();
    await engram.sessions.append(ref, [{ role: 'user', content: 'I fly to Lisbon on Friday.' }]);
    expect(await indexJobs(engram)).toEqual([]);
    expect(await messageRecords(engram)).toEqual([]);
  });

  it('runs as a background job after an append, never on the request path', async () => {
    const store = createMemoryStore({ clock });
    // Long-term writes wait on a gate: an append that waited for indexing would never return.
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => {
      release = resolve;
    });
    const insert = store.memories.insertMemories.bind(store.memories);
    Object.assign(store.memories, {
      insertMemories: async (...args: Parameters<typeof insert>) => {
        await gate;
        return insert(...args);
      },
    });
    const engram = await open({ indexMessages: true, store });
    await engram.sessions.append(ref, [
      { role: 'user', content: 'I fly to Lisbon on Friday.', createdAt: '2026-02-28T09:00:00.000Z' },
      {
        role: 'assistant',
        content: '',
        toolCalls: [{ id: 'c1', function: { name: 'weather', arguments: '{"city":"Lisbon"}' } }],
      },
      { role: 'tool', content: '{"forecast":"sun"}', toolCallId: 'c1' },
      { role: 'assistant', content: 'Sunny all weekend: pack light.' },
    ]);
    const [job, ...others] = await indexJobs(engram);
    expect(others).toEqual([]);
    expect(await messageRecords(engram)).toEqual([]);
    release();
    if (!job) throw new Error('no index job');
    expect((await settled(engram, job)).result).toMatchObject({ status: 'indexed', created: 2, cursor: 4 });

    const records = await messageRecords(engram);
    expect(records.map((record) => record.text)).toEqual([
      'user: I fly to Lisbon on Friday.',
      'assistant: Sunny all weekend: pack light.',
    ]);
    const session = await engram.sessions.get(ref);
    expect(records[0]).toMatchObject({
      memoryType: 'message',
      namespace: 'travel',
      userId: 'ana',
      sessionId: 'trip',
      createdAt: '2026-02-28T09:00:00.000Z',
      metadata: { role: 'user', seq: 1, messageId: session?.messages[0]?.id, generation: 0 },
    });
    expect(records[1]?.createdAt).toBe(session?.messages[3]?.createdAt);
    expect(records[1]?.metadata).toMatchObject({ role: 'assistant', seq: 4 });
  });

  it('is idempotent: running again, or a PUT sending the same messages again, creates nothing', async () => {
    const engram = await open({ indexMessages: true });
    await engram.sessions.append(ref, [
      { role: 'user', content: 'My passport expires in May.' },
      { role: 'assistant', content: 'Renew it before the trip.' },
    ]);
    await indexed(engram);
    const before = await messageRecords(engram);
    expect(before).toHaveLength(2);

    const index = engram.writePath.messageIndex?.index;
    if (!index) throw new Error('indexing is on');
    const key = { tenantId: 'default', ...ref };
    expect(await index(key)).toMatchObject({ status: 'up-to-date', created: 0 });

    // An AMS client appends by GET + PUT: the messages it sends again keep their seqs, so the
    // job reads only the new one.
    const session = await engram.sessions.get(ref);
    const resent = (session?.messages ?? []).map(({ id, role, content, createdAt }) => ({
      id,
      role,
      content,
      createdAt,
    }));
    await engram.sessions.put(ref, { messages: [...resent, { role: 'user', content: 'And my visa?' }] });
    const jobs = await indexed(engram);
    expect(jobAt(jobs, 3)?.result).toMatchObject({ created: 1, existing: 0, repeats: 0 });
    const texts = (await messageRecords(engram)).map((record) => record.text);
    expect(texts.sort()).toEqual([...before.map((record) => record.text), 'user: And my visa?'].sort());
    expect(await index(key)).toMatchObject({ status: 'up-to-date', created: 0 });

    // A real replace (the times moved an hour) gives every message a new seq: same ids, nothing new.
    const current = (await engram.sessions.get(ref))?.messages ?? [];
    await engram.sessions.put(ref, {
      messages: current.map(({ id, role, content, createdAt }) => ({
        id,
        role,
        content,
        createdAt: new Date(Date.parse(createdAt) - 3_600_000).toISOString(),
      })),
    });
    expect(jobAt(await indexed(engram), 6)?.result).toMatchObject({ created: 0, existing: 3, repeats: 0 });
    expect(await messageRecords(engram)).toHaveLength(3);
  });

  it('keeps a message whose text repeats an earlier one as a repeat of that record', async () => {
    const engram = await open({ indexMessages: true });
    await engram.sessions.append(ref, [
      { role: 'user', content: 'yes' },
      { role: 'assistant', content: 'Booked.' },
      { role: 'user', content: 'yes' },
    ]);
    const [job] = await indexed(engram);
    expect(job?.result).toMatchObject({ created: 2, repeats: 1 });
    expect(await messageRecords(engram)).toHaveLength(2);
    // Later writes index only what is new.
    await engram.sessions.append(ref, [{ role: 'assistant', content: 'Done.' }]);
    const jobs = await indexed(engram);
    expect(jobAt(jobs, 4)?.result).toMatchObject({ created: 1, repeats: 0 });
  });
});

describe('splitContent', () => {
  it('splits long content into parts that join back exactly, none ending in whitespace', () => {
    const content = `${'word '.repeat(30)}😀${'x'.repeat(7)}  tail `;
    for (const size of [7, 10, 13]) {
      const parts = splitContent(content, size);
      expect(parts.join('')).toBe(content);
      for (const part of parts.slice(0, -1)) {
        expect(part.length).toBeLessThanOrEqual(size);
        expect(part).not.toMatch(/\s$/);
        expect(part.charCodeAt(part.length - 1)).not.toBe(0xd83d);
      }
    }
    expect(splitContent('short')).toEqual(['short']);
  });
});
