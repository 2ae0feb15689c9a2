import { countTokens } from 'gpt-tokenizer/encoding/o200k_base';
import { describe, expect, it } from 'vitest';
import type { AnthropicContext } from '../../core/assembly/to-anthropic-messages.js';
import type { OpenAIMessage } from '../../core/assembly/to-openai-messages.js';
import { MESSAGE_OVERHEAD_TOKENS, REPLY_PRIMING_TOKENS } from '../../core/tokens/token-counter.js';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';

const exact = (text: string) => countTokens(text, { disallowedSpecial: new Set() });
const framed = (texts: string[]) =>
  REPLY_PRIMING_TOKENS + texts.reduce((sum, text) => sum + exact(text) + MESSAGE_OVERHEAD_TOKENS, 0);

describe('a formatted context fits the budget, markers included', () => {
  it('tool results without a call id (AMS) and system notes cost what the formatters write', async () => {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      defaultSources: false,
    });
    const session = { sessionId: 'markers' };
    const history = Array.from({ length: 40 }, (_, index) => [
      { role: 'user' as const, content: `q${index}` },
      // AMS tool messages carry no call id: OpenAI and Anthropic get them as marked user text.
      { role: 'tool' as const, content: `r${index}` },
      // A system message inside the history: Anthropic gets it as a marked user text.
      { role: 'system' as const, content: `n${index}` },
    ]).flat();
    await engram.sessions.append(session, history);
    const agent = (budget: number) => ({
      systemPrompt: 'sys',
      memory: { model: 'gpt-4o', maxWorkingMemoryTokens: budget, reservedOutputTokens: 0 },
    });
    for (let budget = 100; budget <= 400; budget += 3) {
      const openai = await engram.assemble({
        session,
        message: 'next',
        format: 'openai',
        agent: agent(budget),
      });
      const texts = (openai.messages as OpenAIMessage[]).map((message) => message.content ?? '');
      expect(framed(texts), `openai at ${budget}`).toBeLessThanOrEqual(openai.trace.budget.available);
      const anthropic = await engram.assemble({
        session,
        message: 'next',
        format: 'anthropic',
        agent: agent(budget),
      });
      const { system, messages } = anthropic.messages as AnthropicContext;
      // Each text block counted as a message of its own: an upper bound of the merged messages.
      const blocks = messages.flatMap((message) =>
        message.content.map((block) => (block.type === 'text' ? block.text : '')),
      );
      expect(framed([system, ...blocks]), `anthropic at ${budget}`).toBeLessThanOrEqual(
        anthropic.trace.budget.available,
      );
    }
    await engram.close();
  });
});
