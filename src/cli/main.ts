#!/usr/bin/env node
import { CommanderError } from 'commander';
import { EngramError } from '../core/errors.js';
import type { CliIo } from './cli-io.js';
import { createProgram } from './create-program.js';

/** Runs the CLI on `argv` (without node and the script); resolves the exit code. */
async function main(argv: string[], io: CliIo): Promise<number> {
  let exitCode = 0;
  const program = createProgram(io, (code) => {
    exitCode = code;
  });
  program.exitOverride();
  for (const command of [program, ...program.commands, ...program.commands.flatMap((c) => c.commands)]) {
    command.exitOverride();
  }
  try {
    await program.parseAsync(argv.length === 0 ? ['help'] : argv, { from: 'user' });
    return exitCode;
  } catch (error) {
    // Commander already printed its message (unknown command, missing argument…); help and --version exit 0.
    if (error instanceof CommanderError) return error.exitCode === 0 ? 0 : 2;
    const message = error instanceof EngramError ? `${error.code}: ${error.message}` : String(error);
    io.stderr.write(`engram: ${message}\n`);
    return 1;
  }
}

// Output piped into a reader that stops early (`engram export - | head`) is not an error.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
    throw error;
  });
}

main(process.argv.slice(2), {
  stdout: process.stdout,
  stderr: process.stderr,
  environment: process.env,
}).then((code) => {
  process.exitCode = code;
});
