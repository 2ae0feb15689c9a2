import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { compileLinearPattern } from '../../../core/patterns/linear-pattern.js';
import { unsafeTriggerReason } from './safe-trigger.js';

describe('unsafeTriggerReason', () => {
  it.each([
    '\\bdeploy\\b.*\\bstaging\\b',
    '^(please )?(reset|change) (my|the) password\\b',
    '\\bexpense reports?\\b',
    '\\bbook (a )?flight\\b',
    '\\b(file|submit) an? expense\\b',
  ])('accepts %j', (pattern) => {
    expect(unsafeTriggerReason(pattern)).toBeNull();
  });

  it.each([
    ['', /length/],
    ['a'.repeat(301), /length/],
    ['(unclosed', /syntax RE2 refuses/],
    ['deploy(?= now)', /uses lookahead/],
    ['deploy (a+)+$', /repeats a group/],
    ['deploy (\\w+\\s?)*now', /repeats a group/],
    ['(deploy|deploy)+', /repeats a group/],
    ['release ((ab)*c)+', /repeats a group/],
    ['(\\w)\\1 deploy', /backreference/],
    ['deploy.*abc.*def.*ghi.*jkl', /more than 3 repetitions/],
    ['\\w+\\s*deploy', /starts with a repetition/],
    ['deploy\\w+\\s*now', /two repetitions without a literal word/],
    ['\\bdeploy\\b.*(api|web).*staging', /two repetitions without a literal word/],
    ['(deploy)?', /empty string/],
    ['.*', /starts with a repetition/],
    ['\\w+\\s\\w+', /starts with a repetition/],
    ['[a-z]{3,}', /starts with a repetition/],
    ['[a-z]x', /literal word/],
  ])('refuses %j', (pattern, reason) => {
    expect(unsafeTriggerReason(pattern)).toMatch(reason);
  });

  it('property: an accepted trigger compiles and answers a long near-miss input quickly enough to finish', () => {
    const pieces = fc.constantFrom(
      'deploy',
      'staging',
      '\\b',
      '.*',
      '\\s+',
      '(a|b)',
      '+',
      '?',
      '(x+)',
      '*',
      '[a-z]',
    );
    fc.assert(
      fc.property(fc.array(pieces, { minLength: 1, maxLength: 8 }), (parts) => {
        const pattern = parts.join('');
        if (unsafeTriggerReason(pattern) !== null) return;
        // Triggers run on RE2, as the procedure library runs them: accepted means it compiles there.
        const compiled = compileLinearPattern(pattern);
        compiled.test(`${'a'.repeat(1_000)}!`);
        compiled.test(`${'deploy staging '.repeat(60)}!`);
        expect(pattern.length).toBeLessThanOrEqual(300);
      }),
      { numRuns: 300 },
    );
  });
});
