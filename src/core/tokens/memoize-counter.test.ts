import { describe, expect, it } from 'vitest';
import { memoizeCounter } from './memoize-counter.js';
import type { TokenCounter } from './token-counter.js';

describe('memoizeCounter', () => {
  it('counts a long text once, short texts every time, and stays bounded', () => {
    const calls: string[] = [];
    const inner: TokenCounter = {
      encoding: 'o200k_base',
      count: (text) => {
        calls.push(text);
        return text.length;
      },
    };
    const counter = memoizeCounter(inner, { maxEntries: 2, minLength: 10 });
    const long = 'a long system prompt';
    expect(counter.count(long)).toBe(long.length);
    expect(counter.count(long)).toBe(long.length);
    expect(counter.count('short')).toBe(5);
    expect(counter.count('short')).toBe(5);
    expect(calls).toEqual([long, 'short', 'short']);
    counter.count('another long text 1');
    counter.count('another long text 2');
    counter.count(long);
    expect(calls.filter((text) => text === long)).toHaveLength(2);
  });
});
