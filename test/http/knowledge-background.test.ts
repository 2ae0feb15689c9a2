import { describe, expect, it } from 'vitest';
import { BACKGROUND_DOCUMENT_CHARS } from '../../src/engine/long-term/knowledge-ingest-job.js';
import { useTestServer } from './test-server.js';

const testServer = useTestServer({ bodyLimitBytes: 2_000_000 });

async function call(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const response = await testServer().request(path, { method, body, headers });
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON answers
  return { status: response.status, headers: response.headers, body: (await response.json()) as any };
}

/** A Markdown document of about `chars` characters, in sections; `topic` keeps two documents' texts apart. */
function markdown(chars: number, topic: string): string {
  const parts: string[] = [];
  for (let section = 0, size = 0; size < chars; section++) {
    const part = `## Section ${section}\n\n${topic} rule ${section}: requests are answered in the order they arrive, and each section says so in words.\n\n`;
    parts.push(part);
    size += part.length;
  }
  return parts.join('');
}

describe('large knowledge documents over REST', () => {
  it('a small document is ingested before the answer (201)', async () => {
    await call('POST', '/v1/agents', { id: 'small' });
    const answer = await call('POST', '/v1/agents/small/knowledge', {
      name: 'Small.md',
      content: markdown(2_000, 'Small'),
    });
    expect(answer.status).toBe(201);
    expect(answer.body.chunks).toBeGreaterThan(0);
  });

  it('a large one is 202 with a task whose progress shows, while /v1/health keeps answering', async () => {
    await call('POST', '/v1/agents', { id: 'big' });
    const content = markdown(BACKGROUND_DOCUMENT_CHARS * 3, 'Big');
    const accepted = await call('POST', '/v1/agents/big/knowledge?name=Big.md', content, {
      'content-type': 'text/markdown',
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body).toMatchObject({ status: 'pending', agent_id: 'big', name: 'Big.md' });
    const taskPath = `/v1/tasks/${accepted.body.task_id}`;
    expect(accepted.headers.get('location')).toBe(taskPath);

    let task = (await call('GET', taskPath)).body;
    const phases = new Set<string>();
    let healthWhileRunning = 0;
    for (let poll = 0; poll < 10_000 && task.status !== 'success' && task.status !== 'failed'; poll++) {
      const [next, health] = await Promise.all([call('GET', taskPath), call('GET', '/v1/health')]);
      if (next.body.status === 'running' && health.status === 200) healthWhileRunning++;
      if (next.body.progress) phases.add(next.body.progress.phase);
      task = next.body;
    }
    expect(task.status).toBe('success');
    expect(task.progress).toMatchObject({ phase: 'done', unit: 'chunks' });
    expect(healthWhileRunning).toBeGreaterThan(0);
    expect([...phases].some((phase) => phase === 'chunking' || phase === 'storing')).toBe(true);
    const listed = await call('GET', '/v1/agents/big/knowledge');
    expect(listed.body.documents).toEqual([
      expect.objectContaining({ document_id: accepted.body.document_id, chunks: task.progress.total }),
    ]);
  });
});
