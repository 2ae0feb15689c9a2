import { performance } from 'node:perf_hooks';
import { describe, expect, it } from 'vitest';
import { message, sessionKey, sessionWrite } from '../../../test/conformance/fixtures.js';
import { compareCodePoints } from './list-order.js';
import { createMemoryStore } from './memory-store.js';

describe('memory store', () => {
  it('reads the newest messages at a cost independent of session length', async () => {
    const store = createMemoryStore();
    for (const [sessionId, count] of [
      ['small', 1_000],
      ['large', 100_000],
    ] as const) {
      const messages = Array.from({ length: count }, (_, index) => message(`${sessionId}-${index}`));
      await store.putSession(sessionKey(sessionId), sessionWrite({ messages }));
    }
    const time = async (sessionId: string) => {
      const start = performance.now();
      for (let index = 0; index < 500; index += 1) {
        await store.readMessages(sessionKey(sessionId), { order: 'newest-first', limit: 20, beforeSeq: 900 });
      }
      return performance.now() - start;
    };
    await time('small');
    let small = 0;
    let large = 0;
    for (let round = 0; round < 3; round += 1) {
      small += await time('small');
      large += await time('large');
    }
    // Only a generous ratio within one run is asserted, never a wall-clock time.
    expect(large / small).toBeLessThan(3);
  });

  it('orders strings by code point, as SQLite does on UTF-8', () => {
    expect(compareCodePoints('a', 'b')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('', '')).toBe(0);
    // U+1F600 (a surrogate pair in UTF-16) is above U+FF5E, though its first code unit is lower.
    expect(compareCodePoints('\u{1F600}', '\uFF5E')).toBeGreaterThan(0);
    expect('\u{1F600}' < '\uFF5E').toBe(true);
  });
});
