import type { EngramOptions } from '../engram.js';
import { createOpenAIChatProvider } from '../providers/llm/openai-chat-provider.js';
import type { ServerConfig } from './server-config.js';

/**
 * The engram options `serve` and `mcp` build from their settings: the OpenAI-compatible chat model
 * (when `llm` is set) and the write path settings, with `onNotice` told once what is off.
 */
export function writePathOptionsOf(
  config: Pick<ServerConfig, 'llm' | 'writePath'>,
  onNotice: (message: string) => void,
): Pick<EngramOptions, 'llm' | 'writePath'> {
  return {
    ...(config.llm ? { llm: createOpenAIChatProvider(config.llm) } : {}),
    writePath: { ...config.writePath, onNotice },
  };
}
