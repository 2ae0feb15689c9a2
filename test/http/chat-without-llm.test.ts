import { describe, expect, it } from 'vitest';
import { useChatServer } from './chat-server.js';

const chatServer = useChatServer({ llm: false });

describe('POST /v1/sessions/{session_id}/chat without an LLM', () => {
  it('answers 503 llm_not_configured and stores nothing; the rest of the server works', async () => {
    const response = await chatServer().chat('a', 'no-llm', { message: 'Hello' });
    expect(response.status).toBe(503);
    expect(response.headers.get('content-type')).toContain('application/json');
    const body = (await response.json()) as { error: { code: string; category: string; message: string } };
    expect(body.error).toMatchObject({ code: 'llm_not_configured', category: 'unavailable' });
    expect(body.error.message).toContain('needs an LLM');
    expect(await chatServer().engram.sessions.get({ tenantId: 'tenant-a', sessionId: 'no-llm' })).toBeNull();
    // No trace either: the turn never got as far as assembling a context.
    const traces = await chatServer().engram.traces.list({ tenantId: 'tenant-a', sessionId: 'no-llm' });
    expect(traces.total).toBe(0);

    const context = await chatServer().request('a', '/v1/context', {
      method: 'POST',
      body: { session_id: 'no-llm', message: 'Hello' },
    });
    expect(context.status).toBe(200);
  });
});
