import type { NewMessage } from '../../src/core/schemas/message.js';
import type { PendingMemory, SessionKey } from '../../src/core/schemas/session.js';
import type { Job, NewJob } from '../../src/stores/job-store.js';
import type { SessionStore, SessionWrite } from '../../src/stores/session-store.js';

/** A clock that only moves when told to, for deterministic TTL and ordering tests. */
export interface FakeClock {
  now: () => Date;
  advance: (milliseconds: number) => void;
  /** The current time as ISO text, as stores return it. */
  iso: (offsetMilliseconds?: number) => string;
}

export const START_TIME = Date.parse('2026-01-01T00:00:00.000Z');

export function createFakeClock(startMs: number = START_TIME): FakeClock {
  let current = startMs;
  return {
    now: () => new Date(current),
    advance: (milliseconds) => {
      current += milliseconds;
    },
    iso: (offsetMilliseconds = 0) => new Date(current + offsetMilliseconds).toISOString(),
  };
}

/** What every conformance section shares: the store under test and its clock, fresh per test. */
export interface ConformanceContext {
  store: SessionStore;
  clock: FakeClock;
}

export function sessionKey(sessionId = 'session-1', overrides: Partial<SessionKey> = {}): SessionKey {
  return { tenantId: 'tenant-a', namespace: 'app', userId: 'user-1', sessionId, ...overrides };
}

export function message(id: string, overrides: Partial<NewMessage> = {}): NewMessage {
  return {
    id,
    role: 'user',
    content: `content of ${id}`,
    createdAt: '2026-01-01T00:00:00.000Z',
    tokenCount: id.length + 1,
    tokenEncoding: 'o200k_base',
    ...overrides,
  };
}

/** Messages that use every optional field, to prove they round-trip. */
export function conversation(): NewMessage[] {
  return [
    message('m-system', { role: 'system', content: 'Be brief.', tokenCount: 3 }),
    message('m-call', {
      role: 'assistant',
      content: '',
      name: 'helper',
      toolCalls: [{ id: 'call-1', type: 'function', function: { name: 'lookup', arguments: '{"q":"x"}' } }],
      createdAt: '2026-01-01T00:00:01.000+02:00',
      tokenCount: 0,
    }),
    message('m-result', { role: 'tool', content: '42', toolCallId: 'call-1', tokenCount: 1 }),
  ];
}

export function pendingMemory(id: string): PendingMemory {
  return {
    id,
    text: `memory ${id}`,
    memoryType: 'semantic',
    topics: ['topic'],
    entities: ['entity'],
    namespace: 'app',
    userId: 'user-1',
    sessionId: null,
    eventDate: null,
    createdAt: '2026-01-01T00:00:00.000Z',
    persistedAt: null,
    metadata: { source: 'test', nested: { depth: 2 } },
  };
}

export function sessionWrite(overrides: Partial<SessionWrite> = {}): SessionWrite {
  return {
    messages: [],
    memories: [],
    data: null,
    context: null,
    ttlSeconds: null,
    longTermMemoryStrategy: { strategy: 'discrete', config: {} },
    ...overrides,
  };
}

/** Awaits `promise` and returns what it rejected with; fails the test if it resolved. */
export async function rejectionOf(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error('Expected the promise to reject, but it resolved');
}

export const ids = (messages: readonly { id: string }[]): string[] => messages.map((item) => item.id);
export const seqs = (messages: readonly { seq: number }[]): number[] => messages.map((item) => item.seq);

/** The item at `index`, failing the test when there is none. */
export function itemAt<T>(list: readonly T[], index: number): T {
  const item = list[index];
  if (item === undefined) throw new Error(`Expected an item at index ${index}`);
  return item;
}

/** Makes new jobs with fresh ids under `prefix`, sortable in creation order. */
export function jobMaker(prefix: string): (overrides?: Partial<NewJob>) => NewJob {
  let ids = 0;
  return (overrides = {}) => {
    ids += 1;
    return {
      id: `${prefix}-${String(ids).padStart(6, '0')}`,
      type: 'extract',
      payload: { n: ids },
      maxAttempts: 3,
      ...overrides,
    };
  };
}

/** The claimed job, failing the test when nothing was due. */
export function claimed(job: Job | null): Job {
  if (!job) throw new Error('Expected a job to be claimed');
  return job;
}
