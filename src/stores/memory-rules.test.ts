import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import { codePointLength, copyMetadata, cutHistoryPage, isoTimestamp } from './memory-rules.js';

describe('isoTimestamp', () => {
  it('normalizes each value to UTC, also when values repeat or alternate (it remembers the last one)', () => {
    const offset = '2026-03-01T12:00:00+02:00';
    const utc = '2026-03-01T10:00:00.000Z';
    expect(isoTimestamp(offset)).toBe(utc);
    expect(isoTimestamp(offset)).toBe(utc);
    expect(isoTimestamp('2026-03-02T00:00:00Z')).toBe('2026-03-02T00:00:00.000Z');
    expect(isoTimestamp(offset)).toBe(utc);
  });

  it('rejects a value that does not parse, even right after a valid one', () => {
    isoTimestamp('2026-03-01T10:00:00.000Z');
    expect(() => isoTimestamp('not a time')).toThrow(ValidationError);
    expect(() => isoTimestamp('not a time')).toThrow(ValidationError);
  });
});

describe('copyMetadata', () => {
  it('returns a fresh object, deep-copied when it has fields', () => {
    const empty = {};
    expect(copyMetadata(empty)).not.toBe(empty);
    const nested = { tags: ['a'], source: { page: 3 } };
    const copy = copyMetadata(nested);
    expect(copy).toEqual(nested);
    expect(copy.tags).not.toBe(nested.tags);
    expect(copy.source).not.toBe(nested.source);
  });
});

describe('codePointLength', () => {
  it('counts code points as SQL length does: a surrogate pair is one, a lone surrogate one', () => {
    expect(codePointLength('')).toBe(0);
    expect(codePointLength('abc')).toBe(3);
    expect(codePointLength('😀é😀')).toBe(3);
    expect(codePointLength('\ud83d')).toBe(1);
    expect(codePointLength('a\ude00\ud83d')).toBe(3);
    // Any UTF-16, pairs and lone surrogates alike.
    const units = fc.array(fc.integer({ min: 0, max: 0xffff }), { maxLength: 30 });
    fc.assert(
      fc.property(
        units.map((codes) => String.fromCharCode(...codes)),
        (text) => {
          expect(codePointLength(text)).toBe([...text].length);
        },
      ),
    );
  });
});

describe('cutHistoryPage', () => {
  const versions = (lengths: number[]) => lengths.map((chars, index) => ({ version: 100 - index, chars }));
  const cut = (lengths: number[], limit: number, maxChars: number) =>
    cutHistoryPage(versions(lengths), (version) => version.chars, { limit, maxChars, before: Infinity });

  it('ends at the limit, or before the version that would pass maxChars, always with the first', () => {
    expect(cut([10, 10, 10], 2, 100)).toEqual({ versions: versions([10, 10]), nextBefore: 99 });
    expect(cut([10, 10, 10], 5, 25)).toEqual({ versions: versions([10, 10]), nextBefore: 99 });
    expect(cut([10, 10], 5, 20)).toEqual({ versions: versions([10, 10]), nextBefore: null });
    expect(cut([500, 10], 5, 20)).toEqual({ versions: versions([500]), nextBefore: 100 });
    expect(cut([], 5, 20)).toEqual({ versions: [], nextBefore: null });
    expect(cut([10], 0, 20)).toEqual({ versions: [], nextBefore: null });
  });
});
