import { describe, expect, it } from 'vitest';
import { applyMergePatch } from './merge-patch.js';

describe('applyMergePatch (RFC 7386)', () => {
  it('merges objects recursively, deletes null keys, replaces arrays', () => {
    const target = { a: 1, b: { c: 2, d: 3 }, list: [1, 2] };
    const patched = applyMergePatch(target, { b: { c: null, e: 4 }, list: [3], f: 'x' });
    expect(patched).toEqual({ a: 1, b: { d: 3, e: 4 }, list: [3], f: 'x' });
    expect(target).toEqual({ a: 1, b: { c: 2, d: 3 }, list: [1, 2] });
  });

  it('a non-object patch replaces the target; a null target becomes an object', () => {
    expect(applyMergePatch({ a: 1 }, 'text')).toBe('text');
    expect(applyMergePatch(null, { a: { b: 1 } })).toEqual({ a: { b: 1 } });
  });
});
