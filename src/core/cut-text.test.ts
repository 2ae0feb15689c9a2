import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cutText } from './cut-text.js';

describe('cutText', () => {
  it('keeps a text within the bound, and cuts a longer one to at most `max`, never in a pair', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 60 }), fc.nat({ max: 70 }), (text, max) => {
        const cut = cutText(text, max);
        expect(cut.length).toBeLessThanOrEqual(Math.max(max, 0));
        expect(text.startsWith(cut)).toBe(true);
        if (text.length <= max) expect(cut).toBe(text);
        // A lone high surrogate at the end would be half a character.
        expect(/[\uD800-\uDBFF]$/.test(cut)).toBe(false);
      }),
    );
    expect(cutText('ab😀', 3)).toBe('ab');
    expect(cutText('ab😀', 4)).toBe('ab😀');
  });
});
