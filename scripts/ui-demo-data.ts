/**
 * Demo data for the web UI, written through the REST API as a client would: an agent with a
 * knowledge document, procedures (one approved, one proposed), a user's long-term memories (one
 * edited, so it has two versions), a conversation with several assembled turns, a pin and a
 * removal, and an ended session (a background job). Used by `npm run ui:screenshots` and
 * bench/ui-load.ts.
 */

export interface DemoData {
  session: { session_id: string; namespace: string; user_id: string };
  agentId: string;
  memoryIds: string[];
}

type Call = (method: string, path: string, body?: unknown) => Promise<Record<string, unknown>>;

/** A JSON client of the server at `baseUrl`; a non-2xx answer throws with its body. */
export function jsonClient(baseUrl: string, headers: Record<string, string> = {}): Call {
  return async (method, path, body) => {
    const response = await fetch(`${baseUrl}${path}`, {
      method,
      headers: { ...headers, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    });
    const text = await response.text();
    if (!response.ok) throw new Error(`${method} ${path}: ${response.status} ${text}`);
    return text ? (JSON.parse(text) as Record<string, unknown>) : {};
  };
}

const facts = [
  { text: 'Ada prefers replacements over refunds.', topics: ['returns', 'preferences'], entities: ['Ada'] },
  {
    text: 'Ada’s kettle (order #1234) arrived with a cracked lid.',
    topics: ['orders'],
    entities: ['Ada', 'kettle'],
  },
  {
    text: 'Ada lives in Lyon and orders in French or English.',
    topics: ['profile'],
    entities: ['Ada', 'Lyon'],
  },
  {
    text: 'Ada asked for delivery after 6 pm on weekdays.',
    topics: ['delivery', 'preferences'],
    entities: ['Ada'],
  },
  {
    text: 'Ada is a member of the Acme loyalty programme (gold).',
    topics: ['profile'],
    entities: ['Ada', 'Acme'],
  },
  {
    text: 'Ada reported the blender noise in March; it was fixed.',
    topics: ['orders'],
    entities: ['Ada', 'blender'],
  },
];

const conversation = [
  ['user', 'Hi, my order #1234 arrived damaged.'],
  ['assistant', 'Sorry to hear that! What is wrong with it?'],
  ['user', 'The kettle lid is cracked.'],
  ['assistant', 'Thanks. Would you like a refund or a replacement?'],
  ['user', 'A replacement, please. Can it come in the evening?'],
  ['assistant', 'Of course: I will ask for delivery after 6 pm.'],
] as const;

const turns = [
  'Can it come in the evening?',
  'What is your returns policy for damaged items?',
  'Do I need to send the old kettle back?',
  'How long will the replacement take?',
  'Thanks! Anything else I should know about my order?',
];

/** Writes the demo data into the tenant of `call`'s credential. */
export async function seedDemoData(call: Call): Promise<DemoData> {
  const session = { session_id: 'chat-42', namespace: 'support', user_id: 'ada' };
  const scope = `namespace=${session.namespace}&user_id=${session.user_id}`;
  const agentId = 'support';
  await call('POST', '/v1/agents', {
    id: agentId,
    system_prompt: 'You are a support agent for Acme. Be brief and kind.',
    // A top-K of 5 (the default is 50, where the token cap decides), so the inspector shows
    // candidates excluded as over_limit beside the included ones.
    memory: {
      model: 'gpt-4o',
      max_working_memory_tokens: 4000,
      reserved_output_tokens: 500,
      semantic_top_k: 5,
    },
  });
  await call('POST', `/v1/agents/${agentId}/knowledge`, {
    name: 'Returns policy.md',
    content: [
      '# Returns policy',
      '',
      '## Damaged items',
      'Damaged items are replaced free of charge within 30 days of delivery. No need to send the item back.',
      '',
      '## Refunds',
      'Refunds go to the original payment method within 5 working days.',
      '',
      '## Delivery',
      'Replacements ship within 2 working days; evening delivery can be requested.',
    ].join('\n'),
  });
  const approved = await call('POST', `/v1/agents/${agentId}/procedures`, {
    name: 'Damaged item',
    triggers: ['damaged|broken|cracked'],
    steps: ['Apologise', 'Ask for the order number', 'Offer a replacement or a refund'],
  });
  await call('POST', `/v1/agents/${agentId}/procedures/${approved.id}/approve`, {});
  await call('POST', `/v1/agents/${agentId}/procedures`, {
    name: 'Evening delivery',
    triggers: ['evening|after 6'],
    examples: ['Can it come in the evening?'],
    steps: ['Check the delivery slot', 'Confirm the evening window with the customer'],
  });
  await call('POST', '/v1/long-term-memory/', {
    memories: facts.map((fact, index) => ({
      id: `fact-${index + 1}`,
      ...fact,
      user_id: session.user_id,
      namespace: session.namespace,
      memory_type: 'semantic',
    })),
  });
  await call('PATCH', '/v1/long-term-memory/fact-4', {
    text: 'Ada asked for delivery after 6 pm on weekdays and any time on Saturdays.',
  });
  await call('POST', `/v1/working-memory/${session.session_id}/messages?${scope}`, {
    messages: conversation.map(([role, content]) => ({ role, content })),
  });
  const memoryIds = facts.map((_fact, index) => `fact-${index + 1}`);
  for (const [index, message] of turns.entries()) {
    if (index === 2) {
      const pin = (await call('GET', `/v1/long-term-memory/fact-5`)) as { id: string };
      const remove = (await call('GET', `/v1/long-term-memory/fact-6`)) as { id: string };
      await call('POST', `/v1/working-memory/${session.session_id}/working-set?${scope}`, {
        pin: [pin.id],
        remove: [remove.id],
      });
    }
    await call('POST', '/v1/context', { agent_id: agentId, ...session, message });
  }
  // A second, ended session: its episode is a background job.
  await call('POST', `/v1/working-memory/chat-41/messages?${scope}`, {
    messages: [
      { role: 'user', content: 'Is the blender still under warranty?' },
      { role: 'assistant', content: 'Yes, until next March.' },
    ],
  });
  await call('POST', `/v1/working-memory/chat-41/end?${scope}`, {});
  return { session, agentId, memoryIds };
}
