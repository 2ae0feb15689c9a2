import { z } from 'zod';
import type { ContextTrace } from '../../core/assembly/context-trace.js';
import type { OpenAIMessage } from '../../core/assembly/to-openai-messages.js';
import { EngramError, parseWith } from '../../core/errors.js';
import { type Agent, type AgentInput, agentSchema } from '../../core/schemas/agent.js';
import { MAX_MESSAGE_CHARS, type StoredMessage } from '../../core/schemas/message.js';
import type { SessionState } from '../../core/schemas/session.js';
import { LlmError, llmNotConfiguredError } from '../../providers/llm/llm-error.js';
import type { ChatChunk, ChatMessage, ChatUsage, LlmProvider } from '../../providers/llm/llm-provider.js';
import type { AgentRegistry } from '../access/agent-registry.js';
import type { SessionOperations } from '../sessions/session-operations.js';
import { type SessionRef, sessionRefSchema, toSessionKey } from '../sessions/session-ref.js';
import { createEventLog } from './chat-events.js';

const chatRequestSchema = z.object({
  /** A stored agent's id, an agent given inline, or absent: the tenant's `default` agent. */
  agent: z.union([z.string().min(1).max(256), z.record(z.string(), z.unknown())]).optional(),
  session: sessionRefSchema,
  message: z
    .string()
    .max(MAX_MESSAGE_CHARS)
    .refine((text) => text.trim().length > 0, 'message cannot be empty'),
  signal: z.instanceof(AbortSignal).optional(),
});

/** One chat turn: the user's message to an agent in a session. */
export interface ChatTurnRequest {
  /** A stored agent's id (in the session's tenant), an agent inline, or absent: `default`. */
  agent?: string | AgentInput;
  session: SessionRef;
  message: string;
  /** Aborting cancels the turn: the model call stops and nothing is stored. */
  signal?: AbortSignal;
}

/** What a turn ends with, once both messages are stored. */
export interface ChatResult {
  /** The agent's id and stored version (null for an inline agent, 0 for the built-in default). */
  agent: { id: string; version: number | null };
  /** The two messages, stored by one append. */
  messages: { user: StoredMessage; assistant: StoredMessage };
  session: SessionState;
  /** The provider's model identity, e.g. `openai:gpt-4o-mini`. */
  model: string;
  finishReason: string | null;
  /** As the model server reported it; null when it reported none. */
  usage: ChatUsage | null;
  /** The assembly's trace (also recorded in `engram.traces`). */
  trace: ContextTrace;
}

/** A piece of the answer, then `done` once the turn is stored. */
export type ChatEvent = { type: 'delta'; text: string } | { type: 'done'; result: ChatResult };

/**
 * A turn whose model stream has started. Iterate it for the events (any number of times, each
 * from the start; iteration throws the turn's error); `result` settles when the turn is stored or
 * has failed. The turn runs to its end whether or not anyone iterates.
 */
export interface ChatTurn extends AsyncIterable<ChatEvent> {
  readonly agent: { id: string; version: number | null };
  readonly trace: ContextTrace;
  readonly result: Promise<ChatResult>;
}

/** What the chat service needs from the engram instance. */
export interface ChatDependencies {
  llm: LlmProvider | null;
  agents: AgentRegistry;
  sessions: SessionOperations;
  assemble(request: {
    agent: AgentInput;
    session: SessionRef;
    message: string;
    format: 'openai';
  }): Promise<{ messages: unknown; trace: ContextTrace }>;
  clock: () => Date;
}

export interface ChatService {
  /**
   * Starts a turn: validates, assembles the context, calls the model and resolves once its first
   * text arrives. Fails (storing nothing) on invalid input, no LLM (`llm_not_configured`), an
   * unknown agent, a context over budget, or a model failure before any text.
   */
  chat(request: ChatTurnRequest): Promise<ChatTurn>;
  /** Aborts the turns in flight (they store nothing) and waits for them to settle. */
  close(): Promise<void>;
}

/**
 * Renders the assembled OpenAI context for the provider, which speaks plain-text system, user and
 * assistant messages: tool calls and tool results from the history are written out as text.
 */
export function toChatMessages(messages: readonly OpenAIMessage[]): ChatMessage[] {
  return messages.map((message): ChatMessage => {
    if (message.role === 'tool') {
      return { role: 'user', content: `[result of tool call ${message.tool_call_id}]\n${message.content}` };
    }
    if (message.role === 'assistant') {
      const calls = (message.tool_calls ?? []).map(
        (call) => `[called tool ${call.function.name}(${call.function.arguments}), call ${call.id}]`,
      );
      return { role: 'assistant', content: [message.content ?? '', ...calls].filter(Boolean).join('\n') };
    }
    return { role: message.role, content: message.content };
  });
}

/** Pulls chunks until one carries non-blank text (or the stream ends); the chunks read are returned. */
async function readToFirstText(stream: AsyncIterator<ChatChunk>) {
  const chunks: ChatChunk[] = [];
  for (;;) {
    const step = await stream.next();
    if (step.done) return { chunks, ended: true };
    chunks.push(step.value);
    if (step.value.delta.trim().length > 0) return { chunks, ended: false };
  }
}

const noText = (finishReason: string | null) =>
  new LlmError('llm_response_invalid', 'The model answered with no text', { details: { finishReason } });

/** The write path of a conversation: context, model, and one atomic append of the whole turn. */
export function createChatService(dependencies: ChatDependencies): ChatService {
  const { agents, sessions, clock } = dependencies;
  const inFlight = new Set<{ controller: AbortController; settled: Promise<unknown> }>();

  async function resolveAgent(agent: ChatTurnRequest['agent'], tenantId: string) {
    if (typeof agent === 'object') {
      return { agent: parseWith(agentSchema, agent, 'agent'), version: null };
    }
    const stored = await agents.resolve(tenantId, agent);
    return { agent: stored as Agent, version: stored.version };
  }

  async function start(request: ChatTurnRequest, stop: AbortSignal): Promise<ChatTurn> {
    const parsed = parseWith(chatRequestSchema, request, 'chat request');
    const llm = dependencies.llm;
    if (!llm) throw llmNotConfiguredError('Chat');
    const key = toSessionKey(parsed.session);
    const startedAt = clock().toISOString();
    const { agent, version } = await resolveAgent(request.agent, key.tenantId);
    const agentRef = { id: agent.id, version };

    const signal = parsed.signal ? AbortSignal.any([parsed.signal, stop]) : stop;
    signal.throwIfAborted();
    const assembled = await dependencies.assemble({
      agent: { id: agent.id, systemPrompt: agent.systemPrompt, memory: agent.memory },
      session: key,
      message: parsed.message,
      format: 'openai',
    });
    const reserved = agent.memory.reservedOutputTokens;
    const stream = llm
      .stream({
        messages: toChatMessages(assembled.messages as OpenAIMessage[]),
        ...(reserved > 0 ? { maxTokens: reserved } : {}),
        signal,
      })
      [Symbol.asyncIterator]();
    const opening = await readToFirstText(stream);
    if (opening.ended && opening.chunks.every((chunk) => chunk.delta.trim().length === 0)) {
      throw noText(opening.chunks.at(-1)?.finishReason ?? null);
    }

    const events = createEventLog<ChatEvent>();
    const model = llm.model;
    async function run(): Promise<ChatResult> {
      let text = '';
      let finishReason: string | null = null;
      let usage: ChatUsage | null = null;
      const take = (chunk: ChatChunk) => {
        if (chunk.delta.length > 0) {
          text += chunk.delta;
          events.push({ type: 'delta', text: chunk.delta });
        }
        finishReason = chunk.finishReason ?? finishReason;
        if (chunk.usage) usage = chunk.usage;
      };
      opening.chunks.forEach(take);
      if (!opening.ended) {
        for (let step = await stream.next(); !step.done; step = await stream.next()) take(step.value);
      }
      if (text.trim().length === 0) throw noText(finishReason);
      // Past this point the turn is stored: an abort must come before the append to cancel it.
      signal.throwIfAborted();
      const appended = await sessions.append(key, [
        { role: 'user', content: parsed.message, createdAt: startedAt },
        { role: 'assistant', content: text },
      ]);
      const [user, assistant] = appended.messages;
      if (!user || !assistant) throw new EngramError('internal', 'internal', 'The append stored no messages');
      return {
        agent: agentRef,
        messages: { user, assistant },
        session: appended.session,
        model,
        finishReason,
        usage,
        trace: assembled.trace,
      };
    }

    const result = run().then(
      (done) => {
        events.push({ type: 'done', result: done });
        events.end();
        return done;
      },
      async (error: unknown) => {
        // Releases the model connection when the failure was ours (the append), not the stream's.
        await stream.return?.()?.catch(() => undefined);
        events.fail(error);
        throw error;
      },
    );
    return {
      agent: agentRef,
      trace: assembled.trace,
      result,
      [Symbol.asyncIterator]: () => events[Symbol.asyncIterator](),
    };
  }

  let closed = false;
  const shuttingDown = () => new EngramError('shutting_down', 'unavailable', 'engram is shutting down');
  return {
    chat(request) {
      if (closed) return Promise.reject(shuttingDown());
      const controller = new AbortController();
      const starting = start(request, controller.signal);
      // Tracked from the first step, so that close() also stops a turn still assembling.
      const settled = starting.then((turn) => turn.result).catch(() => undefined);
      const entry = { controller, settled };
      inFlight.add(entry);
      void settled.then(() => inFlight.delete(entry));
      return starting;
    },
    async close() {
      closed = true;
      const turns = [...inFlight];
      const reason = shuttingDown();
      for (const turn of turns) turn.controller.abort(reason);
      await Promise.all(turns.map((turn) => turn.settled));
    },
  };
}
