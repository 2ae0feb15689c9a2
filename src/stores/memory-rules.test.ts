import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import { copyMetadata, isoTimestamp } from './memory-rules.js';

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
