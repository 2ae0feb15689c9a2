import { z } from 'zod';
import { parseWith } from '../../core/errors.js';
import { causeWithoutUrlSecrets, redactedUrl, withoutUrlSecrets } from '../../core/redacted-url.js';
import { httpError, LlmError } from './llm-error.js';
import type { ChatChunk, ChatCompletion, ChatRequest, ChatUsage, LlmProvider } from './llm-provider.js';
import { readServerSentEvents } from './server-sent-events.js';

const optionsSchema = z.object({
  /** API root: `https://api.openai.com/v1`, `http://localhost:11434/v1` (Ollama), `http://localhost:8000/v1` (vLLM), … */
  baseUrl: z.url(),
  /** The server's model name, e.g. `gpt-4o-mini`, `llama3.1:8b`. */
  model: z.string().min(1).max(256),
  /** Sent as `Authorization: Bearer …` when given. */
  apiKey: z.string().min(1).optional(),
  /** Longest wait for an answer; when streaming, for the first and then each next chunk. */
  timeoutMs: z.number().int().positive().max(600_000).default(60_000),
  temperature: z.number().min(0).max(2).default(0),
  /** Send `response_format: {type: "json_object"}` for JSON requests (off for servers that reject it). */
  jsonResponseFormat: z.boolean().default(true),
  /** Extra headers on every request (a proxy's key, an organization id). */
  headers: z.record(z.string(), z.string()).default({}),
  /** Replaces the global fetch (proxies, tests). */
  fetch: z
    .custom<typeof fetch>((value) => typeof value === 'function', 'fetch must be a function')
    .optional(),
});

/** Options of {@link createOpenAIChatProvider}. */
export type OpenAIChatProviderOptions = z.input<typeof optionsSchema>;

const usageSchema = z
  .object({ prompt_tokens: z.number(), completion_tokens: z.number() })
  .nullish()
  .transform((usage): ChatUsage | null =>
    usage ? { promptTokens: usage.prompt_tokens, completionTokens: usage.completion_tokens } : null,
  );

const completionSchema = z.object({
  model: z.string().optional(),
  choices: z
    .array(
      z.object({
        message: z.object({ content: z.string().nullish() }),
        finish_reason: z.string().nullish(),
      }),
    )
    .min(1),
  usage: usageSchema,
});

const chunkSchema = z.object({
  choices: z
    .array(
      z.object({
        delta: z.object({ content: z.string().nullish() }).nullish(),
        finish_reason: z.string().nullish(),
      }),
    )
    .default([]),
  usage: usageSchema,
});

/** An error event inside a stream (`{"error": {...}}`), which some servers send instead of a status. */
const streamErrorSchema = z.object({ error: z.unknown() });

/**
 * A provider for any server speaking OpenAI's `POST /chat/completions`: OpenAI, Azure-style proxies,
 * Ollama, vLLM, llama.cpp server, LM Studio, and Anthropic's OpenAI-compatible endpoint. One HTTP
 * attempt per call; failures are typed LlmErrors (see llm-error.ts).
 */
export function createOpenAIChatProvider(options: OpenAIChatProviderOptions): LlmProvider {
  const config = parseWith(optionsSchema, options, 'OpenAI chat provider options');
  const url = `${config.baseUrl.replace(/\/+$/, '')}/chat/completions`;
  // Messages name the endpoint without the key its base URL may carry (user info, `?api-key=…`).
  const shownUrl = redactedUrl(url);
  const fetchImplementation = config.fetch ?? globalThis.fetch;
  const headers: Record<string, string> = { ...config.headers, 'content-type': 'application/json' };
  if (config.apiKey) headers.authorization = `Bearer ${config.apiKey}`;

  const bodyOf = (request: ChatRequest, stream: boolean) =>
    JSON.stringify({
      model: config.model,
      messages: request.messages,
      temperature: request.temperature ?? config.temperature,
      ...(request.maxTokens === undefined ? {} : { max_tokens: request.maxTokens }),
      ...(request.stop === undefined ? {} : { stop: request.stop }),
      ...(request.json && config.jsonResponseFormat ? { response_format: { type: 'json_object' } } : {}),
      ...(stream ? { stream: true } : {}),
    });

  /**
   * Runs `work` with a signal that aborts on the caller's signal or after `timeoutMs` of silence
   * (`touch` restarts the clock); maps what fails into LlmError.
   */
  async function* guarded<T>(
    request: ChatRequest,
    work: (signal: AbortSignal, touch: () => void) => AsyncGenerator<T>,
  ): AsyncGenerator<T> {
    const timeout = new AbortController();
    let timer: NodeJS.Timeout | undefined;
    const touch = () => {
      clearTimeout(timer);
      timer = setTimeout(() => timeout.abort(), config.timeoutMs);
    };
    touch();
    const signal = request.signal ? AbortSignal.any([request.signal, timeout.signal]) : timeout.signal;
    try {
      yield* work(signal, touch);
    } catch (error) {
      if (request.signal?.aborted) throw request.signal.reason;
      if (timeout.signal.aborted) {
        throw new LlmError(
          'llm_timeout',
          `Chat completion request to ${shownUrl} timed out after ${config.timeoutMs} ms`,
          { cause: causeWithoutUrlSecrets(error, url) },
        );
      }
      if (error instanceof LlmError) throw error;
      throw new LlmError(
        'llm_unavailable',
        // fetch quotes the URL in some messages (one with credentials, which it refuses).
        `Chat completion request to ${shownUrl} failed: ${withoutUrlSecrets((error as Error).message, url)}`,
        { cause: causeWithoutUrlSecrets(error, url) },
      );
    } finally {
      clearTimeout(timer);
      // Releases the connection when the consumer stopped reading early.
      timeout.abort();
    }
  }

  async function post(request: ChatRequest, stream: boolean, signal: AbortSignal): Promise<Response> {
    const response = await fetchImplementation(url, {
      method: 'POST',
      headers,
      body: bodyOf(request, stream),
      signal,
    });
    if (!response.ok) throw httpError(shownUrl, response.status, await response.text(), response.headers);
    return response;
  }

  const invalid = (reason: string, cause?: unknown) =>
    new LlmError('llm_response_invalid', `Invalid chat completion response from ${shownUrl}: ${reason}`, {
      cause,
    });

  return {
    model: `openai:${config.model}`,

    async complete(request) {
      const answers = guarded(request, async function* (signal) {
        const response = await post(request, false, signal);
        yield await response.text();
      });
      let text = '';
      for await (const body of answers) text = body;
      let json: unknown;
      try {
        json = JSON.parse(text);
      } catch {
        // Not the SyntaxError as cause: its message quotes the answer, which may echo the prompt.
        throw invalid('not JSON');
      }
      const parsed = completionSchema.safeParse(json);
      if (!parsed.success) throw invalid(describeIssue(parsed.error), parsed.error);
      const [choice] = parsed.data.choices;
      return {
        content: choice?.message.content ?? '',
        finishReason: choice?.finish_reason ?? null,
        usage: parsed.data.usage,
        model: parsed.data.model ?? config.model,
      } satisfies ChatCompletion;
    },

    stream(request) {
      return guarded(request, async function* (signal, touch): AsyncGenerator<ChatChunk> {
        const response = await post(request, true, signal);
        if (!response.body) throw invalid('no body');
        let finished = false;
        for await (const event of readServerSentEvents(response.body)) {
          touch();
          if (event.data === '[DONE]') return;
          let json: unknown;
          try {
            json = JSON.parse(event.data);
          } catch {
            // Neither the event's text nor the SyntaxError (which quotes it): it may echo the prompt.
            throw invalid(`stream event is not JSON (${event.data.length} characters)`);
          }
          const failure = streamErrorSchema.safeParse(json);
          if (failure.success) {
            throw new LlmError(
              'llm_unavailable',
              `Chat completion stream from ${shownUrl} reported an error`,
              {
                details: { error: failure.data.error },
              },
            );
          }
          const chunk = chunkSchema.safeParse(json);
          if (!chunk.success) throw invalid(describeIssue(chunk.error), chunk.error);
          const [choice] = chunk.data.choices;
          finished ||= Boolean(choice?.finish_reason);
          yield {
            delta: choice?.delta?.content ?? '',
            finishReason: choice?.finish_reason ?? null,
            ...(chunk.data.usage ? { usage: chunk.data.usage } : {}),
          };
        }
        // Some servers omit [DONE]; a stream cut off before any finish reason is a failure, though.
        if (!finished) throw invalid('the stream ended before the answer did');
      });
    },
  };
}

function describeIssue(error: z.ZodError): string {
  const issue = error.issues[0];
  return issue ? `${issue.path.join('.') || 'body'}: ${issue.message}` : 'unexpected shape';
}
