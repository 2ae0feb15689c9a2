import { describe, expect, it } from 'vitest';
import { TRACES_COLLECTION } from '../../src/engine/context/trace-log.js';
import { useExtensionApp } from './extension-app.js';

const extensionApp = useExtensionApp();
const SECRET = 'quetzalmarmalade';
const session = { session_id: 'chat-1', namespace: 'shop', user_id: 'ada' };
const query = 'namespace=shop&user_id=ada';

describe('POST /v1/context', () => {
  it('assembles all six sections for a stored agent and records the trace', async () => {
    const { call, engram } = extensionApp();
    await call('POST', '/v1/agents', {
      body: { id: 'support', system_prompt: `You support Acme. Codeword ${SECRET}.` },
    });
    await call('POST', '/v1/agents/support/knowledge', {
      body: {
        name: 'Returns.md',
        content: `# Returns\nDamaged items (${SECRET}) are replaced within 30 days.`,
      },
    });
    const proposed = await call('POST', '/v1/agents/support/procedures', {
      body: { name: 'Damaged item', triggers: ['damaged'], steps: ['Apologise', `Say ${SECRET}`] },
    });
    await call('POST', `/v1/agents/support/procedures/${proposed.body.id}/approve`);
    await engram.memories.create('t1', [
      { text: `Ada prefers replacements, says ${SECRET}.`, userId: 'ada', namespace: 'shop', salience: 0.9 },
    ]);
    await engram.episodes.record('t1', {
      userId: 'ada',
      summary: `Ada returned a damaged kettle (${SECRET}).`,
    });
    await engram.sessions.append(
      { ...{ sessionId: 'chat-1', namespace: 'shop', userId: 'ada' }, tenantId: 't1' },
      [
        { role: 'user', content: `Hello, my code is ${SECRET}.` },
        { role: 'assistant', content: 'Hi Ada!' },
      ],
    );

    const answer = await call('POST', '/v1/context', {
      body: {
        agent_id: 'support',
        ...session,
        message: `My kettle arrived damaged ${SECRET}`,
        format: 'neutral',
      },
    });
    expect(answer.status).toBe(200);
    const sections = answer.body.messages.map((message: { section: string }) => message.section);
    expect(new Set(sections)).toEqual(
      new Set(['system', 'procedure', 'knowledge', 'episodes', 'history', 'current']),
    );
    expect(answer.body.agent).toEqual({ id: 'support', version: 1 });
    expect(answer.body.trace.budget).toMatchObject({
      max_working_memory_tokens: 8000,
      reserved_output_tokens: 1000,
    });
    expect(answer.body.trace.history).toMatchObject({ candidates: 2, kept: 2, older_not_read: 0 });

    const openai = await call('POST', '/v1/context', {
      body: { agent_id: 'support', ...session, message: 'Hi' },
    });
    expect(openai.body.messages[0]).toMatchObject({ role: 'system' });
    const anthropic = await call('POST', '/v1/context', {
      body: { agent_id: 'support', ...session, message: 'Hi', format: 'anthropic' },
    });
    expect(typeof anthropic.body.messages.system).toBe('string');
    expect(Array.isArray(anthropic.body.messages.messages)).toBe(true);
  });

  it('uses the default agent when none is named, and 404 for an unknown one', async () => {
    const { call } = extensionApp();
    const answer = await call('POST', '/v1/context', { body: { session_id: 'fresh', message: 'Hello' } });
    expect(answer.status).toBe(200);
    expect(answer.body.agent).toEqual({ id: 'default', version: 0 });
    expect(answer.body.messages.map((message: { role: string }) => message.role)).toEqual(['system', 'user']);
    const unknown = await call('POST', '/v1/context', {
      body: { agent_id: 'ghost', session_id: 's', message: 'x' },
    });
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatchObject({ code: 'not_found', details: { what: 'Agent', id: 'ghost' } });
    // Another tenant's agent is unknown here.
    const elsewhere = await call('POST', '/v1/context', {
      caller: { tenant: 't2' },
      body: { agent_id: 'support', session_id: 's', message: 'x' },
    });
    expect(elsewhere.status).toBe(404);
  });

  it('maps a context over budget to 422 and bad input to 400', async () => {
    const { call } = extensionApp();
    await call('POST', '/v1/agents', {
      body: {
        id: 'tiny',
        system_prompt: 'word '.repeat(200),
        memory: { max_working_memory_tokens: 100, reserved_output_tokens: 10 },
      },
    });
    const over = await call('POST', '/v1/context', {
      body: { agent_id: 'tiny', session_id: 's', message: 'Hi' },
    });
    expect(over.status).toBe(422);
    expect(over.body.error).toMatchObject({ code: 'context_budget_exceeded', category: 'budget' });

    for (const body of [
      { session_id: 's' },
      { session_id: '', message: 'x' },
      { session_id: 's', message: 'x', format: 'xml' },
      { session_id: 's', message: 'x', surprise: true },
    ]) {
      const answer = await call('POST', '/v1/context', { body });
      expect(answer.status).toBe(400);
      expect(answer.body.error.code).toBe('validation_failed');
    }
    const blank = await call('POST', '/v1/context', { body: { session_id: 's', message: '   ' } });
    expect(blank.status).toBe(400);
  });
});

describe('GET /v1/inspector/sessions/{session_id}/traces', () => {
  it('lists the session’s traces newest first, metadata only', async () => {
    const { call } = extensionApp();
    const all = await call('GET', `/v1/inspector/sessions/chat-1/traces?${query}`);
    expect(all.status).toBe(200);
    expect(all.body.total).toBe(3);
    const ids = all.body.traces.map((trace: { id: string }) => trace.id);
    expect([...ids].sort().reverse()).toEqual(ids);
    // The newest is the anthropic turn, the oldest the six-section one.
    const oldest = all.body.traces[2];
    expect(oldest).toMatchObject({
      session_id: 'chat-1',
      namespace: 'shop',
      user_id: 'ada',
      agent_id: 'support',
    });
    expect(oldest.trace.sections.map((section: { name: string }) => section.name)).toEqual([
      'system',
      'procedure',
      'knowledge',
      'episodes',
      'history',
      'current',
    ]);
    const knowledge = oldest.trace.sections[2].items;
    expect(knowledge.some((item: { source?: string }) => item.source === 'Returns.md')).toBe(true);
    expect(knowledge.every((item: { score?: number }) => typeof item.score === 'number')).toBe(true);
    // Every retrieved candidate carries the parts of its score, as numbers only.
    type Candidate = { id: string; kind: string; components?: Record<string, number> };
    const candidates: Candidate[] = oldest.trace.sections
      .slice(1, 4)
      .flatMap((section: { items: Candidate[] }) => section.items);
    expect(candidates.length).toBeGreaterThanOrEqual(4);
    for (const candidate of candidates) {
      expect(Object.keys(candidate.components ?? {}).length).toBeGreaterThan(0);
      for (const value of Object.values(candidate.components ?? {}))
        expect(Number.isFinite(value)).toBe(true);
    }
    const fact = knowledge.find((item: Candidate) => item.components?.decayed_salience !== undefined);
    expect(Object.keys(fact.components).sort()).toEqual(
      [
        'confidence',
        'decay',
        'decayed_salience',
        'salience',
        'similarity',
        'weight_confidence',
        'weight_salience',
        'weight_similarity',
      ].sort(),
    );
    expect(fact.components.salience).toBe(0.9);
    const chunk = knowledge.find((item: { source?: string }) => item.source === 'Returns.md');
    expect(chunk.components.relevance).toBe(chunk.score);
    expect(chunk.components.text_score ?? chunk.components.vector_similarity).toBeTypeOf('number');
    expect(oldest.trace.sections[1].items[0].components).toEqual({ trigger: 1 });
    expect(JSON.stringify(all.body)).not.toContain(SECRET);

    const newest = await call('GET', `/v1/inspector/sessions/chat-1/traces?${query}&limit=1`);
    expect(newest.body.traces).toHaveLength(1);
    expect(newest.body.traces[0].id).toBe(ids[0]);
  });

  it('keeps no message, memory, prompt or knowledge content at rest', async () => {
    const { engram } = extensionApp();
    const { documents } = await engram.store.documents.listDocuments('t1', TRACES_COLLECTION, {
      limit: 1_000,
      offset: 0,
    });
    expect(documents.length).toBeGreaterThanOrEqual(3);
    expect(JSON.stringify(documents)).not.toContain(SECRET);
    // Whereas the session itself does hold it: the check above is not vacuous.
    const stored = await engram.sessions.get({
      sessionId: 'chat-1',
      namespace: 'shop',
      userId: 'ada',
      tenantId: 't1',
    });
    expect(JSON.stringify(stored)).toContain(SECRET);
  });

  it('is readable by inspector and admin roles only, within the tenant', async () => {
    const { call } = extensionApp();
    const path = `/v1/inspector/sessions/chat-1/traces?${query}`;
    expect((await call('GET', path, { caller: { role: 'inspector' } })).body.total).toBe(3);
    const agent = await call('GET', path, { caller: { role: 'agent' } });
    expect(agent.status).toBe(403);
    expect(agent.body.error.code).toBe('forbidden');
    expect((await call('GET', path, { caller: { tenant: 't2' } })).body).toEqual({ traces: [], total: 0 });
    expect((await call('GET', '/v1/inspector/sessions/chat-1/traces')).body.total).toBe(0);
    const invalid = await call('GET', `${path}&limit=0`);
    expect(invalid.status).toBe(400);
    expect(invalid.body.error.code).toBe('validation_failed');
  });
});
