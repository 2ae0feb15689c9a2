import { describe, expect, it } from 'vitest';
import { storedMessage, useScriptedLlm } from '../../../../test/support/scripted-llm.js';
import { ValidationError } from '../../../core/errors.js';
import { captureProcedure } from './capture-procedure.js';

const setup = useScriptedLlm();

const message = storedMessage;

const messages = [
  message(1, 'user', 'Deploy billing-api to staging please.'),
  message(2, 'assistant', 'Ran the tests, built the image, pushed it, and rolled out to staging. Done.'),
];

const proposal = (procedure: Record<string, unknown> | null, task = procedure !== null) => ({
  content: JSON.stringify({ multi_step_task: task, procedure }),
});

describe('captureProcedure', () => {
  it('proposes a pending procedure with safe triggers, examples and steps', async () => {
    const { server, llm } = await setup();
    server.script(
      proposal({
        name: 'Deploy a service to staging',
        triggers: [
          '\\bdeploy\\b.*\\bstaging\\b',
          '(a+)+$',
          '.*',
          'x'.repeat(400),
          '(unclosed',
          '\\bdeploy\\b.*\\bstaging\\b',
        ],
        examples: ['Deploy the api to staging', 'Deploy the api to staging'],
        steps: ['Run the test suite', 'Build the image', 'Push the image', 'Roll out to staging'],
      }),
    );
    const procedure = await captureProcedure(llm, { messages, agentId: 'ops-bot' });
    expect(procedure).toEqual({
      agentId: 'ops-bot',
      name: 'Deploy a service to staging',
      triggers: ['\\bdeploy\\b.*\\bstaging\\b'],
      examples: ['Deploy the api to staging'],
      steps: ['Run the test suite', 'Build the image', 'Push the image', 'Roll out to staging'],
      status: 'pending',
    });
    const [system, user] = server.requests[0]?.body.messages ?? [];
    expect(system?.content).toMatch(/multi-step task/);
    expect(system?.content).toMatch(/no backreferences, no nested or repeated groups/);
    expect(system?.content).toContain('{"multi_step_task": false, "procedure": null}');
    expect(user?.content).toContain('<transcript>');
    expect(user?.content).toContain('user: Deploy billing-api to staging please.');
    expect(server.requests[0]?.body.response_format).toEqual({ type: 'json_object' });
  });

  it('answers null when the model says there was no multi-step task, or proposes a single step', async () => {
    const { server, llm } = await setup();
    server.script(
      proposal(null, false),
      proposal({ name: 'Say hi', triggers: [], examples: ['hi'], steps: ['Greet'] }),
      proposal({ name: 'Ignored', triggers: [], examples: ['x'], steps: ['a', 'b'] }, false),
    );
    for (let index = 0; index < 3; index += 1) {
      expect(await captureProcedure(llm, { messages, agentId: 'ops-bot' })).toBeNull();
    }
  });

  it('reports malformed or incomplete answers as the retryable llm_output_invalid', async () => {
    const { server, llm } = await setup();
    server.script(
      { content: 'I think there was a task {' },
      proposal({ name: 'Deploy', triggers: [], examples: [], steps: ['a', 'b'] }),
      { content: '{"procedure": null}' },
    );
    for (let index = 0; index < 3; index += 1) {
      await expect(captureProcedure(llm, { messages, agentId: 'ops-bot' })).rejects.toMatchObject({
        code: 'llm_output_invalid',
        retryable: true,
      });
    }
  });

  it('rejects an invalid agent id before calling, and makes no call for no messages', async () => {
    const { server, llm } = await setup();
    await expect(captureProcedure(llm, { messages, agentId: '' })).rejects.toBeInstanceOf(ValidationError);
    expect(await captureProcedure(llm, { messages: [], agentId: 'ops-bot' })).toBeNull();
    expect(server.requests).toHaveLength(0);
  });
});
