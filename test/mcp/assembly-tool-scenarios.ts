import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { describe, expect, it } from 'vitest';
import { callFailing, callOk } from './mcp-test-client.js';

interface AssembledContext {
  messages: { role: string; content: string }[];
  trace: {
    budget: { available: number; used: number };
    sections: { name: string; tokens: number; included: number; excluded: number }[];
    history: { kept: number };
  };
  agent: { id: string; version: number };
}

/**
 * context.assemble, knowledge.search/upload and procedures.list over any transport. `sources`:
 * whether the engram behind it has its built-in memory sources (the HTTP test server has none).
 */
export function describeAssemblyTools(client: () => Client, sources: boolean): void {
  describe('assembly tools', () => {
    it('knowledge.upload stores a document that knowledge.search finds, with its source', async () => {
      const uploaded = await callOk<Record<string, unknown>>(client(), 'knowledge.upload', {
        name: 'Returns policy.md',
        content: '# Returns\n\nDamaged items are replaced free of charge within 30 days.',
      });
      expect(uploaded).toMatchObject({ agent_id: 'default', name: 'Returns policy.md', chunks: 1 });
      expect(Object.keys(uploaded).sort()).toEqual([
        'agent_id',
        'chunks',
        'created_at',
        'document_id',
        'name',
      ]);
      const { hits } = await callOk<{ hits: Record<string, unknown>[] }>(client(), 'knowledge.search', {
        query: 'damaged item replacement',
      });
      expect(hits[0]).toMatchObject({
        document_id: uploaded.document_id,
        source: 'Returns policy.md',
        chunk_index: 0,
      });
      expect(hits[0]?.text).toContain('replaced free of charge');
      const unknownAgent = await callFailing(client(), 'knowledge.search', {
        agent_id: 'nobody',
        query: 'x',
      });
      expect(unknownAgent.code).toBe('not_found');
    });

    it('knowledge.upload of a large document answers a task that tasks.get follows to success', async () => {
      const section = (index: number) =>
        `## Part ${index}\n\nShipping zone ${index} ships anvils within ${index % 9} days of the order.\n\n`;
      let content = '# Anvil shipping\n\n';
      for (let index = 0; content.length <= 100_000; index++) content += section(index);
      const accepted = await callOk<Record<string, unknown>>(client(), 'knowledge.upload', {
        name: 'Anvil shipping.md',
        content,
      });
      expect(accepted).toMatchObject({
        task_id: expect.any(String),
        status: 'pending',
        agent_id: 'default',
        name: 'Anvil shipping.md',
      });
      expect(accepted).not.toHaveProperty('chunks');
      expect(accepted.message).toContain('tasks.get');
      let task: Record<string, unknown> = {};
      for (let poll = 0; poll < 600 && task.status !== 'success'; poll++) {
        task = await callOk(client(), 'tasks.get', { task_id: accepted.task_id });
        expect(task.status).not.toBe('failed');
        if (task.status !== 'success') await new Promise((resolve) => setTimeout(resolve, 50));
      }
      expect(task).toMatchObject({ id: accepted.task_id, type: 'ingest_document', status: 'success' });
      expect(task.progress).toMatchObject({ phase: 'done' });
      const { hits } = await callOk<{ hits: Record<string, unknown>[] }>(client(), 'knowledge.search', {
        query: 'shipping zone 7 anvils',
      });
      expect(hits[0]).toMatchObject({ document_id: accepted.document_id, source: 'Anvil shipping.md' });
      expect((await callFailing(client(), 'tasks.get', { task_id: 'no-such-task' })).code).toBe('not_found');
    });

    it('context.assemble answers the budgeted context and a summary of its trace', async () => {
      await callOk(client(), 'append_working_memory', {
        session_id: 'assemble-1',
        user_id: 'ada',
        messages: [
          { role: 'user', content: 'My order #1234 arrived damaged.' },
          { role: 'assistant', content: 'Sorry! A refund or a replacement?' },
        ],
      });
      await callOk(client(), 'create_long_term_memories', {
        memories: [{ text: 'Ada prefers replacements over refunds', user_id: 'ada' }],
      });
      const assembled = await callOk<AssembledContext>(client(), 'context.assemble', {
        session_id: 'assemble-1',
        user_id: 'ada',
        message: 'A replacement for the damaged order, please.',
      });
      const texts = assembled.messages.map((message) => message.content).join('\n');
      expect(texts).toContain('My order #1234 arrived damaged.');
      if (sources) {
        expect(texts).toContain('Ada prefers replacements over refunds');
        expect(texts).toContain('replaced free of charge');
      } else expect(texts).not.toContain('replaced free of charge');
      expect(assembled.messages.at(-1)).toEqual({
        role: 'user',
        content: 'A replacement for the damaged order, please.',
      });
      expect(assembled.trace.budget.used).toBeLessThanOrEqual(assembled.trace.budget.available);
      expect(assembled.trace.sections.map((section) => section.name)).toEqual(
        expect.arrayContaining(['system', 'knowledge', 'history', 'current']),
      );
      expect(assembled.trace.history.kept).toBe(2);
      expect(assembled.agent.id).toBe('default');
    });

    it('procedures.list lists the agent’s procedures (none yet) and rejects an unknown status', async () => {
      expect(await callOk(client(), 'procedures.list', {})).toEqual({ procedures: [] });
      const result = await client().callTool({ name: 'procedures.list', arguments: { status: 'nope' } });
      expect(result.isError).toBe(true);
    });
  });
}
