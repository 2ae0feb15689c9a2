import {
  compileLinearPattern,
  type LinearPattern,
  UnsupportedPatternError,
} from '../../../core/patterns/linear-pattern.js';
import { MAX_TRIGGER_CHARS } from '../../../core/schemas/procedure.js';

/** Longest literal-free stretch a trigger may rely on: it must name at least one word this long. */
const MIN_LITERAL_WORD = 3;

/** Most repetitions (`*`, `+`, `{n,}`, `{n,m}` with m > 1) a trigger may have. */
const MAX_REPETITIONS = 3;

/** Whether the quantifier starting at `rest` can repeat without bound (`*`, `+`, `{n,}`, `{n,m}` with m > 1). */
function repeats(rest: string): boolean {
  if (rest.startsWith('*') || rest.startsWith('+')) return true;
  const braces = /^\{(\d+)(,(\d*))?\}/.exec(rest);
  if (!braces) return false;
  if (braces[2] === undefined) return Number(braces[1]) > 1;
  return braces[3] === '' || Number(braces[3]) > 1;
}

/**
 * Why a model-proposed trigger is unsafe to run against every user message, or null when it is
 * fine. Every trigger runs on RE2 (linear time); this screen adds what a model-proposed one must also
 * meet. Checked: length (at most {@link MAX_TRIGGER_CHARS}), that RE2 compiles it, no
 * backreferences, no repeated group that itself contains a repetition or an alternation (the
 * shapes of catastrophic backtracking, such as `(a+)+` or `(a|a)*`), that it cannot match the
 * empty string, and that it names a literal word of at least three letters (so `.*` or `\w+`,
 * which match anything, are refused). A conservative static check: some safe patterns are refused.
 */
export function unsafeTriggerReason(pattern: string): string | null {
  if (pattern.length === 0 || pattern.length > MAX_TRIGGER_CHARS) {
    return `length must be 1 to ${MAX_TRIGGER_CHARS} characters`;
  }
  let compiled: LinearPattern;
  try {
    compiled = compileLinearPattern(pattern);
  } catch (error) {
    return error instanceof UnsupportedPatternError ? `uses ${error.construct}` : 'does not compile';
  }
  if (/\\[1-9]|\\k</.test(pattern)) return 'uses a backreference';
  // Walk the groups; each open group records whether it holds a repetition or an alternation.
  const stack: { risky: boolean }[] = [];
  let inClass = false;
  let repetitions = 0;
  // Letters in a row outside any group since the last repetition: the literal that separates two.
  let literalRun = 0;
  let separated = false;
  let seenLiteral = false;
  for (let index = 0; index < pattern.length; index += 1) {
    const char = pattern[index] ?? '';
    if (char === '\\') {
      index += 1;
      literalRun = 0;
      continue;
    }
    if (inClass) {
      if (char === ']') inClass = false;
      continue;
    }
    if (stack.length === 0 && /\p{L}/u.test(char)) {
      literalRun += 1;
      if (literalRun >= MIN_LITERAL_WORD) {
        separated = true;
        seenLiteral = true;
      }
      continue;
    }
    literalRun = 0;
    if (char === '[') inClass = true;
    else if (char === '(') stack.push({ risky: false });
    else if (char === '|') {
      const top = stack.at(-1);
      if (top) top.risky = true;
    } else if (char === ')') {
      const group = stack.pop();
      const rest = pattern.slice(index + 1);
      if (group?.risky && repeats(rest)) return 'repeats a group that contains a repetition or alternation';
      const outer = stack.at(-1);
      if (outer && (group?.risky || repeats(rest))) outer.risky = true;
    } else if (repeats(pattern.slice(index))) {
      repetitions += 1;
      // Two repetitions with nothing required between them split the same text every possible
      // way on a near-miss (`\w+\s*.*x`): the cost grows with a power of the message length.
      // A leading repetition adds nothing to an unanchored search but scans the rest from every position.
      if (!seenLiteral) return 'starts with a repetition before any literal word';
      if (!separated) return 'has two repetitions without a literal word between them';
      separated = false;
      const top = stack.at(-1);
      if (top) top.risky = true;
    }
  }
  // Each further unbounded repetition multiplies the work on a near-miss (`.*a.*b.*c.*d`).
  if (repetitions > MAX_REPETITIONS) return `has more than ${MAX_REPETITIONS} repetitions`;
  if (compiled.test('')) return 'matches the empty string';
  const literals = pattern
    .replace(/\\[pPu]\{[^}]*\}|\\u[0-9a-f]{4}|\\x[0-9a-f]{2}|\\./gi, ' ')
    .replace(/\[[^\]]*\]/g, ' ')
    .replace(/\{[^}]*\}/g, ' ');
  if (!new RegExp(`\\p{L}{${MIN_LITERAL_WORD},}`, 'u').test(literals)) {
    return `names no literal word of ${MIN_LITERAL_WORD} or more letters`;
  }
  return null;
}
