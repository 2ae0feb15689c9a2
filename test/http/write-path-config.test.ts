import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/core/errors.js';
import { LLM_OFF_NOTICE } from '../../src/engine/write-path/create-write-path.js';
import { createEngram } from '../../src/engram.js';
import { resolveServerConfig } from '../../src/server/server-config.js';
import { writePathOptionsOf } from '../../src/server/write-path-options.js';
import { createMemoryStore } from '../../src/stores/memory/memory-store.js';

const file = (content: unknown) => () => JSON.stringify(content);

describe('LLM and write path settings', () => {
  it('are absent by default: no LLM, the engine defaults', () => {
    const config = resolveServerConfig({}, { OPENAI_API_KEY: 'sk-not-for-engram' });
    expect(config.llm).toBeUndefined();
    expect(config.writePath).toBeUndefined();
  });

  it('merge key by key: flags over environment over the config file', () => {
    const readFile = file({
      llm: { baseUrl: 'http://file.local/v1', model: 'file-model', apiKey: 'sk-file' },
      writePath: { summaryThreshold: 0.8, extractionDebounceMs: 1_000 },
    });
    const config = resolveServerConfig(
      { config: '/engram.json', 'llm-model': 'flag-model' },
      {
        ENGRAM_LLM_BASE_URL: 'http://env.local/v1',
        ENGRAM_EXTRACTION_DEBOUNCE_MS: '5000',
        ENGRAM_SUMMARY_KEEP_RECENT: '0.25',
      },
      readFile,
    );
    expect(config.llm).toEqual({ baseUrl: 'http://env.local/v1', model: 'flag-model', apiKey: 'sk-file' });
    expect(config.writePath).toMatchObject({
      summaryThreshold: 0.8,
      summaryKeepRecent: 0.25,
      extractionDebounceMs: 5_000,
    });
  });

  it('reject a model without an address, and malformed numbers', () => {
    expect(() => resolveServerConfig({}, { ENGRAM_LLM_MODEL: 'gpt-4o-mini' })).toThrow(ValidationError);
    expect(() => resolveServerConfig({ 'llm-base-url': 'not a url', 'llm-model': 'm' }, {})).toThrow(
      ValidationError,
    );
    expect(() => resolveServerConfig({}, { ENGRAM_SUMMARY_THRESHOLD: '1.5' })).toThrow(ValidationError);
    expect(() => resolveServerConfig({}, { ENGRAM_EXTRACTION_DEBOUNCE_MS: 'soon' })).toThrow(ValidationError);
  });

  it('without an LLM, the engram built from them says once what is off and enqueues no extraction', async () => {
    const notices: string[] = [];
    const options = writePathOptionsOf(resolveServerConfig({}, {}), (message) => notices.push(message));
    const engram = await createEngram({ store: createMemoryStore(), sweepIntervalMs: 0, ...options });
    await engram.sessions.append({ sessionId: 's' }, [{ role: 'user', content: 'I moved to Lisbon.' }]);
    expect(notices).toEqual([LLM_OFF_NOTICE]);
    expect(engram.llm).toBeNull();
    expect((await engram.jobs.list('default', { limit: 10, offset: 0 })).jobs).toEqual([]);
    await engram.close();
  });
});
