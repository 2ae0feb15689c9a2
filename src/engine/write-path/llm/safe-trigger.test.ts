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

  it('property: an accepted trigger runs on RE2 and answers a long input as it answers a short one', () => {
    // Triggers shaped as the screen means to accept them: literal words joined by at most three
    // repetitions or optional parts. Each part comes with a text it matches, so every pattern comes
    // with a hit and, dropping the last letter of its last word everywhere, a near-miss.
    const part = (pattern: string, text: string) => ({ pattern, text });
    const word = fc.constantFrom('deploy', 'staging', 'release');
    const joiner = fc.constantFrom(
      part('.*', ' to the '),
      part('\\s+', '  '),
      part('\\s*', ''),
      part(' ', ' '),
      part(' (a|b) ', ' b '),
      part('[a-z]?', 'x'),
      part(' (the )?', ' the '),
      part('\\W+', ', '),
    );
    const trigger = fc.record({
      prefix: fc.constantFrom(part('', ''), part('\\b', '')),
      first: word,
      rest: fc.array(fc.record({ joiner, word }), { maxLength: 3 }),
      suffix: fc.constantFrom(part('', ''), part('\\b', ''), part('s?', 's')),
      shout: fc.boolean(),
    });
    fc.assert(
      fc.property(trigger, ({ prefix, first, rest, suffix, shout }) => {
        const pattern = [
          prefix.pattern,
          first,
          ...rest.map((r) => r.joiner.pattern + r.word),
          suffix.pattern,
        ].join('');
        fc.pre(unsafeTriggerReason(pattern) === null);
        const last = rest.at(-1)?.word ?? first;
        const hit = [prefix.text, first, ...rest.map((r) => r.joiner.text + r.word), suffix.text].join('');
        const nearMiss = hit.replaceAll(last, last.slice(0, -1));
        const cased = (text: string) => (shout ? text.toUpperCase() : text);
        // The reference: a backtracking engine's answer on the short texts, cheap at this length.
        const reference = new RegExp(pattern, 'i');
        expect(reference.test(cased(hit))).toBe(true);
        expect(reference.test(cased(nearMiss))).toBe(false);

        // Triggers run on RE2, as the procedure library runs them: accepted means it compiles there.
        const compiled = compileLinearPattern(pattern);
        expect(compiled.engine).toBe('re2js');
        expect(compiled.test('')).toBe(false);
        const longNearMiss = `${cased(`${nearMiss} `).repeat(80)}!`;
        expect(compiled.test(cased(hit))).toBe(true);
        expect(compiled.test(cased(nearMiss))).toBe(false);
        expect(compiled.test(longNearMiss)).toBe(false);
        expect(compiled.test(`${longNearMiss} ${cased(hit)} ${longNearMiss}`)).toBe(true);
      }),
      { numRuns: 300 },
    );
  });
});
