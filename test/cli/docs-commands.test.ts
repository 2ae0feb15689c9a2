import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PassThrough } from 'node:stream';
import type { Command } from 'commander';
import { describe, expect, it } from 'vitest';
import { createProgram } from '../../src/cli/create-program.js';

/**
 * Every `npx engram …` the README and docs show names a command that exists, with options that
 * command has. The commands that can run here are run by docs-walkthrough.test.ts and the server
 * tests; the rest (a PostgreSQL host, a real embeddings server, `--host 0.0.0.0`) can only be
 * checked against the CLI's definition, which is what this does, so a renamed command or flag
 * cannot leave the docs behind.
 */
const files = [
  'README.md',
  ...readdirSync('docs', { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.md'))
    .map((file) => join('docs', file)),
];

/** Each `npx engram …` invocation: in sh blocks a whole line (comments cut), in prose a `code span`. */
function invocations(markdown: string): string[] {
  const found: string[] = [];
  for (const [, block = ''] of markdown.matchAll(/```(?:sh|bash)\n([\s\S]*?)```/g)) {
    for (const line of block.split('\n')) {
      const at = line.indexOf('npx engram');
      if (at >= 0)
        found.push(
          line
            .slice(at)
            .replace(/\s+#.*$/, '')
            .split(/\s*(?:\||&&|;)\s*/)[0] ?? '',
        );
    }
  }
  const prose = markdown.replace(/```[\s\S]*?```/g, '');
  for (const [, span = ''] of prose.matchAll(/`(npx engram[^`]*)`/g)) found.push(span);
  return found;
}

const program = createProgram(
  { stdout: new PassThrough(), stderr: new PassThrough(), environment: {} },
  () => {},
);

/** The command a word list names (`keys create` → the `create` subcommand of `keys`). */
function resolveCommand(words: string[]): { command: Command; rest: string[] } {
  let command = program;
  let index = 0;
  for (; index < words.length; index++) {
    const next = command.commands.find((sub) => sub.name() === words[index]);
    if (!next) break;
    command = next;
  }
  return { command, rest: words.slice(index) };
}

const all = files.flatMap((file) => invocations(readFileSync(file, 'utf8')).map((line) => ({ file, line })));

describe('npx engram in the README and docs', () => {
  it('finds the documented invocations', () => {
    expect(all.length).toBeGreaterThan(20);
  });

  it.each(all)('$file: $line', ({ line }) => {
    const words = line.split(/\s+/).slice(2);
    if (words.length === 0 || words[0] === '…') return; // `npx engram` alone: the CLI itself
    const globals = new Set(['--version', '-V', '--help', '-h']);
    if (words.every((word) => globals.has(word))) {
      expect(program.options.map((option) => option.long)).toContain('--version');
      return;
    }
    if (words[0] === 'help') {
      // commander's own help command: `help` alone, `help COMMAND` (a placeholder) or a real one.
      const [topic] = words.slice(1);
      if (topic !== undefined && topic !== 'COMMAND')
        expect(resolveCommand([topic]).command).not.toBe(program);
      return;
    }
    const { command, rest } = resolveCommand(words.filter((word) => !word.startsWith('-')).slice(0, 2));
    expect(command, `no command "${words[0]}"`).not.toBe(program);
    const known = new Set([
      '--help',
      '-h',
      ...command.options.flatMap((option) => [option.long, option.short]),
    ]);
    for (const word of words) {
      const flag = /^(--?[a-z][\w-]*)/.exec(word)?.[1];
      if (flag) expect(known, `${command.name()} has no option ${flag}`).toContain(flag);
    }
    expect(rest.length).toBeLessThanOrEqual(2);
  });
});
