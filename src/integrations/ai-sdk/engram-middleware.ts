import type { LanguageModelMiddleware } from 'ai';
import type { EngramClient } from '../../client/engram-client.js';
import type { Engram } from '../../engram.js';
import {
  type BackendMessage,
  clientBackend,
  type EngramMemoryBackend,
  libraryBackend,
  type SessionScope,
} from './engram-memory-backend.js';

type CallOptions = Parameters<NonNullable<LanguageModelMiddleware['transformParams']>>[0]['params'];
type Prompt = CallOptions['prompt'];
type PromptMessage = Prompt[number];

/** Options of `engramMiddleware`: where engram is, and which session each call belongs to. */
export interface EngramMiddlewareOptions {
  /** An Engram instance (library) or an `engram/client` (HTTP); exactly one. */
  engram?: Engram;
  client?: EngramClient;
  /** The session of every call, or a function picking it from the call's options. */
  session: SessionScope | ((params: CallOptions) => SessionScope);
  /** The stored agent whose system prompt and budget apply; default the tenant's `default` agent. */
  agentId?: string;
  /** Keep the caller's own system messages before engram's context (default true). */
  keepSystemMessages?: boolean;
  /** Store the turn (user message + answer) after the model answers (default true). */
  appendTurn?: boolean;
  /**
   * Called when engram fails; with it, the call goes on: the model gets the caller's own prompt
   * when the context cannot be assembled, and the answer is returned when the turn cannot be
   * stored (the event carries the message and answer, to store later). Without it, a failure of
   * engram fails the call.
   */
  onError?: (error: unknown, event: EngramMiddlewareErrorEvent) => void;
}

/** What failed, for `onError`: assembling the context, or storing the finished turn. */
export type EngramMiddlewareErrorEvent =
  | { phase: 'assemble'; message: string }
  | { phase: 'append'; message: string; answer: string };

/** Finish reasons of a step that does not end the turn: the model called tools, or it failed. */
const UNFINISHED = new Set(['tool-calls', 'error']);

const textOf = (message: PromptMessage): string =>
  typeof message.content === 'string'
    ? message.content
    : message.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');

/** engram's context as AI SDK prompt messages (text only: tool messages stay out). */
function toPrompt(messages: BackendMessage[]): Prompt {
  return messages.flatMap((message): Prompt => {
    if (message.role === 'system') return [{ role: 'system', content: message.content }];
    if (message.role === 'user')
      return [{ role: 'user', content: [{ type: 'text', text: message.content }] }];
    if (message.role === 'assistant' && message.content) {
      return [{ role: 'assistant', content: [{ type: 'text', text: message.content }] }];
    }
    return [];
  });
}

/** The user message of the call: the last user message of its prompt. */
function currentMessage(prompt: Prompt): string | undefined {
  const last = prompt.findLast((message) => message.role === 'user');
  return last ? textOf(last) : undefined;
}

/** The answer's text of one step. */
const answerOf = (content: Array<{ type: string; text?: string }>): string =>
  content.flatMap((part) => (part.type === 'text' && part.text ? [part.text] : [])).join('');

/**
 * A Vercel AI SDK language-model middleware (`wrapLanguageModel({ model, middleware })`) that puts
 * engram in the loop: before the model runs, the prompt's conversation is replaced by engram's
 * assembled context for the last user message (system prompt, procedure, knowledge, episodes,
 * pruned history, the message, under the agent's budget); after it answers, the user message and
 * the answer are appended to the session, for `generateText` and `streamText` alike.
 */
export function engramMiddleware(options: EngramMiddlewareOptions): LanguageModelMiddleware {
  if (!options.engram === !options.client)
    throw new TypeError('engramMiddleware needs one of engram or client');
  const backend: EngramMemoryBackend = options.engram
    ? libraryBackend(options.engram)
    : clientBackend(options.client as EngramClient);
  const scopeOf = (params: CallOptions) =>
    typeof options.session === 'function' ? options.session(params) : options.session;
  const keepSystem = options.keepSystemMessages ?? true;
  const store = options.appendTurn ?? true;

  /** Runs engram's part of the call; a failure goes to `onError` when there is one, else throws. */
  const guarded = async <T>(
    work: () => Promise<T>,
    event: EngramMiddlewareErrorEvent,
  ): Promise<T | undefined> => {
    if (!options.onError) return work();
    try {
      return await work();
    } catch (error) {
      options.onError(error, event);
      return undefined;
    }
  };
  const storeTurn = async (params: CallOptions, answer: string) => {
    const message = currentMessage(params.prompt);
    if (!store || !message || !answer) return;
    await guarded(() => backend.appendTurn(scopeOf(params), message, answer), {
      phase: 'append',
      message,
      answer,
    });
  };

  return {
    middlewareVersion: 'v2',
    async transformParams({ params }) {
      const index = params.prompt.findLastIndex((entry) => entry.role === 'user');
      const user = params.prompt[index];
      const message = user ? textOf(user) : '';
      if (message.trim() === '') return params;
      const context = await guarded(() => backend.assemble(scopeOf(params), message, options.agentId), {
        phase: 'assemble',
        message,
      });
      if (context === undefined) return params;
      const before = params.prompt.slice(0, index);
      const system = keepSystem ? before.filter((entry) => entry.role === 'system') : [];
      // A later step of a tool loop: the model's tool calls and their results since the user spoke
      // follow the context, or the model never sees them and calls the same tool again.
      const toolSteps = params.prompt.slice(index + 1);
      return { ...params, prompt: [...system, ...toPrompt(context), ...toolSteps] };
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      // A step that called tools is not the turn's answer: the step after the results is.
      if (!UNFINISHED.has(result.finishReason)) await storeTurn(params, answerOf(result.content));
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      let answer = '';
      let finished = true;
      const recorder = new TransformStream({
        transform(part, controller) {
          if (part.type === 'text-delta') answer += part.delta;
          // A provider failure arrives as a part and the stream still closes normally.
          if (part.type === 'error' || (part.type === 'finish' && UNFINISHED.has(part.finishReason)))
            finished = false;
          controller.enqueue(part);
        },
        async flush() {
          // The turn is stored once the whole answer has streamed, as engram's own chat does.
          if (finished) await storeTurn(params, answer);
        },
      });
      return { stream: stream.pipeThrough(recorder), ...rest };
    },
  };
}
