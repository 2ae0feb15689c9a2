import { describe, expect, it } from 'vitest';
import { storedMessage, useScriptedLlm } from '../../../../test/support/scripted-llm.js';
import { writeEpisode } from './write-episode.js';

const setup = useScriptedLlm();

const message = storedMessage;

const messages = [
  message(1, 'user', 'Hi! I need to renew my passport before the Tokyo trip on June 12.'),
  message(2, 'assistant', 'Sure. The renewal form DS-82 works by mail if your passport is undamaged.'),
  message(3, 'user', 'Great, thanks. My passport expires in July.'),
];

describe('writeEpisode', () => {
  it('asks the model for a summary and key facts over the running summary and the messages', async () => {
    const { server, llm } = await setup();
    server.script({
      content: JSON.stringify({
        summary: 'User renewed their passport by mail before a trip to Tokyo.',
        key_facts: ['User travels to Tokyo on June 12, 2025', 'User travels to Tokyo on June 12, 2025'],
      }),
    });
    const episode = await writeEpisode(llm, { messages, summary: 'User planned a trip to Japan.' });
    expect(episode).toEqual({
      summary: 'User renewed their passport by mail before a trip to Tokyo.',
      keyFacts: ['User travels to Tokyo on June 12, 2025'],
    });
    const [system, user] = server.requests[0]?.body.messages ?? [];
    expect(system?.content).toMatch(/"key_facts"/);
    expect(system?.content).toMatch(/covers the earlier part \(the previous summary\)/);
    expect(user?.content).toContain('<previous_summary>\nUser planned a trip to Japan.\n</previous_summary>');
    expect(user?.content).toContain('user: Hi! I need to renew my passport');
    expect(server.requests[0]?.body.response_format).toEqual({ type: 'json_object' });
  });

  it('reports an answer without a summary as the retryable llm_output_invalid', async () => {
    const { server, llm } = await setup();
    server.script({ content: '{"summary": "", "key_facts": []}' });
    await expect(writeEpisode(llm, { messages, summary: null })).rejects.toMatchObject({
      code: 'llm_output_invalid',
      retryable: true,
    });
  });

  it('without a model, keeps the running summary and chooses informative sentences extractively', async () => {
    const episode = await writeEpisode(null, { messages, summary: '- user: Planned a trip to Japan.' });
    expect(episode.summary.startsWith('- user: Planned a trip to Japan.')).toBe(true);
    expect(episode.summary).toContain('Tokyo');
    expect(episode.keyFacts).toContain('I need to renew my passport before the Tokyo trip on June 12.');
    expect(episode.keyFacts).toContain('My passport expires in July.');
    expect(episode.keyFacts.join(' ')).not.toMatch(/\bHi!|thanks/);
  });

  it('without informative content, still writes a non-empty summary', async () => {
    const episode = await writeEpisode(null, { messages: [message(1, 'user', 'Ok.')], summary: null });
    expect(episode.summary.length).toBeGreaterThan(0);
    expect(episode.keyFacts.length).toBeLessThanOrEqual(1);
  });
});
