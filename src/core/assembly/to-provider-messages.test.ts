import { describe, expect, it } from 'vitest';
import type { ContextMessage } from './context-message.js';
import { toAnthropicMessages } from './to-anthropic-messages.js';
import { toOpenAIMessages } from './to-openai-messages.js';

const call = {
  id: 'call_1',
  type: 'function' as const,
  function: { name: 'weather', arguments: '{"city":"Oslo"}' },
};
const context: ContextMessage[] = [
  { role: 'system', content: 'Be brief.', section: 'system' },
  { role: 'system', content: 'Relevant knowledge:\n- x', section: 'knowledge' },
  { role: 'user', content: 'Weather in Oslo?', section: 'history', id: 'm1' },
  { role: 'assistant', content: '', section: 'history', id: 'm2', toolCalls: [call] },
  { role: 'tool', content: 'Rain', section: 'history', id: 'm3', toolCallId: 'call_1' },
  { role: 'assistant', content: 'Rainy.', section: 'history', id: 'm4' },
  { role: 'user', content: 'Thanks', section: 'current' },
];

describe('output formats', () => {
  it('OpenAI: tool calls with null content, tool results with tool_call_id', () => {
    const messages = toOpenAIMessages(context);
    expect(messages[3]).toEqual({ role: 'assistant', content: null, tool_calls: [call] });
    expect(messages[4]).toEqual({ role: 'tool', content: 'Rain', tool_call_id: 'call_1' });
    expect(messages).toHaveLength(7);
  });

  it('Anthropic: system separated, tool_use/tool_result blocks, same-role messages merged', () => {
    const { system, messages } = toAnthropicMessages(context);
    expect(system).toBe('Be brief.\n\nRelevant knowledge:\n- x');
    expect(messages.map((entry) => entry.role)).toEqual(['user', 'assistant', 'user', 'assistant', 'user']);
    expect(messages[1]?.content).toEqual([
      { type: 'tool_use', id: 'call_1', name: 'weather', input: { city: 'Oslo' } },
    ]);
    expect(messages[2]?.content).toEqual([{ type: 'tool_result', tool_use_id: 'call_1', content: 'Rain' }]);
  });

  it('a tool result without a call id (as AMS stores them) reaches the model as text', () => {
    const unlinked: ContextMessage[] = [
      { role: 'user', content: 'Weather in Oslo?', section: 'history', id: 'm1' },
      { role: 'tool', content: 'Rain', section: 'history', id: 'm2' },
      { role: 'user', content: 'Thanks', section: 'current' },
    ];
    expect(toOpenAIMessages(unlinked)[1]).toEqual({ role: 'user', content: '[tool result]\nRain' });
    expect(toAnthropicMessages(unlinked).messages).toEqual([
      {
        role: 'user',
        content: [
          { type: 'text', text: 'Weather in Oslo?' },
          { type: 'text', text: '[tool result]\nRain' },
          { type: 'text', text: 'Thanks' },
        ],
      },
    ]);
  });
});
