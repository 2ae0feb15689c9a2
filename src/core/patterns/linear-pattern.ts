import { RE2JS, RE2JSSyntaxException } from 're2js';
import { EngramError } from '../errors.js';

/** Longest part of a refused pattern quoted back in an error. */
const MAX_QUOTED_PATTERN_CHARS = 100;

/**
 * Constructs that backtracking engines offer and RE2 refuses, because no linear-time algorithm
 * runs them: keyed by the fragment RE2 quotes in its syntax error.
 */
const unsupportedConstructs: [RegExp, string][] = [
  [/^\\[1-9]/, 'backreferences (\\1 … \\9)'],
  [/^\\k/, 'named backreferences (\\k<name>)'],
  [/^\(\?=/, 'lookahead (?=…)'],
  [/^\(\?!/, 'negative lookahead (?!…)'],
  [/^\(\?<=/, 'lookbehind (?<=…)'],
  [/^\(\?<!/, 'negative lookbehind (?<!…)'],
  [/^\(\?>/, 'atomic groups (?>…)'],
  [/^[*+?}][+]/, 'possessive quantifiers (a++)'],
  [/^\{\d+(,\d*)?\}$/, 'repeat counts above 1000'],
];

/** A user-supplied pattern refused because it cannot run in linear time (or does not parse). */
export class UnsupportedPatternError extends EngramError {
  /** What RE2 refused, in words (e.g. `lookahead (?=…)`). */
  readonly construct: string;

  constructor(pattern: string, construct: string) {
    const quoted =
      pattern.length > MAX_QUOTED_PATTERN_CHARS ? `${pattern.slice(0, MAX_QUOTED_PATTERN_CHARS)}…` : pattern;
    super(
      'unsupported_pattern',
      'unprocessable',
      `Pattern "${quoted}" uses ${construct}: patterns run on RE2 (linear time), which does not support it`,
      { details: { pattern: quoted, construct } },
    );
    this.name = 'UnsupportedPatternError';
    this.construct = construct;
  }
}

/** A compiled user pattern: case-insensitive, matched anywhere in the text, in linear time. */
export interface LinearPattern {
  readonly source: string;
  /** The engine that runs it: always RE2 semantics (re2js), never a backtracking one. */
  readonly engine: 're2js';
  test(text: string): boolean;
}

/** JavaScript's `\uXXXX` and `\u{X…}` escapes, which RE2 spells `\x{X…}`. */
function translateEscapes(pattern: string): string {
  return pattern.replace(
    /(\\\\)|\\u\{([0-9a-fA-F]+)\}|\\u([0-9a-fA-F]{4})/g,
    (whole, escaped, braced, four) => (escaped ? whole : `\\x{${braced ?? four}}`),
  );
}

function describeSyntaxError(error: RE2JSSyntaxException): string {
  const fragment = /`([^`]*)`\s*$/.exec(error.message)?.[1] ?? '';
  for (const [shape, construct] of unsupportedConstructs) if (shape.test(fragment)) return construct;
  return `syntax RE2 refuses (${error.message.slice(0, MAX_QUOTED_PATTERN_CHARS)})`;
}

/**
 * Compiles a user-supplied pattern (procedure triggers) with RE2 semantics, whose matching time is
 * linear in the input whatever the pattern: `(a+)+$` cannot backtrack. Throws
 * UnsupportedPatternError (422, code `unsupported_pattern`) naming the construct RE2 lacks
 * (backreferences, lookaround, atomic groups, possessive quantifiers).
 */
export function compileLinearPattern(pattern: string): LinearPattern {
  let compiled: RE2JS;
  try {
    compiled = RE2JS.compile(translateEscapes(pattern), RE2JS.CASE_INSENSITIVE);
  } catch (error) {
    if (error instanceof RE2JSSyntaxException)
      throw new UnsupportedPatternError(pattern, describeSyntaxError(error));
    throw error;
  }
  return { source: pattern, engine: 're2js', test: (text) => compiled.matcher(text).find() };
}

const compiledPatterns = new Map<string, LinearPattern>();
const MAX_CACHED_PATTERNS = 1_000;

/** compileLinearPattern with a bounded cache: triggers are matched every turn, compiled once. */
export function cachedLinearPattern(pattern: string): LinearPattern {
  let compiled = compiledPatterns.get(pattern);
  if (!compiled) {
    compiled = compileLinearPattern(pattern);
    if (compiledPatterns.size >= MAX_CACHED_PATTERNS) {
      compiledPatterns.delete(compiledPatterns.keys().next().value as string);
    }
    compiledPatterns.set(pattern, compiled);
  }
  return compiled;
}
