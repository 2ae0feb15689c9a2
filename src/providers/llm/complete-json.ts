import type { z } from 'zod';
import { LlmError } from './llm-error.js';
import type { ChatCompletion, ChatRequest, LlmProvider } from './llm-provider.js';

/**
 * Asks for JSON and returns it validated by `schema`. Malformed JSON and schema mismatches reject
 * with a retryable LlmError `llm_output_invalid` (a new sample often gets it right), carrying the
 * problem and the start of the text in its details.
 */
export async function completeJson<T extends z.ZodType>(
  provider: LlmProvider,
  request: ChatRequest,
  schema: T,
): Promise<{ value: z.output<T>; completion: ChatCompletion }> {
  const completion = await provider.complete({ ...request, json: true });
  return { value: parseModelJson(completion.content, schema, provider.model), completion };
}

/** Parses a model's JSON answer, tolerating Markdown code fences and text around one object or array. */
export function parseModelJson<T extends z.ZodType>(
  text: string,
  schema: T,
  model = 'the model',
): z.output<T> {
  // The message (a failed job keeps it) never quotes the text, which is made of users' data; the
  // excerpt stays in the details. So no SyntaxError either: its message quotes a short text whole.
  const invalid = (problem: string, cause?: unknown) =>
    new LlmError('llm_output_invalid', `${model} did not answer the JSON asked for: ${problem}`, {
      details: { problem, excerpt: text.slice(0, 300) },
      cause,
    });
  let json: unknown;
  try {
    json = JSON.parse(jsonText(text));
  } catch {
    throw invalid('malformed JSON');
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw invalid(
      issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'unexpected shape',
      parsed.error,
    );
  }
  return parsed.data;
}

/** The JSON part of a model's text: inside a ``` fence if there is one, else from the first `{`/`[` to the last `}`/`]`. */
function jsonText(text: string): string {
  const fenced = /```(?:json)?\s*([\s\S]*?)```/i.exec(text);
  const inner = (fenced?.[1] ?? text).trim();
  const start = inner.search(/[[{]/);
  const end = Math.max(inner.lastIndexOf('}'), inner.lastIndexOf(']'));
  return start === -1 || end < start ? inner : inner.slice(start, end + 1);
}
