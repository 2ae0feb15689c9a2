import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { completeJson, parseModelJson } from './complete-json.js';
import { LlmError } from './llm-error.js';
import type { ChatRequest, LlmProvider } from './llm-provider.js';

/** An error's message and its causes' messages. */
function messagesOf(error: unknown): string {
  const cause = (error as { cause?: unknown }).cause;
  return `${(error as Error).message} ${cause === undefined ? '' : messagesOf(cause)}`;
}

const facts = z.object({ facts: z.array(z.string()) });

/** A provider that answers `text` and remembers the request. */
function answering(text: string): LlmProvider & { seen: ChatRequest[] } {
  const seen: ChatRequest[] = [];
  return {
    model: 'fake:model',
    seen,
    async complete(request) {
      seen.push(request);
      return { content: text, finishReason: 'stop', usage: null, model: 'fake' };
    },
    stream: () => {
      throw new Error('not used');
    },
  };
}

describe('completeJson', () => {
  it('asks for JSON and returns the validated value', async () => {
    const provider = answering('{"facts": ["Ada likes tea"]}');
    const { value, completion } = await completeJson(provider, { messages: [] }, facts);
    expect(value).toEqual({ facts: ['Ada likes tea'] });
    expect(completion.finishReason).toBe('stop');
    expect(provider.seen[0]?.json).toBe(true);
  });

  it('reports malformed JSON as a retryable llm_output_invalid error with an excerpt', async () => {
    const error = await completeJson(answering('{"facts": ["unterminated'), { messages: [] }, facts).catch(
      (failure: unknown) => failure,
    );
    expect(error).toBeInstanceOf(LlmError);
    expect(error).toMatchObject({ code: 'llm_output_invalid', retryable: true });
    expect((error as LlmError).details).toMatchObject({ excerpt: '{"facts": ["unterminated' });
    expect((error as LlmError).message).toContain('malformed JSON');
  });

  it('never quotes the model’s text in the message or its causes (job errors keep the message)', async () => {
    // JSON.parse's own message quotes a short text whole: the model's answer, made of users' data.
    for (const text of ['ZEBRA-SECRET-4711', '{"facts": ["ZEBRA-SECRET-4711" x]}']) {
      const error = await completeJson(answering(text), { messages: [] }, facts).catch(
        (failure: unknown) => failure,
      );
      expect(error).toMatchObject({ code: 'llm_output_invalid', details: { excerpt: text } });
      expect(messagesOf(error)).not.toContain('ZEBRA');
    }
  });

  it('reports JSON of the wrong shape with the offending path', () => {
    expect(() => parseModelJson('{"facts": [1]}', facts)).toThrow(/facts\.0/);
  });
});

describe('parseModelJson', () => {
  it('reads JSON inside a Markdown fence or surrounded by prose', () => {
    expect(parseModelJson('```json\n{"facts": []}\n```', facts)).toEqual({ facts: [] });
    expect(parseModelJson('Sure! Here it is: {"facts": ["x"]} Hope that helps.', facts)).toEqual({
      facts: ['x'],
    });
    expect(parseModelJson('[1, 2]', z.array(z.number()))).toEqual([1, 2]);
  });
});
