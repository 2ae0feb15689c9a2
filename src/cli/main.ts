#!/usr/bin/env node
import { parseArgs } from 'node:util';
import { EngramError } from '../core/errors.js';
import { runMcpStdio } from '../mcp/run-mcp-stdio.js';
import { startServer } from '../server/start-server.js';
import { KEYS_HELP, runKeysCommand } from './keys-command.js';
import { runDemo } from './run-demo.js';

const HELP = `engram — working memory for LLM agents

Usage:
  engram demo [--db PATH] [--session ID] [--budget TOKENS] [--strategy drop-oldest|sliding-window|summarize]
      Interactive context-assembly demo on the embedded SQLite store (default ./data/engram.db).
      Type a message: engram assembles the context for it under the budget, shows what went in
      and why, then stores the turn. Commands: /context (print the last context), /quit.
  engram serve [--host 127.0.0.1] [--port 8000] [--db ./data/engram.db] [--config FILE] [--auth enabled|disabled]
               [--store postgres://user@host:5432/db] [--llm-base-url URL --llm-model NAME]
      HTTP server: the AMS-compatible /v1 working-memory API, /ready and /metrics. --store (or
      ENGRAM_STORE_URL) keeps everything in PostgreSQL instead of the SQLite file, so several servers
      can share one database (docs/stores/postgres.md). Settings come
      from flags, then ENGRAM_* environment variables, then the JSON config file (docs/server.md).
      With authentication disabled (the default) only loopback addresses are accepted (docs/auth.md).
      An OpenAI-compatible model (flags, or ENGRAM_LLM_BASE_URL, ENGRAM_LLM_MODEL, ENGRAM_LLM_API_KEY)
      turns on memory extraction and LLM summaries, run by the job runner inside serve (docs/write-path.md).
  engram mcp [--db ./data/engram.db] [--tenant default] [--config FILE]
      MCP server on stdio (memory tools; docs/mcp.md) for one tenant (or ENGRAM_TENANT), on the same
      database as serve (ENGRAM_DATABASE_PATH). Stdout carries only MCP messages; logs go to stderr.
${KEYS_HELP}  engram help
`;

async function main(argv: string[]): Promise<number> {
  const [command, ...rest] = argv;
  if (command === undefined || command === 'help' || command === '--help' || command === '-h') {
    process.stdout.write(HELP);
    return 0;
  }
  if (command === 'demo') {
    const { values } = parseArgs({
      args: rest,
      options: {
        db: { type: 'string', default: './data/engram.db' },
        session: { type: 'string', default: 'demo' },
        budget: { type: 'string', default: '600' },
        strategy: { type: 'string', default: 'drop-oldest' },
      },
    });
    await runDemo({
      databasePath: values.db,
      sessionId: values.session,
      budget: Number(values.budget),
      strategy: values.strategy,
      input: process.stdin,
      output: process.stdout,
    });
    return 0;
  }
  if (command === 'serve') {
    const { values } = parseArgs({
      args: rest,
      options: {
        host: { type: 'string' },
        port: { type: 'string' },
        db: { type: 'string' },
        store: { type: 'string' },
        config: { type: 'string' },
        auth: { type: 'string' },
        'llm-base-url': { type: 'string' },
        'llm-model': { type: 'string' },
      },
    });
    await startServer({ flags: values, environment: process.env, stderr: process.stderr });
    return 0;
  }
  if (command === 'mcp') {
    const { values } = parseArgs({
      args: rest,
      options: { db: { type: 'string' }, tenant: { type: 'string' }, config: { type: 'string' } },
    });
    const { stdin, stdout, stderr } = process;
    await runMcpStdio({ flags: values, environment: process.env, stdin, stdout, stderr });
    return 0;
  }
  if (command === 'keys') {
    return runKeysCommand(rest, { stdout: process.stdout, stderr: process.stderr, environment: process.env });
  }
  process.stderr.write(`Unknown command "${command}".\n\n${HELP}`);
  return 2;
}

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    const message = error instanceof EngramError ? `${error.code}: ${error.message}` : String(error);
    process.stderr.write(`engram: ${message}\n`);
    process.exitCode = 1;
  },
);
