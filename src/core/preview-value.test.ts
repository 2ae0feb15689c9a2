import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { MAX_ECHO_CHARS, previewValue, truncateText } from './preview-value.js';

describe('previewValue', () => {
  it('keeps small values as they are', () => {
    const value = { role: 'user', content: 'hi', n: 3, tags: ['a', 'b'], nothing: null };
    expect(previewValue(value)).toEqual(value);
  });

  it('cuts a 5 MB string to a few hundred characters and says how long it was', () => {
    const cut = previewValue('x'.repeat(5_000_000)) as string;
    expect(cut.length).toBeLessThan(MAX_ECHO_CHARS + 40);
    expect(cut).toContain('(5000000 characters)');
  });

  it('cuts a million-item array and says how many items it had', () => {
    const items = previewValue(Array.from({ length: 1_000_000 }, () => ({ role: 'user', content: 'x' })));
    expect(JSON.stringify(items).length).toBeLessThan(2 * MAX_ECHO_CHARS);
    expect((items as unknown[]).at(-1)).toBe('… (1000000 items)');
  });

  it('cuts a million empty objects too', () => {
    const items = previewValue(Array.from({ length: 1_000_000 }, () => ({})));
    expect(JSON.stringify(items).length).toBeLessThan(2 * MAX_ECHO_CHARS);
  });

  it('bounds the JSON of any value', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(JSON.stringify(previewValue(value)).length).toBeLessThan(4 * MAX_ECHO_CHARS);
      }),
      { numRuns: 200 },
    );
  });

  it('never cuts a surrogate pair in half', () => {
    expect(truncateText(`${'a'.repeat(9)}😀😀`, 10)).toBe(`${'a'.repeat(9)}… (13 characters)`);
  });
});
