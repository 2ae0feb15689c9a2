import { expect } from 'vitest';
import { memoryFilterSchema } from '../../src/core/schemas/memory-record.js';
import { AGENTS_COLLECTION } from '../../src/engine/access/agent-registry.js';
import { TRACES_COLLECTION } from '../../src/engine/context/trace-log.js';
import type { Engram } from '../../src/engram.js';
import type { TestServer } from './test-server.js';

/** The ids of what `seedTenant` wrote, for requests that aim at them. */
export interface SeededIds {
  sessions: { sessionId: string; namespace: string | null; userId: string | null }[];
  memoryIds: string[];
  agentId: string;
  documentId: string;
  procedureIds: string[];
  traceId: string;
  taskId: string;
}

/**
 * Fills one tenant over HTTP with `adminKey` (sessions with messages, long-term memories with an
 * edited version, an agent with knowledge, an approved and a pending procedure, a context trace)
 * and enqueues a task for it; answers the ids.
 */
export async function seedTenant(server: TestServer, tenantId: string, adminKey: string): Promise<SeededIds> {
  const call = async (method: string, path: string, body?: unknown) => {
    const response = await server.request(path, {
      method,
      headers: { authorization: `Bearer ${adminKey}` },
      ...(body === undefined ? {} : { body }),
    });
    expect(response.status, `${method} ${path}`).toBeLessThan(300);
    return response.status === 204 ? {} : ((await response.json()) as Record<string, unknown>);
  };
  const message = (role: string, content: string) => ({ role, content, created_at: '2025-01-01T00:00:00Z' });
  await call('PUT', '/v1/working-memory/chat-1', {
    namespace: 'shop',
    user_id: 'ada',
    messages: [message('user', 'My kettle arrived damaged'), message('assistant', 'Sorry to hear that!')],
    data: { order: 'A-1' },
    context: 'Ada is a returning customer',
  });
  await call('PUT', '/v1/working-memory/chat-2', { messages: [message('user', 'secret of chat-2')] });
  await call('POST', '/v1/long-term-memory/', {
    memories: [
      { id: 'mem-1', text: 'Ada prefers replacements over refunds', user_id: 'ada', namespace: 'shop' },
      { id: 'mem-2', text: 'Ada lives in Oslo', user_id: 'ada', topics: ['home'] },
    ],
  });
  const edited = await call('PATCH', '/v1/long-term-memory/mem-2', { text: 'Ada lives in Bergen' });
  await call('POST', '/v1/agents', { id: 'support', system_prompt: 'You support Acme.' });
  const document = await call('POST', '/v1/agents/support/knowledge', {
    name: 'Returns.md',
    content: '# Returns\nWithin 30 days.\n# Shipping\nFree over 50.',
  });
  const approved = await call('POST', '/v1/agents/support/procedures', {
    name: 'Damaged item',
    triggers: ['damaged'],
    steps: ['Apologise', 'Offer a replacement'],
  });
  await call('POST', `/v1/agents/support/procedures/${approved.id}/approve`);
  const pending = await call('POST', '/v1/agents/support/procedures', {
    name: 'Refund',
    steps: ['Refund it'],
  });
  await call('POST', '/v1/context', {
    agent_id: 'support',
    session_id: 'chat-1',
    namespace: 'shop',
    user_id: 'ada',
    message: 'Where is my replacement?',
    format: 'neutral',
  });
  const traces = await call('GET', '/v1/inspector/sessions/chat-1/traces?namespace=shop&user_id=ada');
  const [trace] = traces.traces as { id: string }[];
  const task = await server.engram.jobs.enqueue(tenantId, 'seeded-task', { note: 'never runs' });
  return {
    sessions: [
      { sessionId: 'chat-1', namespace: 'shop', userId: 'ada' },
      { sessionId: 'chat-2', namespace: null, userId: null },
    ],
    memoryIds: ['mem-1', 'mem-2', edited.id as string],
    agentId: 'support',
    documentId: document.document_id as string,
    procedureIds: [approved.id as string, pending.id as string],
    traceId: trace?.id as string,
    taskId: task.id,
  };
}

/**
 * Everything a tenant holds, read from the store: sessions with their state and every message,
 * every memory version (procedures and knowledge chunks included), agents, traces, and the task.
 */
export async function snapshotTenant(engram: Engram, tenantId: string, taskId: string): Promise<unknown> {
  const { store } = engram;
  const { sessions } = await store.listSessions({ tenantId, limit: 10_000, offset: 0 });
  const sessionStates = [];
  for (const summary of sessions) {
    const key = {
      tenantId,
      sessionId: summary.sessionId,
      namespace: summary.namespace,
      userId: summary.userId,
    };
    sessionStates.push({
      state: await store.getSession(key),
      messages: await store.readMessages(key, { order: 'oldest-first' }),
    });
  }
  const { memories } = await store.memories.listMemories(
    tenantId,
    memoryFilterSchema.parse({ includeSuperseded: true }),
    { limit: 10_000, offset: 0 },
  );
  const documents = async (collection: string) =>
    (await store.documents.listDocuments(tenantId, collection, { limit: 10_000, offset: 0 })).documents;
  const job = await engram.jobs.get(tenantId, taskId);
  return {
    sessions: sessionStates,
    memories: [...memories].sort((a, b) => a.id.localeCompare(b.id)),
    agents: await documents(AGENTS_COLLECTION),
    traces: await documents(TRACES_COLLECTION),
    task: job ? { id: job.id, type: job.type, payload: job.payload, status: job.status } : null,
  };
}
