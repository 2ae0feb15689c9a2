import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { exactTokenCounts } from '../../../test/support/exact-token-counts.js';
import {
  boundedPieces,
  MAX_PIECE_CHARS,
  MAX_RUN_CHARS,
  splitIntoBoundedPieces,
  TOKENS_PER_CUT,
} from './bounded-pieces.js';
import { boundedCounter, countInSlices } from './token-counter.js';

const exactO200k = exactTokenCounts.o200k_base;
const exactCl100k = exactTokenCounts.cl100k_base;

/** Longest run of whitespace or of non-whitespace in `text`. */
const longestRun = (text: string) => Math.max(0, ...(text.match(/\s+|\S+/g) ?? []).map((run) => run.length));

// Runs of one alphabet, long enough to be cut, mixed with prose and whitespace; unicode included.
const alphabet = fc.constantFrom(
  'ab',
  'abcdefghijklmnopqrstuvwxyz',
  'aA1!',
  '漢字中文',
  '😀👍🏽é\u0301',
  '0123456789',
  '+/=',
);
const run = fc
  .tuple(alphabet, fc.integer({ min: 1, max: 1_200 }), fc.integer())
  .map(([letters, length, seed]) => {
    const chars = [...letters];
    let text = '';
    for (let index = 0; index < length; index++) text += chars[Math.abs(seed * (index + 7)) % chars.length];
    return text;
  });
const part = fc.oneof(
  run,
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.constantFrom(' ', '\n\n', ' '.repeat(300), 'Plain words, and more plain words. '.repeat(300)),
);
const adversarialText = fc.array(part, { minLength: 1, maxLength: 5 }).map((parts) => parts.join(''));

describe('bounded token counting', () => {
  it('never counts under the exact count (o200k_base and cl100k_base)', () => {
    const o200k = boundedCounter('o200k_base', exactO200k);
    const cl100k = boundedCounter('cl100k_base', exactCl100k);
    fc.assert(
      fc.property(adversarialText, (text) => {
        expect(o200k.count(text)).toBeGreaterThanOrEqual(exactO200k(text));
        expect(cl100k.count(text)).toBeGreaterThanOrEqual(exactCl100k(text));
      }),
      { numRuns: 60 },
    );
  });

  it('is exact for text up to MAX_PIECE_CHARS whose runs are all short', () => {
    const counter = boundedCounter('o200k_base', exactO200k);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(90);
    expect(prose.length).toBeLessThanOrEqual(MAX_PIECE_CHARS);
    expect(counter.count(prose)).toBe(exactO200k(prose));
  });

  it('cuts long prose where whitespace starts, within a token per cut', () => {
    const counter = boundedCounter('o200k_base', exactO200k);
    const prose = 'The quick brown fox jumps over the lazy dog. '.repeat(2_000);
    const pieces = splitIntoBoundedPieces(prose);
    expect(pieces.length).toBeGreaterThan(10);
    for (const piece of pieces.slice(1)) expect(piece).toMatch(/^ /);
    const over = counter.count(prose) - exactO200k(prose);
    expect(over).toBeGreaterThanOrEqual(0);
    expect(over).toBeLessThanOrEqual((pieces.length - 1) * TOKENS_PER_CUT);
  });

  it('over-counts by at most the margin plus a few tokens per cut', () => {
    const counter = boundedCounter('o200k_base', exactO200k);
    const text = `intro ${'abcdefghij'.repeat(150)} outro`;
    const cuts = splitIntoBoundedPieces(text).length - 1;
    expect(cuts).toBeGreaterThan(0);
    expect(counter.count(text) - exactO200k(text)).toBeLessThanOrEqual(cuts * (TOKENS_PER_CUT + 2));
  });

  it('only ever hands the encoder pieces whose runs are at most MAX_RUN_CHARS, covering the text once', () => {
    fc.assert(
      fc.property(adversarialText, (text) => {
        const seen: string[] = [];
        const counter = boundedCounter('o200k_base', (piece) => {
          seen.push(piece);
          return exactO200k(piece);
        });
        counter.count(text);
        expect(seen.join('')).toBe(text);
        for (const piece of seen) {
          expect(longestRun(piece)).toBeLessThanOrEqual(MAX_RUN_CHARS);
          expect(piece.length).toBeLessThanOrEqual(MAX_PIECE_CHARS);
        }
      }),
      { numRuns: 60 },
    );
  });

  it('encodes a 100,000-character run without whitespace in bounded pieces (linear work)', () => {
    const lengths: number[] = [];
    const counter = boundedCounter('o200k_base', (piece) => {
      lengths.push(piece.length);
      return exactO200k(piece);
    });
    const count = counter.count('x'.repeat(100_000));
    expect(Math.max(...lengths)).toBeLessThanOrEqual(MAX_RUN_CHARS);
    expect(lengths.reduce((sum, length) => sum + length, 0)).toBe(100_000);
    expect(count).toBeGreaterThan(0);
  });

  it('counts the same piece by piece (countInSlices), pausing between pieces', async () => {
    const counter = boundedCounter('o200k_base', exactO200k);
    await fc.assert(
      fc.asyncProperty(adversarialText, async (text) => {
        let pauses = 0;
        const sliced = await countInSlices(counter, text, async () => {
          pauses++;
        });
        expect(sliced).toBe(counter.count(text));
        expect(pauses).toBe(text.length <= MAX_PIECE_CHARS ? 0 : splitIntoBoundedPieces(text).length);
      }),
      { numRuns: 40 },
    );
  });

  it('finds pieces lazily: the first piece of a megabyte reads about one piece of the text', () => {
    // A string whose character reads are counted (the splitter reads by charCodeAt).
    const text = `${'word '.repeat(100_000)}${'x'.repeat(500_000)}`;
    let reads = 0;
    const counted = new Proxy(new String(text), {
      get(target, key) {
        if (key === 'charCodeAt') {
          return (index: number) => {
            reads++;
            return text.charCodeAt(index);
          };
        }
        const value = Reflect.get(target, key);
        return typeof value === 'function' ? value.bind(target) : value;
      },
    }) as unknown as string;
    const pieces = boundedPieces(counted);
    expect(pieces.next().value).toBe(splitIntoBoundedPieces(text)[0]);
    expect(reads).toBeLessThanOrEqual(MAX_PIECE_CHARS + 2);
  });

  it('never cuts a surrogate pair', () => {
    const text = `a${'😀'.repeat(400)}`;
    for (const piece of splitIntoBoundedPieces(text))
      expect(piece).toMatch(/^(?:[^\uD800-\uDFFF]|[\uD800-\uDBFF][\uDC00-\uDFFF])*$/);
  });
});
