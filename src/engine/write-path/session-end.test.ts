import { afterEach, beforeEach, describe, expect, it, type MockInstance, vi } from 'vitest';
import { startScriptedOpenAIServer } from '../../../test/support/scripted-openai-server.js';
import { createEngram, type Engram } from '../../engram.js';
import { createOpenAIChatProvider } from '../../providers/llm/openai-chat-provider.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { SESSION_ENDS_COLLECTION } from './session-end-marks.js';
import { createInactivitySweeper } from './session-end-sweeper.js';

const MINUTE = 60_000;
const tenantId = 'acme';
const alice = { tenantId, sessionId: 'trip', userId: 'alice', namespace: 'travel' };

function fakeClock() {
  let now = Date.parse('2026-03-01T09:00:00.000Z');
  return {
    now: () => new Date(now),
    advance: (milliseconds: number) => {
      now += milliseconds;
    },
  };
}

let engram: Engram | undefined;
/** Skipped steps are logged with console.info; kept out of the test output and checked. */
let info: MockInstance<typeof console.info>;
beforeEach(() => {
  info = vi.spyOn(console, 'info').mockImplementation(() => {});
});
afterEach(async () => {
  await engram?.close();
  engram = undefined;
  info.mockRestore();
});

async function start(clock = fakeClock()) {
  engram = await createEngram({
    store: createMemoryStore({ clock: clock.now }),
    clock: clock.now,
    sweepIntervalMs: 0,
  });
  return { engram, clock };
}

async function settled(instance: Engram, jobId: string, tenant = tenantId) {
  return vi.waitFor(async () => {
    const job = await instance.jobs.get(tenant, jobId);
    if (job?.status !== 'succeeded' && job?.status !== 'failed') throw new Error(`job is ${job?.status}`);
    return job;
  });
}

const tripMessages = [
  { role: 'user' as const, content: 'I am planning a trip to Lisbon in May with my sister Ana.' },
  { role: 'assistant' as const, content: 'Lisbon in May is lovely. Shall I look for hotels in Alfama?' },
  { role: 'user' as const, content: 'Yes, a quiet hotel in Alfama under 150 euros a night, please.' },
];

describe('ending a session', () => {
  it('writes an episode that is searchable by user and query', async () => {
    const { engram } = await start();
    const { messages } = await engram.sessions.append(alice, tripMessages);
    const { job, throughSeq } = await engram.sessions.end(alice);
    expect(throughSeq).toBe(3);
    expect(job).toMatchObject({ type: 'end-session', status: 'pending' });
    const done = await settled(engram, job?.id ?? '');
    expect(done.status).toBe('succeeded');

    const hits = await engram.episodes.search(tenantId, { userId: 'alice', query: 'Lisbon trip hotel' });
    expect(hits).toHaveLength(1);
    const [hit] = hits;
    expect(hit?.episode).toMatchObject({
      userId: 'alice',
      sessionId: 'trip',
      startedAt: messages[0]?.createdAt,
      endedAt: messages[2]?.createdAt,
    });
    expect(hit?.episode.summary).toContain('Lisbon');
    expect(hit?.episode.keyFacts.join(' ')).toContain('Alfama');
    expect(done.result).toMatchObject({ episodeId: hit?.episode.id, procedureId: null, throughSeq: 3 });
    expect(await engram.episodes.search(tenantId, { userId: 'bob', query: 'Lisbon trip hotel' })).toEqual([]);
    expect(await engram.episodes.search('other-tenant', { userId: 'alice', query: 'Lisbon' })).toEqual([]);
  });

  it('is idempotent per session and last seq; new messages make a new episode of only them', async () => {
    const { engram } = await start();
    await engram.sessions.append(alice, tripMessages);
    const first = await engram.sessions.end(alice);
    const again = await engram.sessions.end(alice);
    expect(again.job?.id).toBe(first.job?.id);
    await settled(engram, first.job?.id ?? '');
    const afterRun = await engram.sessions.end(alice);
    expect(afterRun.job?.id).toBe(first.job?.id);
    expect(
      await engram.episodes.search(tenantId, { userId: 'alice', query: 'Lisbon', limit: 10 }),
    ).toHaveLength(1);

    await engram.sessions.append(alice, [
      { role: 'user', content: 'Also add a day trip to Sintra by train.' },
    ]);
    const second = await engram.sessions.end(alice);
    expect(second.job?.id).not.toBe(first.job?.id);
    expect(second.throughSeq).toBe(4);
    expect((await settled(engram, second.job?.id ?? '')).result).toMatchObject({ fromSeq: 4, throughSeq: 4 });
    const sintra = await engram.episodes.search(tenantId, {
      userId: 'alice',
      query: 'Sintra train',
      limit: 10,
    });
    const episodes = sintra.map((hit) => hit.episode);
    expect(episodes).toHaveLength(2);
    const newest = episodes.find((episode) => episode.summary.includes('Sintra'));
    expect(newest?.summary).not.toContain('Lisbon');
    const mark = await engram.store.documents.getDocument(
      tenantId,
      SESSION_ENDS_COLLECTION,
      JSON.stringify(['travel', 'alice', 'trip']),
    );
    expect(mark?.value).toMatchObject({ throughSeq: 4, episodeId: newest?.id });
  });

  it('rejects an unknown session and enqueues nothing for an empty one', async () => {
    const { engram } = await start();
    await expect(engram.sessions.end({ ...alice, sessionId: 'nope' })).rejects.toMatchObject({
      code: 'not_found',
    });
    await engram.sessions.put({ ...alice, sessionId: 'empty' }, { data: { a: 1 } });
    expect(await engram.sessions.end({ ...alice, sessionId: 'empty' })).toEqual({ job: null, throughSeq: 0 });
  });

  it('skips the episode of a session without a user, saying why', async () => {
    const { engram } = await start();
    const anonymous = { tenantId, sessionId: 'anon' };
    await engram.sessions.append(anonymous, tripMessages);
    const { job } = await engram.sessions.end(anonymous);
    const done = await settled(engram, job?.id ?? '');
    expect(done.result).toMatchObject({
      episodeId: null,
      throughSeq: 3,
      procedureSkipped: 'no LLM is configured',
    });
    expect(info.mock.calls.flat().join('\n')).toMatch(/has no user/);
  });
});

describe('ending a summarized session', () => {
  it('writes the episode from the summary and dates it by the first and last message', async () => {
    const { engram, clock } = await start();
    const stamps = ['2026-02-01T10:00:00.000Z', '2026-02-01T10:05:00.000Z', '2026-02-01T10:09:00.000Z'];
    await engram.sessions.append(
      alice,
      tripMessages.map((message, index) => ({ ...message, createdAt: stamps[index] })),
    );
    await engram.sessions.recordSummary(alice, {
      context: 'Alice is planning a Lisbon trip in May and wants a quiet hotel in Alfama.',
      throughSeq: 3,
      expectedThroughSeq: 0,
    });
    clock.advance(MINUTE);
    const { job } = await engram.sessions.end(alice);
    await settled(engram, job?.id ?? '');
    const [hit] = await engram.episodes.search(tenantId, { userId: 'alice', query: 'quiet hotel Alfama' });
    expect(hit?.episode.summary).toContain('quiet hotel in Alfama');
    expect(hit?.episode).toMatchObject({ startedAt: stamps[0], endedAt: stamps[2] });
  });
});

describe('the inactivity sweep', () => {
  it('ends a session idle for idleMs once, and again only after new messages', async () => {
    const { engram, clock } = await start();
    const sweeper = createInactivitySweeper({
      store: engram.store,
      jobs: engram.jobs,
      clock: clock.now,
      idleMs: 30 * MINUTE,
      intervalMs: 0,
      onError: (error) => {
        throw error;
      },
    });
    await engram.sessions.append(alice, tripMessages);
    await engram.sessions.append({ tenantId: 'globex', sessionId: 'other', userId: 'carol' }, tripMessages);
    await engram.sessions.put({ ...alice, sessionId: 'empty' }, {});
    expect(await sweeper.sweep()).toBe(0);
    clock.advance(29 * MINUTE);
    expect(await sweeper.sweep()).toBe(0);
    clock.advance(2 * MINUTE);
    expect(await sweeper.sweep()).toBe(2);
    expect(await sweeper.sweep()).toBe(0);
    const { jobs } = await engram.jobs.list(tenantId, { type: 'end-session', limit: 10, offset: 0 });
    expect(jobs).toHaveLength(1);
    await settled(engram, jobs[0]?.id ?? '');
    const globex = await engram.jobs.list('globex', { type: 'end-session', limit: 10, offset: 0 });
    await settled(engram, globex.jobs[0]?.id ?? '', 'globex');

    // A second process (a fresh sweeper) looks back over the ended session and skips it.
    const restarted = createInactivitySweeper({
      store: engram.store,
      jobs: engram.jobs,
      clock: clock.now,
      onError: () => {},
    });
    expect(await restarted.sweep()).toBe(0);
    await engram.sessions.append(alice, [
      { role: 'user', content: 'One more thing: vegetarian restaurants.' },
    ]);
    clock.advance(31 * MINUTE);
    expect(await sweeper.sweep()).toBe(1);
    const after = await engram.jobs.list(tenantId, { type: 'end-session', limit: 10, offset: 0 });
    expect(after.jobs).toHaveLength(2);
  });
});

describe('ending a session with a model', () => {
  it('writes the model’s episode and stores its captured procedure as pending', async () => {
    const server = await startScriptedOpenAIServer(
      {
        content: JSON.stringify({
          summary: 'Alice planned a May trip to Lisbon with her sister Ana and chose a hotel in Alfama.',
          key_facts: ['Alice travels to Lisbon in May with her sister Ana.'],
        }),
      },
      {
        content: JSON.stringify({
          multi_step_task: true,
          procedure: {
            name: 'Book a city trip hotel',
            triggers: ['\\bhotel\\b'],
            examples: ['Find me a hotel in Lisbon'],
            steps: ['Ask for the dates and budget', 'Propose hotels in the preferred area'],
          },
        }),
      },
    );
    try {
      const clock = fakeClock();
      const llm = createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted-model' });
      engram = await createEngram({
        store: createMemoryStore({ clock: clock.now }),
        clock: clock.now,
        llm,
        sweepIntervalMs: 0,
      });
      await engram.sessions.append(alice, tripMessages);
      await engram.agents.create(tenantId, { id: 'travel-bot' });
      const { job } = await engram.sessions.end(alice, { agentId: 'travel-bot' });
      const done = await settled(engram, job?.id ?? '');
      expect(done).toMatchObject({ status: 'succeeded' });
      expect(server.requests).toHaveLength(2);
      expect(JSON.stringify(server.requests[0]?.body.messages)).toContain('quiet hotel in Alfama');

      const [hit] = await engram.episodes.search(tenantId, { userId: 'alice', query: 'Lisbon trip' });
      expect(hit?.episode).toMatchObject({
        agentId: 'travel-bot',
        summary: 'Alice planned a May trip to Lisbon with her sister Ana and chose a hotel in Alfama.',
        keyFacts: ['Alice travels to Lisbon in May with her sister Ana.'],
      });
      expect(await engram.procedures.list(tenantId, 'travel-bot')).toEqual([
        expect.objectContaining({
          name: 'Book a city trip hotel',
          status: 'pending',
          triggers: ['\\bhotel\\b'],
        }),
      ]);
      expect(done.result).toMatchObject({ episodeId: hit?.episode.id, procedureId: expect.any(String) });
    } finally {
      await server.close();
    }
  });
});

describe('what a session end skipped', () => {
  it('is told to writePath.onNotice when one is given, not printed', async () => {
    const clock = fakeClock();
    const notices: string[] = [];
    engram = await createEngram({
      store: createMemoryStore({ clock: clock.now }),
      clock: clock.now,
      sweepIntervalMs: 0,
      writePath: { onNotice: (message) => notices.push(message) },
    });
    const anonymous = { tenantId, sessionId: 'no-user' };
    await engram.sessions.append(anonymous, tripMessages);
    const { job } = await engram.sessions.end(anonymous);
    await settled(engram, job?.id ?? '');
    expect(notices.some((notice) => notice.includes('session no-user has no user'))).toBe(true);
    expect(info).not.toHaveBeenCalledWith(expect.stringContaining('has no user'));
  });
});
