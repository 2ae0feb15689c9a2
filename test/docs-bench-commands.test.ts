import { execFile } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

/**
 * Every benchmark command that README.md, BENCHMARKS.md and docs/**\/*.md show still names a script
 * that exists and flags (and values) that script accepts: each distinct command is parsed by its
 * script under `ENGRAM_BENCH_CHECK_ARGUMENTS=1`, which makes bench/parse-bench-arguments.ts parse
 * the flags strictly and exit before any work. One `node --import tsx bench/x.ts` process per
 * script checks all of that script's commands (`ENGRAM_BENCH_CHECK_ARGUMENT_LISTS`): loading a
 * script takes seconds on a loaded machine, and the docs show dozens of distinct commands.
 *
 * What counts as a command, in inline code spans (a span may wrap across lines; not across a blank
 * line) and in the lines of ```sh / ```bash / ```shell blocks (a trailing `\` joins the next line):
 * - `npm run bench:NAME` with the flags after its `--`, NAME mapped through package.json's scripts
 *   (the part of the script that runs a `.ts` file, as `npm install … && node … bench/x.ts`);
 * - `node [node flags] --import tsx bench/x.ts flags`, `npx tsx bench/x.ts flags`, `tsx bench/x.ts
 *   flags` (with `VAR=value` prefixes skipped);
 * - a span that starts with `bench/x.ts` followed by at least one flag (a bare path is a reference
 *   to the file, not a command).
 * A command ends at `&&`, `||`, `;`, `|` or a redirection. A placeholder (a word with `…` or `...`,
 * `<like-this>`, or in capitals as `N` or `NAME`) stands for any value: it is dropped, with the
 * flag it is the value of. Node's own flags are not checked.
 */

interface Command {
  script: string;
  args: string[];
  /** Where the docs show it: `file:line`. */
  shown: string[];
}

const markdownFiles = (): string[] => [
  'README.md',
  'BENCHMARKS.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => `docs/${file}`)
    .sort(),
];

const packageScripts = (
  JSON.parse(readFileSync('package.json', 'utf8')) as { scripts: Record<string, string> }
).scripts;

/** Each snippet of shell the file shows, with its line: inline code spans and sh block lines. */
function shellSnippets(file: string): { text: string; line: number }[] {
  const lines = readFileSync(file, 'utf8').split('\n');
  const snippets: { text: string; line: number }[] = [];
  let paragraph: { text: string; line: number }[] = [];
  const endParagraph = () => {
    const text = paragraph.map((entry) => entry.text).join('\n');
    for (const match of text.matchAll(/(`+)([^`][\s\S]*?)\1(?!`)/g)) {
      const before = text.slice(0, match.index).split('\n').length - 1;
      snippets.push({
        text: (match[2] ?? '').replace(/\s+/g, ' ').trim(),
        line: (paragraph[before]?.line ?? 0) + 1,
      });
    }
    paragraph = [];
  };
  for (let index = 0; index < lines.length; index++) {
    const fence = /^\s*(```|~~~)\s*(\w*)/.exec(lines[index] ?? '');
    if (fence) {
      endParagraph();
      const shell = ['sh', 'bash', 'shell', 'console'].includes(fence[2] ?? '');
      let pending = '';
      for (
        index++;
        index < lines.length && !(lines[index] ?? '').trim().startsWith(fence[1] ?? '```');
        index++
      ) {
        if (!shell) continue;
        const text = (lines[index] ?? '').replace(/^\s*\$ /, '');
        if (text.endsWith('\\')) pending += `${text.slice(0, -1)} `;
        else {
          snippets.push({ text: `${pending}${text}`.trim(), line: index + 1 });
          pending = '';
        }
      }
      continue;
    }
    if ((lines[index] ?? '').trim() === '') endParagraph();
    else paragraph.push({ text: lines[index] ?? '', line: index });
  }
  endParagraph();
  return snippets;
}

/** The commands of a shell line: its words (quotes removed), split at `&&`, `||`, `;`, `|`, `>`. */
function shellCommands(text: string): string[][] {
  const commands: string[][] = [[]];
  let word: string | undefined;
  const endWord = () => {
    if (word !== undefined) commands.at(-1)?.push(word);
    word = undefined;
  };
  for (let index = 0; index < text.length; index++) {
    const char = text[index] ?? '';
    if (char === "'" || char === '"') {
      const close = text.indexOf(char, index + 1);
      const end = close < 0 ? text.length : close;
      word = (word ?? '') + text.slice(index + 1, end);
      index = end;
    } else if (char === '\\' && index + 1 < text.length) {
      word = (word ?? '') + text[++index];
    } else if (/\s/.test(char)) {
      endWord();
    } else if ('&|;<>'.includes(char)) {
      // A file descriptor before a redirection (`2>&1`) is part of it, not a word.
      if (char === '>' && word !== undefined && /^\d$/.test(word)) word = undefined;
      endWord();
      while (
        '&|;<>'.includes(text[index + 1] ?? ' ') ||
        (/\d/.test(text[index + 1] ?? '') && text[index] === '&')
      )
        index++;
      commands.push([]);
    } else {
      word = (word ?? '') + char;
    }
  }
  endWord();
  return commands.filter((command) => command.length > 0);
}

const isPlaceholder = (word: string) =>
  word.includes('…') || word.includes('...') || /^<.*>$/.test(word) || /^[A-Z][A-Z_]*$/.test(word);

/**
 * The script and flags that one command (shell words, no operators) runs, or undefined when it is
 * not a benchmark run. `bare` accepts a command that starts with the script's path; a script
 * outside bench/ counts only behind an npm `bench:*` script (`fromPackage`).
 */
function benchRun(
  command: string[],
  bare: boolean,
  fromPackage = false,
): { script: string; args: string[] } | undefined {
  let rest = command;
  while (rest[0] !== undefined && /^[A-Z_][A-Z0-9_]*=/.test(rest[0])) rest = rest.slice(1);
  const [first, second, third] = rest;
  if (first === 'npm' && second === 'run' && third?.startsWith('bench:')) {
    const script = packageScripts[third];
    if (script === undefined) return { script: `(no npm script ${third})`, args: [] };
    const target = shellCommands(script)
      .map((part) => benchRun(part, false, true))
      .find((run) => run !== undefined);
    const dashes = rest.indexOf('--');
    const args = dashes < 0 ? [] : rest.slice(dashes + 1);
    return target === undefined
      ? { script: `(npm script ${third} runs no .ts file)`, args: [] }
      : { script: target.script, args: [...target.args, ...args] };
  }
  const at = rest.findIndex((word) => /^[\w./-]+\.ts$/.test(word));
  const script = rest[at] ?? '';
  if (at < 0 || (!fromPackage && !script.startsWith('bench/'))) return undefined;
  const launcher = rest.slice(0, at);
  const launched =
    (launcher[0] === 'node' && launcher.at(-1) === 'tsx' && launcher.at(-2) === '--import') ||
    (launcher[0] === 'node' && launcher.at(-1) === '--import=tsx') ||
    (launcher.length === 2 && launcher[0] === 'npx' && launcher[1] === 'tsx') ||
    (launcher.length === 1 && launcher[0] === 'tsx');
  const args = rest.slice(at + 1);
  const isBare = launcher.length === 0 && bare && args.some((word) => word.startsWith('--'));
  if (!launched && !isBare) return undefined;
  return { script, args };
}

/** Every distinct benchmark command the docs show, in order of first appearance. */
function documentedCommands(): Command[] {
  const commands = new Map<string, Command>();
  for (const file of markdownFiles()) {
    for (const snippet of shellSnippets(file)) {
      for (const [position, command] of shellCommands(snippet.text).entries()) {
        const run = benchRun(command, position === 0);
        if (run === undefined) continue;
        const args: string[] = [];
        for (const word of run.args) {
          if (!isPlaceholder(word)) args.push(word);
          else if (args.at(-1)?.startsWith('--') && !args.at(-1)?.includes('=')) args.pop();
        }
        const key = JSON.stringify([run.script, ...args]);
        const shown = `${file}:${snippet.line}`;
        const known = commands.get(key);
        if (known) known.shown.push(shown);
        else commands.set(key, { script: run.script, args, shown: [shown] });
      }
    }
  }
  return [...commands.values()];
}

/**
 * Runs `node --import tsx script` in check mode over the flags of each of `commands` (all of that
 * script): per command, undefined when its flags parse, else what the script said.
 */
function check(script: string, commands: Command[]): Promise<(string | undefined)[]> {
  const env = {
    ...process.env,
    ENGRAM_BENCH_CHECK_ARGUMENTS: '1',
    ENGRAM_BENCH_CHECK_ARGUMENT_LISTS: JSON.stringify(commands.map((command) => command.args)),
  };
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      ['--import', 'tsx', script],
      { env, timeout: 120_000 },
      (error, stdout, stderr) => {
        const lines = stdout.split('\n').filter((line) => line !== '');
        const errors = stderr.split('\n').filter((line) => line.trim() !== '');
        // A script that failed before parsing (an import, a syntax error) printed no line per command.
        if (lines.length !== commands.length)
          return resolve(commands.map(() => `exit ${error?.code}: ${stderr}`));
        let failed = 0;
        resolve(lines.map((line) => (line === 'null' ? (errors[failed++] ?? stderr) : undefined)));
      },
    );
  });
}

/** Maps `items` through `task`, at most `limit` at a time. */
async function mapLimited<T, R>(items: T[], limit: number, task: (item: T) => Promise<R>): Promise<R[]> {
  const results: R[] = [];
  let next = 0;
  const worker = async () => {
    while (next < items.length) {
      const index = next++;
      results[index] = await task(items[index] as T);
    }
  };
  await Promise.all(Array.from({ length: limit }, worker));
  return results;
}

describe('benchmark commands in the docs', () => {
  const commands = documentedCommands();

  it('are found (the extraction still sees the docs’ forms)', () => {
    const scripts = new Set(commands.map((command) => command.script));
    expect(scripts).toContain('bench/locomo.ts'); // npm run bench:locomo -- --scale 0
    expect(scripts).toContain('bench/memory-search.ts'); // npx tsx bench/memory-search.ts …
    expect(scripts).toContain('bench/adversarial.ts'); // node --expose-gc --import tsx bench/adversarial.ts …
    expect(scripts).toContain('bench/peers/mastra.ts'); // npm run bench:mastra
    expect(commands.length).toBeGreaterThan(30);
  });

  it('name scripts that exist and parse their flags with parseBenchArguments', () => {
    // Check mode comes from the helper: a script without it would run the benchmark for real.
    const broken = commands
      .filter(
        (command) =>
          !existsSync(command.script) ||
          !readFileSync(command.script, 'utf8').includes('parseBenchArguments('),
      )
      .map((command) => `${command.script} (${command.shown.join(', ')})`);
    expect(broken).toEqual([]);
  });

  it('run with flags their script accepts', async () => {
    const runnable = commands.filter(
      (command) =>
        existsSync(command.script) && readFileSync(command.script, 'utf8').includes('parseBenchArguments('),
    );
    const byScript = new Map<string, Command[]>();
    for (const command of runnable)
      byScript.set(command.script, [...(byScript.get(command.script) ?? []), command]);
    const results = await mapLimited([...byScript], 2, async ([script, group]) =>
      (await check(script, group)).map((problem, index) => ({ command: group[index] as Command, problem })),
    );
    const failures = results
      .flat()
      .filter(({ problem }) => problem !== undefined)
      .map(
        ({ command, problem }) =>
          `${[command.script, ...command.args].join(' ')} (${command.shown.join(', ')}): ${problem}`,
      );
    expect(failures).toEqual([]);
  }, 240_000);
});

describe('bench scripts', () => {
  it('parse their flags with parseBenchArguments, never parseArgs directly', () => {
    const direct = readdirSync('bench', { recursive: true, encoding: 'utf8' })
      .filter((file) => file.endsWith('.ts') && !file.includes('node_modules'))
      .filter((file) => file !== 'parse-bench-arguments.ts')
      .filter((file) => /\bparseArgs\(/.test(readFileSync(`bench/${file}`, 'utf8')));
    expect(direct).toEqual([]);
  });

  it('behind every npm bench:* script use parseBenchArguments', () => {
    const missing = Object.entries(packageScripts)
      .filter(([name]) => name.startsWith('bench:'))
      .flatMap(([name, script]) => {
        const file = shellCommands(script)
          .flat()
          .find((word) => word.endsWith('.ts'));
        return file !== undefined &&
          existsSync(file) &&
          readFileSync(file, 'utf8').includes('parseBenchArguments(')
          ? []
          : [`${name}: ${script}`];
      });
    expect(missing).toEqual([]);
  });
});
