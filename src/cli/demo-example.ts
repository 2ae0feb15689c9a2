import type { MessageInput } from '../core/schemas/message.js';
import type { SessionRef } from '../engine/sessions/session-ref.js';
import type { Engram } from '../engram.js';

/** The demo's agent and user: the example below belongs to them. */
export const DEMO_AGENT_ID = 'default';
export const DEMO_USER_ID = 'demo-user';

/** A message that matches the example: the procedure's trigger, the document and the episode. */
export const DEMO_SUGGESTION = 'My new order arrived damaged. Can I get a replacement?';

/** An earlier exchange in the demo's session: without one, a first message has no history. */
export const DEMO_EARLIER_EXCHANGE: readonly MessageInput[] = [
  { role: 'user', content: 'Hi! I ordered a blue teapot last week, order #1042.' },
  { role: 'assistant', content: 'Thanks! Order #1042, one blue teapot, was delivered yesterday.' },
];

/**
 * Seeds a small example on first run, so that a first message already fills all six sections:
 * an approved procedure, a knowledge document for the agent, an episode of the user's past
 * session, a fact about the user, and an earlier exchange in `session` when it is empty (never
 * mixed into a conversation already there). Does nothing when the agent already has knowledge (a
 * database that was seeded, or holds real data). Resolves whether it seeded.
 */
export async function seedDemoExample(engram: Engram, session: SessionRef): Promise<boolean> {
  const tenantId = session.tenantId ?? 'default';
  if ((await engram.knowledge.list(tenantId, DEMO_AGENT_ID)).length > 0) return false;
  if (((await engram.sessions.get(session, { recentMessagesLimit: 1 }))?.messageCount ?? 0) === 0) {
    await engram.sessions.append(session, [...DEMO_EARLIER_EXCHANGE]);
  }
  await engram.knowledge.ingest(tenantId, {
    agentId: DEMO_AGENT_ID,
    name: 'Returns policy.md',
    content:
      '# Returns policy\n\nDamaged or broken items are replaced free of charge within 30 days of delivery. ' +
      'Customers may choose a refund instead; refunds take 5 business days.',
  });
  const procedure = await engram.procedures.create(tenantId, {
    agentId: DEMO_AGENT_ID,
    name: 'Damaged order',
    triggers: ['damaged', 'broken'],
    steps: ['Apologize for the damage', 'Ask for the order number', 'Offer a replacement or a refund'],
  });
  await engram.procedures.approve(tenantId, procedure.id);
  await engram.episodes.record(tenantId, {
    userId: DEMO_USER_ID,
    agentId: DEMO_AGENT_ID,
    summary:
      'The user reported a damaged kettle (order #1001) and chose a replacement, which arrived in 3 days.',
    keyFacts: ['order #1001 was replaced'],
  });
  await engram.memories.create(tenantId, [
    {
      text: 'The user prefers replacements over refunds.',
      userId: DEMO_USER_ID,
      agentId: null,
      salience: 0.9,
    },
  ]);
  return true;
}
