import { basename } from 'node:path';
import { type ParseArgsConfig, parseArgs } from 'node:util';

/**
 * What a string flag's value must be, checked before any work: a finite number, a comma-separated
 * list of finite numbers, JSON, one of some names, or a comma-separated list of some names.
 */
export type BenchValueRule =
  | 'number'
  | 'numbers'
  | 'json'
  | { readonly oneOf: readonly string[] }
  | { readonly listOf: readonly string[] };

/** One flag of a bench script, as `parseArgs` takes it, plus an optional rule for its value. */
export type BenchOption =
  | { readonly type: 'boolean'; readonly default?: boolean }
  | { readonly type: 'string'; readonly default?: string; readonly check?: BenchValueRule };

/** The parsed values: a string flag with a default is always a string, as `parseArgs` gives them. */
export type BenchValues<T extends Record<string, BenchOption>> = {
  -readonly [K in keyof T]: T[K] extends { type: 'boolean' }
    ? T[K] extends { default: boolean }
      ? boolean
      : boolean | undefined
    : T[K] extends { default: string }
      ? string
      : string | undefined;
};

/**
 * The flags of a bench script (`process.argv` after the script), parsed strictly: an unknown flag,
 * a positional argument, a missing value or a value that breaks its rule ends the process (exit
 * code 2) with a message naming the flag and, for an unknown one, listing the known flags.
 * With `ENGRAM_BENCH_CHECK_ARGUMENTS=1` set, it prints the parsed values as JSON and exits 0 before any work.
 * `ENGRAM_BENCH_CHECK_ARGUMENT_LISTS` (a JSON array of argument arrays) checks each in place of the
 * process's own, one line each (the values, or null with the error on stderr): one process checks
 * many documented commands of a script (test/docs-bench-commands.test.ts).
 */
export function parseBenchArguments<const T extends Record<string, BenchOption>>(
  options: T,
  args: string[] = process.argv.slice(2),
): BenchValues<T> {
  const script = basename(process.argv[1] ?? 'bench');
  if (process.env.ENGRAM_BENCH_CHECK_ARGUMENTS === '1') {
    const lists = process.env.ENGRAM_BENCH_CHECK_ARGUMENT_LISTS;
    let failed = false;
    for (const list of lists === undefined ? [args] : (JSON.parse(lists) as string[][])) {
      try {
        process.stdout.write(`${JSON.stringify(parseStrictly(options, list))}\n`);
      } catch (error) {
        failed = true;
        process.stdout.write('null\n');
        console.error(`${script}: ${(error as Error).message}`);
      }
    }
    process.exit(failed ? 2 : 0);
  }
  try {
    return parseStrictly(options, args);
  } catch (error) {
    console.error(`${script}: ${(error as Error).message}`);
    process.exit(2);
  }
}

/** `args` parsed by `options`; throws an error that names the flag at fault. */
function parseStrictly<T extends Record<string, BenchOption>>(options: T, args: string[]): BenchValues<T> {
  const config: NonNullable<ParseArgsConfig['options']> = {};
  for (const [name, option] of Object.entries(options)) {
    config[name] =
      option.type === 'boolean'
        ? { type: 'boolean', ...(option.default === undefined ? {} : { default: option.default }) }
        : { type: 'string', ...(option.default === undefined ? {} : { default: option.default }) };
  }
  let values: Record<string, string | boolean | undefined>;
  try {
    values = parseArgs({ args, options: config, strict: true, allowPositionals: false })
      .values as typeof values;
  } catch (error) {
    // Node's message for an unknown flag goes on about positionals after `--`: keep its first sentence.
    const message = String((error as Error).message).split('. To specify')[0];
    const known = Object.keys(options).map((name) => `--${name}`);
    throw new Error(`${message}. Known flags: ${known.length === 0 ? 'none' : known.join(', ')}`);
  }
  for (const [name, option] of Object.entries(options)) {
    const value = values[name];
    if (option.type !== 'string' || option.check === undefined || typeof value !== 'string') continue;
    const problem = breaksRule(value, option.check);
    if (problem !== undefined) throw new Error(`--${name} ${JSON.stringify(value)}: ${problem}`);
  }
  return values as BenchValues<T>;
}

/** Why `value` breaks `rule`, or undefined when it keeps it. */
function breaksRule(value: string, rule: BenchValueRule): string | undefined {
  const isNumber = (text: string) => text.trim() !== '' && Number.isFinite(Number(text));
  if (rule === 'number') return isNumber(value) ? undefined : 'not a number';
  if (rule === 'numbers') {
    const bad = value.split(',').filter((item) => !isNumber(item));
    return bad.length === 0 ? undefined : `not a comma-separated list of numbers (${bad.join(', ')})`;
  }
  if (rule === 'json') {
    try {
      JSON.parse(value);
      return undefined;
    } catch (error) {
      return `not JSON (${(error as Error).message})`;
    }
  }
  if ('oneOf' in rule) {
    return rule.oneOf.includes(value) ? undefined : `not one of ${rule.oneOf.join(', ')}`;
  }
  const bad = value.split(',').filter((item) => !rule.listOf.includes(item));
  return bad.length === 0 ? undefined : `unknown ${bad.join(', ')} (known: ${rule.listOf.join(', ')})`;
}
