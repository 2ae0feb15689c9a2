import { join } from 'node:path';
import { afterAll, beforeAll } from 'vitest';
import { createApiKeys } from '../../src/engine/access/api-keys.js';
import { createEngram, type Engram } from '../../src/engram.js';
import { createOpenAIChatProvider } from '../../src/providers/llm/openai-chat-provider.js';
import type { Role } from '../../src/server/auth/principal.js';
import { createServer, type EngramServer } from '../../src/server/create-server.js';
import { createSqliteStore } from '../../src/stores/sqlite/sqlite-store.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from '../support/scripted-openai-server.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';

/** A real server with authentication on, whose LLM (if any) is a scripted OpenAI server. */
export interface ChatServer {
  url: string;
  engram: Engram;
  server: EngramServer;
  /** Null when the server runs without an LLM. */
  model: ScriptedOpenAIServer | null;
  /** Starts a chat turn as the holder of key `who` (see `credentials`). */
  chat(
    who: string,
    sessionId: string,
    body: unknown,
    init?: { signal?: AbortSignal; headers?: Record<string, string> },
  ): Promise<Response>;
  /** Any request as the holder of key `who`. */
  request(who: string, path: string, init?: { method?: string; body?: unknown }): Promise<Response>;
}

/** Keys by name: tenant A's agent and inspector, tenant B's agent. */
const credentials: [string, string, Role][] = [
  ['a', 'tenant-a', 'agent'],
  ['aInspector', 'tenant-a', 'inspector'],
  ['aAdmin', 'tenant-a', 'admin'],
  ['b', 'tenant-b', 'agent'],
];

export function useChatServer(options: { llm: boolean }): () => ChatServer {
  const temporaryDirectory = useTemporaryDirectories('engram-chat-');
  let started: ChatServer | undefined;
  beforeAll(async () => {
    const model = options.llm ? await startScriptedOpenAIServer() : null;
    const store = await createSqliteStore({ path: join(temporaryDirectory(), 'engram.db') });
    const engram = await createEngram({
      store,
      sweepIntervalMs: 0,
      defaultSources: false,
      ...(model ? { llm: createOpenAIChatProvider({ baseUrl: model.baseUrl, model: 'scripted' }) } : {}),
    });
    const server = createServer({
      engram,
      config: { port: 0, logLevel: 'silent', auth: { mode: 'enabled' } },
    });
    const { url } = await server.listen();
    const apiKeys = createApiKeys(store.documents);
    const keys: Record<string, string> = {};
    for (const [name, tenantId, role] of credentials)
      keys[name] = (await apiKeys.create({ tenantId, role })).key;
    const request: ChatServer['request'] = (who, path, init = {}) =>
      fetch(`${url}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `Bearer ${keys[who]}`,
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        ...(init.body === undefined
          ? {}
          : { body: typeof init.body === 'string' ? init.body : JSON.stringify(init.body) }),
      });
    started = {
      url,
      engram,
      server,
      model,
      request,
      chat: (who, sessionId, body, init = {}) =>
        fetch(`${url}/v1/sessions/${encodeURIComponent(sessionId)}/chat`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${keys[who]}`,
            'content-type': 'application/json',
            ...init.headers,
          },
          body: typeof body === 'string' ? body : JSON.stringify(body),
          ...(init.signal ? { signal: init.signal } : {}),
        }),
    };
  });
  afterAll(async () => {
    await started?.server.close();
    await started?.model?.close();
  });
  return () => {
    if (!started) throw new Error('The chat server has not started');
    return started;
  };
}

/** One server-sent event as the chat route writes it. */
export interface ReceivedEvent {
  type: string;
  // biome-ignore lint/suspicious/noExplicitAny: assertions walk arbitrary JSON events
  data: any;
}

/**
 * Reads server-sent events from a response body as they arrive; `stopAfter` returns early (the
 * body left unread) once that many events came.
 */
export async function readEvents(response: Response, stopAfter = Number.POSITIVE_INFINITY) {
  const events: ReceivedEvent[] = [];
  if (!response.body) return events;
  const decoder = new TextDecoder();
  let buffered = '';
  for await (const bytes of response.body) {
    buffered += decoder.decode(bytes as Uint8Array, { stream: true });
    for (let end = buffered.indexOf('\n\n'); end >= 0; end = buffered.indexOf('\n\n')) {
      const block = buffered.slice(0, end);
      buffered = buffered.slice(end + 2);
      const type = /^event: (.*)$/m.exec(block)?.[1] ?? 'message';
      const data = /^data: (.*)$/m.exec(block)?.[1];
      events.push({ type, data: data === undefined ? null : JSON.parse(data) });
      if (events.length >= stopAfter) return events;
    }
  }
  return events;
}
