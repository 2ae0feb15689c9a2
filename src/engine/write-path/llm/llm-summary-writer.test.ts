import { describe, expect, it } from 'vitest';
import { useScriptedLlm } from '../../../../test/support/scripted-llm.js';
import type { StoredMessage } from '../../../core/schemas/message.js';
import { LlmError } from '../../../providers/llm/llm-error.js';
import { createLlmSummaryWriter } from './llm-summary-writer.js';

const setup = useScriptedLlm();

const messages: StoredMessage[] = [
  {
    id: 'm1',
    seq: 1,
    role: 'user',
    content: 'Find me a hotel in Porto for May 3.',
    createdAt: '2025-04-01T10:00:00.000Z',
    tokenCount: 10,
    tokenEncoding: 'o200k_base',
  },
  {
    id: 'm2',
    seq: 2,
    role: 'assistant',
    content: '',
    toolCalls: [
      { id: 'c7', type: 'function', function: { name: 'search_hotels', arguments: '{"city":"Porto"}' } },
    ],
    createdAt: '2025-04-01T10:00:01.000Z',
    tokenCount: 10,
    tokenEncoding: 'o200k_base',
  },
  {
    id: 'm3',
    seq: 3,
    role: 'tool',
    toolCallId: 'c7',
    content: '[{"name": "Casa Azul", "price": 120}]',
    createdAt: '2025-04-01T10:00:02.000Z',
    tokenCount: 10,
    tokenEncoding: 'o200k_base',
  },
];

const previous = 'User lives in Oslo and is vegetarian. User is planning a trip to Portugal in May 2025.';

async function failure(promise: Promise<unknown>): Promise<LlmError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(LlmError);
  expect(error).toMatchObject({ code: 'llm_output_invalid', retryable: true });
  return error as LlmError;
}

describe('createLlmSummaryWriter', () => {
  it('merges the previous summary with the new messages, tool calls rendered compactly', async () => {
    const { server, llm } = await setup();
    const merged = `${previous} User asked for a hotel in Porto for May 3, 2025; Casa Azul costs 120.`;
    server.script({ content: `\n${merged}\n` });
    const write = createLlmSummaryWriter(llm, { maxChars: 1_000 });
    expect(await write(previous, messages)).toBe(merged);

    const body = server.requests[0]?.body;
    const [system, user] = body?.messages ?? [];
    expect(system?.role).toBe('system');
    expect(system?.content).toMatch(/Keep every fact of the previous summary/);
    expect(system?.content).toMatch(/never silently drop one/);
    expect(system?.content).toContain('Stay under 1000 characters');
    expect(user?.content).toContain(`<previous_summary>\n${previous}\n</previous_summary>`);
    expect(user?.content).toContain('[2025-04-01T10:00:00.000Z] user: Find me a hotel in Porto for May 3.');
    expect(user?.content).toContain('assistant → call search_hotels({"city":"Porto"}) [id c7]');
    expect(user?.content).toContain('tool result (c7): [{"name": "Casa Azul", "price": 120}]');
    expect(body?.max_tokens).toBe(500);
    expect(body).not.toHaveProperty('response_format');
  });

  it('says so when there is no previous summary', async () => {
    const { server, llm } = await setup();
    server.script({ content: 'User wants a hotel in Porto for May 3, 2025.' });
    await createLlmSummaryWriter(llm)(null, messages);
    expect(server.requests[0]?.body.messages?.[1]?.content).toContain(
      '<previous_summary>\n(none yet)\n</previous_summary>',
    );
  });

  it('rejects a summary cut off, over the bound, or that lost most of the previous one (retryable)', async () => {
    const { server, llm } = await setup();
    server.script(
      { content: `${previous} User asked`, finishReason: 'length' },
      { content: 'x'.repeat(201) },
      { content: 'User likes hotels.' },
    );
    const write = createLlmSummaryWriter(llm, { maxChars: 200 });
    expect((await failure(write(previous, messages))).message).toMatch(/cut off/);
    expect((await failure(write(previous, messages))).message).toMatch(/201 characters, limit 200/);
    expect((await failure(write(previous, messages))).message).toMatch(/shrank the previous summary/);
  });

  it('passes a "no change" answer through for the summarizer to keep the previous summary', async () => {
    const { server, llm } = await setup();
    server.script({ content: 'No changes.' });
    expect(await createLlmSummaryWriter(llm)(previous, messages)).toBe('No changes.');
  });
});
