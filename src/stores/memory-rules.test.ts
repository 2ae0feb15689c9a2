import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import type { MemoryRecord, MemoryVersion } from '../core/schemas/memory-record.js';
import { codePointLength, copyMetadata, isoTimestamp, readHistoryPage } from './memory-rules.js';

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

describe('readHistoryPage', () => {
  // A memory at version 100 (text of `lengths[0]` characters) with prior versions 99, 98, … of the
  // other lengths; the reader records what it is asked for.
  async function page(lengths: number[], limit: number, maxChars: number, before = Infinity) {
    const text = 'x'.repeat(lengths[0] ?? 1);
    const record = { id: 'm', version: 100, text, validTo: null } as unknown as MemoryRecord;
    const prior = lengths.slice(1).map((chars, index) => ({ version: 99 - index, chars }));
    const asked: string[] = [];
    const history = await readHistoryPage(
      record,
      { limit, maxChars, before },
      {
        lengths: (below, count) => {
          asked.push(`lengths ${below} ${count}`);
          return prior.filter((version) => version.version < below).slice(0, count);
        },
        versions: async (from, below) => {
          asked.push(`versions ${from} ${below}`);
          return prior
            .filter((version) => version.version >= from && version.version < below)
            .map((version) => ({ version: version.version }) as MemoryVersion);
        },
      },
    );
    return { numbers: history.versions.map((version) => version.version), next: history.nextBefore, asked };
  }

  it('ends at the limit, or before the version that would pass maxChars, always with the first', async () => {
    expect(await page([10, 10, 10], 2, 100)).toEqual({
      numbers: [100, 99],
      next: 99,
      asked: ['lengths 100 2', 'versions 99 100'],
    });
    expect(await page([10, 10, 10], 5, 25)).toMatchObject({ numbers: [100, 99], next: 99 });
    expect(await page([10, 10], 5, 20)).toMatchObject({ numbers: [100, 99], next: null });
    expect(await page([500, 10], 5, 20)).toMatchObject({ numbers: [100], next: 100 });
    expect(await page([10, 10, 10], 0, 20)).toMatchObject({ numbers: [], next: null });
    // Below a version: the current one is left out, and only older versions are read.
    expect(await page([10, 10, 10, 10], 2, 100, 99)).toEqual({
      numbers: [98, 97],
      next: null,
      asked: ['lengths 99 3', 'versions 97 99'],
    });
  });
});
