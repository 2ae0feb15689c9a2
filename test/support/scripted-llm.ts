import { afterEach } from 'vitest';
import type { StoredMessage } from '../../src/core/schemas/message.js';
import { createOpenAIChatProvider } from '../../src/providers/llm/openai-chat-provider.js';
import { type ScriptedOpenAIServer, startScriptedOpenAIServer } from './scripted-openai-server.js';

/**
 * For a test file of LLM functions: `setup()` starts a scripted OpenAI-protocol server and a
 * provider talking to it; the server is closed after each test.
 */
export function useScriptedLlm(): () => Promise<{
  server: ScriptedOpenAIServer;
  llm: ReturnType<typeof createOpenAIChatProvider>;
}> {
  let server: ScriptedOpenAIServer | undefined;
  afterEach(async () => {
    await server?.close();
    server = undefined;
  });
  return async () => {
    server = await startScriptedOpenAIServer();
    return { server, llm: createOpenAIChatProvider({ baseUrl: server.baseUrl, model: 'scripted' }) };
  };
}

/** A stored message at second `seq` of 2025-04-01T10:00 UTC (or at `createdAt`). */
export const storedMessage = (
  seq: number,
  role: StoredMessage['role'],
  content: string,
  createdAt = new Date(Date.UTC(2025, 3, 1, 10, 0, seq)).toISOString(),
): StoredMessage => ({
  id: `m${seq}`,
  seq,
  role,
  content,
  createdAt,
  tokenCount: 10,
  tokenEncoding: 'o200k_base',
});
