import { describe, expect, it } from 'vitest';
import { compileLinearPattern, UnsupportedPatternError } from './linear-pattern.js';

/** The error compiling `pattern` throws: an UnsupportedPatternError, or the test fails. */
function refusalOf(pattern: string): UnsupportedPatternError {
  let error: unknown;
  try {
    compileLinearPattern(pattern);
  } catch (caught) {
    error = caught;
  }
  expect(error).toBeInstanceOf(UnsupportedPatternError);
  return error as UnsupportedPatternError;
}

describe('compileLinearPattern', () => {
  it('runs (a+)+$ on RE2, which answers a near-miss correctly without backtracking', () => {
    const pattern = compileLinearPattern('(a+)+$');
    expect(pattern.engine).toBe('re2js');
    // A backtracking engine takes seconds here, doubling per extra `a`; RE2 is linear in the input.
    expect(pattern.test(`${'a'.repeat(30)}!`)).toBe(false);
    expect(pattern.test('a'.repeat(30))).toBe(true);
    expect(compileLinearPattern('(x+x+)+y').test('x'.repeat(5_000))).toBe(false);
  });

  it('matches case-insensitively anywhere, with \\p classes and JavaScript \\u escapes', () => {
    expect(compileLinearPattern('refund').test('I want a REFUND now')).toBe(true);
    expect(compileLinearPattern('caf\\u00e9').test('Café')).toBe(true);
    expect(compileLinearPattern('\\p{L}+ order').test('my order')).toBe(true);
    expect(compileLinearPattern('^order$').test('my order')).toBe(false);
  });

  it.each([
    ['(a)\\1', 'backreferences'],
    ['(?<n>a)\\k<n>', 'named backreferences'],
    ['refund(?= now)', 'lookahead'],
    ['refund(?!s)', 'negative lookahead'],
    ['(?<=my )refund', 'lookbehind'],
    ['(?<!no )refund', 'negative lookbehind'],
    ['(?>ab)c', 'atomic groups'],
    ['a{1001}', 'repeat counts above 1000'],
  ])('refuses %s with a 422 naming %s', (pattern, construct) => {
    const refused = refusalOf(pattern);
    expect(refused.code).toBe('unsupported_pattern');
    expect(refused.httpStatus).toBe(422);
    expect(refused.message).toContain(construct);
    expect(refused.message).toContain('RE2');
  });

  it('quotes at most 100 characters of a refused pattern', () => {
    // No two positions alike near the cut, so the quote shows exactly where it stops.
    const pattern = `${'abcdefghij'.repeat(25)}(?=y)`;
    const refused = refusalOf(pattern);
    const first100 = pattern.slice(0, 100);
    expect(refused.message).toContain(`Pattern "${first100}…" uses lookahead`);
    expect(refused.message).not.toContain(pattern.slice(0, 101));
    expect(refused.details).toMatchObject({ pattern: `${first100}…` });
    // A pattern of exactly 100 characters is quoted whole, with no marker.
    const short = `${'abcdefghij'.repeat(9)}abcde(?=y)`;
    expect(short).toHaveLength(100);
    expect(() => compileLinearPattern(short)).toThrowError(`Pattern "${short}" uses lookahead`);
  });
});
