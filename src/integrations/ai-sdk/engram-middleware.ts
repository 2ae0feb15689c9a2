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
}

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

  return {
    middlewareVersion: 'v2',
    async transformParams({ params }) {
      const message = currentMessage(params.prompt);
      if (message === undefined || message.trim() === '') return params;
      const context = await backend.assemble(scopeOf(params), message, options.agentId);
      const system = keepSystem ? params.prompt.filter((entry) => entry.role === 'system') : [];
      return { ...params, prompt: [...system, ...toPrompt(context)] };
    },
    async wrapGenerate({ doGenerate, params }) {
      const result = await doGenerate();
      const message = currentMessage(params.prompt);
      const answer = result.content.flatMap((part) => (part.type === 'text' ? [part.text] : [])).join('');
      if (store && message && answer) await backend.appendTurn(scopeOf(params), message, answer);
      return result;
    },
    async wrapStream({ doStream, params }) {
      const { stream, ...rest } = await doStream();
      const message = currentMessage(params.prompt);
      let answer = '';
      const recorder = new TransformStream({
        transform(part, controller) {
          if (part.type === 'text-delta') answer += part.delta;
          controller.enqueue(part);
        },
        async flush() {
          // The turn is stored once the whole answer has streamed, as engram's own chat does.
          if (store && message && answer) await backend.appendTurn(scopeOf(params), message, answer);
        },
      });
      return { stream: stream.pipeThrough(recorder), ...rest };
    },
  };
}
