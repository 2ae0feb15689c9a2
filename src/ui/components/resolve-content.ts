import { api } from '../api-client.js';
import type {
  AmsMemory,
  AmsMessage,
  Procedure,
  TraceItem,
  TraceRecord,
  WorkingMemory,
} from '../api-types.js';

/** Messages read first for a message's content: the newest ones (where a turn's history is). */
export const RECENT_MESSAGES = 50;

/**
 * A message of the session by id, without reading the whole session: the newest
 * `RECENT_MESSAGES` first (`recent_messages_limit`), the rest only when it is not among them and
 * there are more. Null: not among the unsummarized messages (summarized since, or deleted).
 */
async function findMessage(
  sessionPath: string,
  session: Record<string, string | null>,
  id: string,
): Promise<AmsMessage | null> {
  const recent = await api<WorkingMemory>('GET', sessionPath, {
    query: { ...session, recent_messages_limit: RECENT_MESSAGES },
  });
  const found = recent.messages.find((entry) => entry.id === id);
  if (found || recent.messages.length < RECENT_MESSAGES) return found ?? null;
  const all = await api<WorkingMemory>('GET', sessionPath, { query: session });
  return all.messages.find((entry) => entry.id === id) ?? null;
}

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
    case 'summary': {
      // The summary only: one message rides along, not the whole session.
      const query = { ...session, recent_messages_limit: 1 };
      return (await api<WorkingMemory>('GET', sessionPath, { query })).context ?? '(no summary now)';
    }
    case 'message': {
      const message = await findMessage(sessionPath, session, item.id);
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
