import { describe, expect, it } from 'vitest';
import { memoizeCounter } from './memoize-counter.js';
import { loadTokenCounter, type TokenCounter } from './token-counter.js';

function recordingCounter(): TokenCounter & { calls: string[] } {
  const calls: string[] = [];
  return {
    encoding: 'o200k_base',
    calls,
    count: (text) => {
      calls.push(text);
      return text.length;
    },
  };
}

describe('memoizeCounter', () => {
  it('counts a long text once, short texts every time, and stays bounded', () => {
    const inner = recordingCounter();
    const counter = memoizeCounter(inner, { maxEntries: 2, minLength: 10 });
    const long = 'a long system prompt';
    expect(counter.count(long)).toBe(long.length);
    expect(counter.count(long)).toBe(long.length);
    expect(counter.count('short')).toBe(5);
    expect(counter.count('short')).toBe(5);
    expect(inner.calls).toEqual([long, 'short', 'short']);
    counter.count('another long text 1');
    counter.count('another long text 2');
    counter.count(long);
    expect(inner.calls.filter((text) => text === long)).toHaveLength(2);
  });

  it('counts a section line by line: a line seen in an earlier section is not counted again', () => {
    const inner = recordingCounter();
    const counter = memoizeCounter(inner, { minLength: 10 });
    const first = 'Relevant knowledge:\n- The user likes tea.\n- The user lives in Oslo.';
    const second = 'Relevant knowledge:\n- The user lives in Oslo.\n- The user has a cat named Rex.';
    expect(counter.count(first)).toBe(first.length);
    expect(counter.count(second)).toBe(second.length);
    expect(inner.calls).toEqual([
      'Relevant knowledge:\n',
      '- The user likes tea.\n',
      '- The user lives in Oslo.',
      '- The user lives in Oslo.\n',
      '- The user has a cat named Rex.',
    ]);
  });

  it('gives the real counts of multi-line texts in both encodings', async () => {
    const text =
      'Relevant past conversations:\n- [2024-05-01] We talked about /usr/bin.\n  indented\n\n/x\n- done';
    for (const encoding of ['o200k_base', 'cl100k_base'] as const) {
      const exact = await loadTokenCounter(encoding);
      const counter = memoizeCounter(exact, { minLength: 1 });
      expect(counter.count(text)).toBe(exact.count(text));
      expect(counter.count(text)).toBe(exact.count(text));
    }
  });

  it('keeps a line with a lone surrogate as it is, so its next lookup hits', () => {
    const inner = recordingCounter();
    const counter = memoizeCounter(inner, { minLength: 4 });
    const line = `odd \ud800 line`;
    counter.count(`Heading\n${line}`);
    counter.count(`Other\n${line}`);
    expect(inner.calls.filter((text) => text === line)).toHaveLength(1);
  });

  it('keeps lines, not documents: a line over 4,096 characters is counted every time', () => {
    const inner = recordingCounter();
    const counter = memoizeCounter(inner);
    const long = 'x'.repeat(5_000);
    counter.count(long);
    counter.count(long);
    expect(inner.calls.filter((text) => text === long)).toHaveLength(2);
  });

  it('holds at most maxChars characters of lines, dropping the oldest', () => {
    const inner = recordingCounter();
    const counter = memoizeCounter(inner, { minLength: 10, maxChars: 100 });
    const lines = ['a', 'b', 'c'].map((letter) => letter.repeat(40));
    for (const line of lines) counter.count(line);
    counter.count(lines[2] as string); // still held
    counter.count(lines[0] as string); // dropped for the third: counted again
    expect(inner.calls).toEqual([...lines, lines[0]]);
  });
});
