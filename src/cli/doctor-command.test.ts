import { describe, expect, it } from 'vitest';
import { resolveServerConfig } from '../server/server-config.js';
import { redactedSettings } from './doctor-command.js';

describe('redactedSettings', () => {
  it('prints neither the API keys nor a key carried by a provider base URL', () => {
    const config = resolveServerConfig(
      {},
      {
        ENGRAM_LLM_BASE_URL: 'https://me:k3y@llm.example/v1',
        ENGRAM_LLM_MODEL: 'tiny',
        ENGRAM_LLM_API_KEY: 'sk-secret',
        ENGRAM_EMBEDDINGS_BASE_URL: 'https://embed.example/v1?api-key=s3cret',
        ENGRAM_EMBEDDINGS_MODEL: 'tiny-embed',
      },
    );
    const printed = JSON.stringify(redactedSettings(config));
    for (const secret of ['k3y', 'me:', 'sk-secret', 's3cret']) expect(printed).not.toContain(secret);
    expect(printed).toContain('https://***:***@llm.example/v1');
    expect(printed).toContain('api-key=***');
  });
});
