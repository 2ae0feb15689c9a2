import { afterEach, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../engram.js';
import type { Job } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { WRITE_PATH_JOBS } from '../write-path/create-write-path.js';
import { rebuildMessages, splitMessageText } from './session-reconstruction.js';

const ref = { sessionId: 'trip', userId: 'ana', namespace: 'travel' };
let now = Date.parse('2026-03-01T10:00:00.000Z');
const clock = () => new Date(now);
const opened: Engram[] = [];

afterEach(async () => {
  for (const engram of opened.splice(0)) await engram.close();
});

async function open(indexMessages = true) {
  now = Date.parse('2026-03-01T10:00:00.000Z');
  const engram = await createEngram({
    store: createMemoryStore({ clock }),
    clock,
    sweepIntervalMs: 0,
    defaultSources: false,
    jobs: { minPollMs: 2, maxPollMs: 10, retry: { baseDelayMs: 1, maxDelayMs: 2 }, defaultMaxAttempts: 3 },
    writePath: { catchUpIntervalMs: 0, indexMessages },
  });
  opened.push(engram);
  return engram;
}

/** Waits until every index job of the tenant has finished. */
async function indexed(engram: Engram, tenantId = 'default'): Promise<void> {
  for (let tries = 0; tries < 500; tries++) {
    const { jobs } = await engram.jobs.list(tenantId, {
      type: WRITE_PATH_JOBS.indexMessages,
      limit: 100,
      offset: 0,
    });
    if (jobs.every((job: Job) => job.status === 'succeeded')) return;
    if (jobs.some((job: Job) => job.status === 'failed')) throw new Error('an index job failed');
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  throw new Error('index jobs did not finish');
}

/** Appends one message a second (a fake clock), so that times order them. */
async function say(engram: Engram, role: 'user' | 'assistant', content: string, session = ref) {
  now += 1_000;
  await engram.sessions.append(session, [{ role, content }], { ttlSeconds: 60 });
}

const contents = (session: { messages: { role: string; content: string }[] } | null) =>
  session?.messages.map((message) => `${message.role}: ${message.content}`);

describe('session reconstruction', () => {
  it('rebuilds an expired session from its indexed messages and writes it back', async () => {
    const engram = await open();
    await say(engram, 'user', 'Book a table for two: Friday, 8 pm.');
    await say(engram, 'assistant', 'Booked at Ramiro.');
    await say(engram, 'user', 'yes');
    await say(engram, 'assistant', 'Anything else?');
    await say(engram, 'user', 'yes');
    await engram.sessions.patch(ref, { data: { step: 3 }, context: 'a summary' });
    await indexed(engram);
    const original = await engram.sessions.get(ref);

    now += 61_000; // past the TTL
    expect(await engram.store.getSession({ tenantId: 'default', ...ref })).toBeNull();
    const rebuilt = await engram.sessions.get(ref);
    expect(contents(rebuilt)).toEqual([
      'user: Book a table for two: Friday, 8 pm.',
      'assistant: Booked at Ramiro.',
      'user: yes',
      'assistant: Anything else?',
      'user: yes',
    ]);
    expect(rebuilt?.messages.map((message) => message.id)).toEqual(original?.messages.map((m) => m.id));
    expect(rebuilt?.messages.map((message) => message.createdAt)).toEqual(
      original?.messages.map((m) => m.createdAt),
    );
    expect(rebuilt).toMatchObject({
      context: null,
      data: {},
      memories: [],
      namespace: 'travel',
      userId: 'ana',
    });

    // It is a session again: appends continue it, and its messages are not indexed twice.
    await say(engram, 'user', 'Thanks!');
    expect(contents(await engram.sessions.get(ref))?.at(-1)).toBe('user: Thanks!');
    await indexed(engram);
    const { total } = await engram.memories.list('default', { memoryType: { eq: 'message' } });
    expect(total).toBe(5); // four distinct texts ('yes' twice: a record and a repeat), then 'Thanks!'
    now += 61_000;
    expect(contents(await engram.sessions.get(ref))).toHaveLength(6);
  });

  it('never rebuilds a session deleted on purpose; a later one under the same id starts afresh', async () => {
    const engram = await open();
    await say(engram, 'user', 'My card number is secret.');
    await indexed(engram);
    expect(await engram.sessions.delete(ref)).toBe(true);
    expect(await engram.sessions.get(ref)).toBeNull();

    await say(engram, 'user', 'New trip: Porto.');
    await indexed(engram);
    now += 61_000;
    expect(contents(await engram.sessions.get(ref))).toEqual(['user: New trip: Porto.']);

    // Deleting an expired (already missing) session forgets it too.
    now += 61_000;
    await engram.sessions.delete(ref);
    expect(await engram.sessions.get(ref)).toBeNull();
  });

  it('is scoped by tenant, namespace and user', async () => {
    const engram = await open();
    await say(engram, 'user', 'Only for Ana.');
    await say(engram, 'user', 'Only for tenant acme.', { ...ref, tenantId: 'acme' } as typeof ref);
    await indexed(engram);
    await indexed(engram, 'acme');
    now += 61_000;
    expect(await engram.sessions.get({ ...ref, userId: 'bob' })).toBeNull();
    expect(await engram.sessions.get({ ...ref, namespace: null })).toBeNull();
    expect(await engram.sessions.get({ ...ref, tenantId: 'other' })).toBeNull();
    expect(contents(await engram.sessions.get({ ...ref, tenantId: 'acme' }))).toEqual([
      'user: Only for tenant acme.',
    ]);
    expect(contents(await engram.sessions.get(ref))).toEqual(['user: Only for Ana.']);
  });

  it('rebuilds a message longer than one record from its parts', async () => {
    const engram = await open();
    const long = `${'A long pasted itinerary line.\n'.repeat(1_500)}end`;
    await say(engram, 'user', long);
    await indexed(engram);
    expect((await engram.memories.list('default', { memoryType: { eq: 'message' } })).total).toBe(3);
    now += 61_000;
    expect((await engram.sessions.get(ref))?.messages[0]?.content).toBe(long);
  });

  it('is off by default: a missing session stays missing', async () => {
    const engram = await open(false);
    await say(engram, 'user', 'Hello');
    await engram.memories.create('default', [
      { text: 'user: Hello', memoryType: 'message', namespace: 'travel', userId: 'ana', sessionId: 'trip' },
    ]);
    now += 61_000;
    expect(await engram.sessions.get(ref)).toBeNull();
  });
});

describe('rebuildMessages', () => {
  const occurrence = (
    messageId: string,
    text: string,
    createdAt: string,
    seq: number,
    part = 0,
    parts = 1,
  ) => {
    const split = splitMessageText(text);
    if (!split) throw new Error('bad text');
    return { messageId, ...split, createdAt, seq, part, parts, generation: 0 };
  };

  it('splits on the first ": ", orders by time then seq, and leaves out what cannot be rebuilt', () => {
    const t1 = '2026-03-01T10:00:00.000Z';
    const t2 = '2026-03-01T10:00:01.000Z';
    const messages = rebuildMessages(
      [
        occurrence('c', 'assistant: Note: it rains', t2, 1),
        occurrence('b', 'user: second: b', t1, 2),
        occurrence('a', 'user: first', t1, 1),
        occurrence('t', 'tool: {"x":1}', t1, 3),
        occurrence('p', 'user: half', t2, 5, 0, 2),
        { ...occurrence('gone', 'user: of another delete generation', t1, 0), generation: 1 },
      ],
      0,
    );
    expect(messages.map((message) => [message.id, message.role, message.content])).toEqual([
      ['a', 'user', 'first'],
      ['b', 'user', 'second: b'],
      ['c', 'assistant', 'Note: it rains'],
    ]);
    expect(splitMessageText('no separator')).toBeNull();
  });
});
