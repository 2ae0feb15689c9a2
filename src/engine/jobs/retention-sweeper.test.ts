import { describe, expect, it } from 'vitest';
import { sessionWrite } from '../../../test/conformance/fixtures.js';
import { leaseOf } from '../../stores/job-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { INGEST_DOCUMENT_JOB, KNOWLEDGE_UPLOADS } from '../long-term/knowledge-ingest-job.js';
import { createSessionCursors, EXTRACTION_CURSORS } from '../write-path/session-cursors.js';
import { endMarkId, SESSION_ENDS_COLLECTION, writeEndMark } from '../write-path/session-end-marks.js';
import { writePathSettingsSchema } from '../write-path/write-path-settings.js';
import { createRetentionSweeper } from './retention-sweeper.js';
import { createTaskProgressLog } from './task-progress.js';

const DAY = 86_400_000;

describe('retention sweeper', () => {
  it('keeps 30 days by default', () => {
    expect(writePathSettingsSchema.parse({}).retentionDays).toBe(30);
  });

  it('deletes finished jobs, cursors and end marks past retention; keeps those of live sessions', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => new Date(now);
    const store = createMemoryStore({ clock });
    const live = { tenantId: 't', namespace: null, userId: 'ana', sessionId: 'live' };
    const gone = { ...live, sessionId: 'gone' };
    await store.putSession(live, sessionWrite());
    await store.putSession(gone, sessionWrite());
    const liveState = await store.getSession(live);
    const goneState = await store.getSession(gone);
    const cursors = createSessionCursors(store.documents, EXTRACTION_CURSORS);
    await cursors.move({ ...live, createdAt: liveState?.createdAt ?? '' }, 3, 0);
    await cursors.move({ ...gone, createdAt: goneState?.createdAt ?? '' }, 5, 0);
    const mark = { throughSeq: 2, episodeId: null, procedureId: null, endedAt: clock().toISOString() };
    await writeEndMark(store.documents, gone, { ...mark, sessionCreatedAt: goneState?.createdAt ?? '' }, 0);
    await writeEndMark(store.documents, live, { ...mark, sessionCreatedAt: liveState?.createdAt ?? '' }, 0);
    await store.deleteSession(gone);
    await store.jobs.enqueue('t', { id: 'done', type: 'x', payload: {}, maxAttempts: 1 });
    const claimed = await store.jobs.claim('w', 1_000);
    if (!claimed) throw new Error('nothing claimed');
    await store.jobs.complete(leaseOf(claimed), null);
    await store.jobs.enqueue('t', {
      id: 'waiting',
      type: 'x',
      payload: {},
      maxAttempts: 1,
      // Due within the retention: not yet unclaimed for all of it.
      runAt: new Date(now + 10 * DAY).toISOString(),
    });

    // Progress reports of both tasks, and of one whose job was pruned long ago.
    const progress = createTaskProgressLog(store.documents);
    for (const task of ['done', 'waiting', 'forgotten']) await progress.report('t', task, { done: 1 });

    const sweep = createRetentionSweeper({ store, clock, retentionMs: 30 * DAY });
    now += 29 * DAY;
    expect(await sweep()).toEqual({ unclaimed: 0, jobs: 0, documents: 0, kept: 0, uploads: 0 });
    now += 2 * DAY;
    expect(await sweep()).toEqual({ unclaimed: 0, jobs: 1, documents: 4, kept: 3, uploads: 0 });
    // A progress report goes with its job; the waiting job's stays.
    expect(await progress.get('t', 'done')).toBeNull();
    expect(await progress.get('t', 'forgotten')).toBeNull();
    expect(await progress.get('t', 'waiting')).toEqual({ done: 1 });
    expect(await store.jobs.getJob('t', 'done')).toBeNull();
    expect(await store.jobs.getJob('t', 'waiting')).not.toBeNull();
    expect(await store.documents.getDocument('t', SESSION_ENDS_COLLECTION, endMarkId(gone))).toBeNull();
    expect(await store.documents.getDocument('t', SESSION_ENDS_COLLECTION, endMarkId(live))).not.toBeNull();
    expect((await cursors.read({ ...live, createdAt: liveState?.createdAt ?? '' })).seq).toBe(3);
    expect((await cursors.read({ ...gone, createdAt: goneState?.createdAt ?? '' })).seq).toBe(0);
    // The kept ones were refreshed: the next sweep leaves them alone.
    expect(await sweep()).toEqual({ unclaimed: 0, jobs: 0, documents: 0, kept: 0, uploads: 0 });
  });

  it('deletes the text of an upload an hour after its ingest job ended without deleting it', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => new Date(now);
    const store = createMemoryStore({ clock });
    const upload = async (id: string, job: boolean) => {
      await store.documents.putDocument('t', KNOWLEDGE_UPLOADS, id, { content: 'text' });
      if (!job) return;
      await store.jobs.enqueue('t', {
        id: `job-${id}`,
        type: INGEST_DOCUMENT_JOB,
        payload: { upload_id: id },
        maxAttempts: 1,
      });
    };
    // The worker of the last attempt dies: the next claim fails the job, no handler runs.
    await upload('dead', true);
    expect((await store.jobs.claim('w', 1_000))?.id).toBe('job-dead');
    now += 2_000;
    expect(await store.jobs.claim('w', 1_000)).toBeNull();
    expect(await store.jobs.getJob('t', 'job-dead')).toMatchObject({ status: 'failed' });
    // The process died between the upload and the enqueue; and a job still waiting for its turn.
    await upload('never-queued', false);
    await upload('waiting', true);

    const sweep = createRetentionSweeper({ store, clock, retentionMs: 30 * DAY });
    now += 59 * 60_000;
    expect((await sweep()).uploads).toBe(0);
    now += 2 * 60_000;
    expect((await sweep()).uploads).toBe(2);
    const left = await store.documents.listDocuments('t', KNOWLEDGE_UPLOADS, { limit: 10, offset: 0 });
    expect(left.documents.map((document) => document.id)).toEqual(['waiting']);
  });

  it('fails a job nobody claimed for the whole retention (no handler), then prunes it a retention later', async () => {
    let now = Date.parse('2026-01-01T00:00:00Z');
    const clock = () => new Date(now);
    const store = createMemoryStore({ clock });
    // Enqueued by a server with an LLM, then restarted without one: no process handles the type.
    const job = { type: 'extract-memories', payload: {}, maxAttempts: 5 };
    await store.jobs.enqueue('t', { ...job, id: 'orphan' });
    await store.jobs.enqueue('t', { ...job, id: 'abandoned' });
    // A worker died holding one, and no live process handles the type to take it over.
    expect(await store.jobs.claim('w', 60_000, ['extract-memories'])).not.toBeNull();
    now += DAY;
    await store.jobs.enqueue('t', { ...job, id: 'recent' });
    const sweep = createRetentionSweeper({ store, clock, retentionMs: 30 * DAY });

    now += 29 * DAY + 120_000;
    expect((await sweep()).unclaimed).toBe(2);
    for (const id of ['orphan', 'abandoned']) {
      expect(await store.jobs.getJob('t', id)).toMatchObject({
        status: 'failed',
        completedAt: clock().toISOString(),
        error: { code: 'job_unclaimed', message: expect.stringContaining('for 30 days') },
      });
    }
    expect(await store.jobs.getJob('t', 'recent')).toMatchObject({ status: 'pending', error: null });
    now += DAY;
    expect(await sweep()).toMatchObject({ unclaimed: 1, jobs: 0 });
    now += 30 * DAY;
    expect(await sweep()).toMatchObject({ jobs: 2 });
  });
});
