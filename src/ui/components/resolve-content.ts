import { api } from '../api-client.js';
import type { AmsMemory, Procedure, TraceItem, TraceRecord, WorkingMemory } from '../api-types.js';

/**
 * A trace holds ids, never content: the text is read now, with the caller's own rights (a 403 or
 * 404 says why it cannot be shown). The turn's own message is not stored anywhere.
 */
export async function resolveContent(item: TraceItem, section: string, record: TraceRecord): Promise<string> {
  const session = { namespace: record.namespace, user_id: record.user_id };
  const sessionPath = `/v1/working-memory/${encodeURIComponent(record.session_id)}`;
  switch (item.kind) {
    case 'current':
      return 'The turn’s message is not stored (traces keep no content).';
    case 'system': {
      const agent = await api<{ system_prompt: string }>(
        'GET',
        `/v1/agents/${encodeURIComponent(record.agent_id)}`,
      );
      return agent.system_prompt;
    }
    case 'summary':
      return (await api<WorkingMemory>('GET', sessionPath, { query: session })).context ?? '(no summary now)';
    case 'message': {
      const memory = await api<WorkingMemory>('GET', sessionPath, { query: session });
      const message = memory.messages.find((entry) => entry.id === item.id);
      return message
        ? `${message.role}: ${message.content}`
        : '(no longer in the session’s unsummarized messages)';
    }
    case 'memory': {
      if (section === 'procedure') {
        const path = `/v1/agents/${encodeURIComponent(record.agent_id)}/procedures/${encodeURIComponent(item.id)}`;
        const procedure = await api<Procedure>('GET', path);
        return `${procedure.name}\n${procedure.steps.map((step, index) => `${index + 1}. ${step}`).join('\n')}`;
      }
      return (await api<AmsMemory>('GET', `/v1/long-term-memory/${encodeURIComponent(item.id)}`)).text;
    }
  }
}
