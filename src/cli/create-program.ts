import { Command, Option } from 'commander';
import { ValidationError } from '../core/errors.js';
import { MAX_BUDGET_TOKENS } from '../core/schemas/agent.js';
import { runMcpStdio } from '../mcp/run-mcp-stdio.js';
import { startServer } from '../server/start-server.js';
import type { CliIo } from './cli-io.js';
import { runDoctor } from './doctor-command.js';
import { engramVersion } from './engram-version.js';
import { runExport } from './export-command.js';
import { runImport } from './import-command.js';
import { runIngest } from './ingest-command.js';
import { runInspect } from './inspect-command.js';
import { createKeysCommand } from './keys-command.js';
import { runDemo } from './run-demo.js';

const EXAMPLES = `
Examples (from a clone: npx engram …; docs/cli.md has every command):
  engram serve --port 8000                      the HTTP API on http://127.0.0.1:8000
  engram demo                                   interactive context-assembly demo
  engram ingest ./handbook --agent support      a directory of Markdown, text and HTML
  engram export backup.jsonl --tenant acme      everything in a tenant, as JSON Lines
  engram import backup.jsonl                    back in (idempotent; re-run to resume)
  engram inspect chat-42 --last 3               the last turns' context traces
  engram doctor                                 store, embedder, LLM and the settings in force
  engram keys create --tenant acme --role agent
`;

const DB_HELP =
  'SQLite database (default: ENGRAM_DATABASE_PATH, then the config file, then ./data/engram.db)';
const CONFIG_HELP = 'JSON config file (or ENGRAM_CONFIG), read as by `engram serve` (docs/server.md)';
const STORE_HELP = 'PostgreSQL URL instead of the SQLite file (or ENGRAM_STORE_URL; docs/stores/postgres.md)';

/** Adds `--db`, `--store` and `--config`, resolved like `engram serve`'s settings. */
const withStore = (command: Command) =>
  command
    .option('--db <path>', DB_HELP)
    .option('--store <url>', STORE_HELP)
    .option('--config <file>', CONFIG_HELP);

/**
 * The `engram` command line (commander): every command, its flags and help. Actions write to `io`
 * and report their exit code through `setExitCode`; errors propagate to the caller (main.ts).
 */
export function createProgram(io: CliIo, setExitCode: (code: number) => void): Command {
  const program = new Command('engram')
    .description('engram: working memory for LLM agents')
    .version(engramVersion, '-v, --version', 'print the version')
    .helpCommand('help [command]', 'help for a command')
    .showSuggestionAfterError()
    .addHelpText('after', EXAMPLES)
    .configureOutput({
      writeOut: (text) => io.stdout.write(text),
      writeErr: (text) => io.stderr.write(text),
    });

  program
    .command('demo')
    .summary('interactive context-assembly demo')
    .description(
      'interactive context-assembly demo on the embedded SQLite store: type a message, see what went into ' +
        'its context and why (/context prints the last context, /quit ends)',
    )
    .option('--db <path>', 'SQLite database', './data/engram.db')
    .option('--session <id>', 'session id', 'demo')
    .option('--budget <tokens>', 'maxWorkingMemoryTokens of the demo agent', '600')
    .addOption(
      new Option('--strategy <name>', 'history pruning')
        .choices(['drop-oldest', 'sliding-window', 'summarize'])
        .default('drop-oldest'),
    )
    .action(async (flags: { db: string; session: string; budget: string; strategy: string }) => {
      const budget = Number(flags.budget);
      // Checked before the demo seeds anything: every turn would otherwise fail on the agent's budget.
      if (!Number.isInteger(budget) || budget < 64 || budget > MAX_BUDGET_TOKENS) {
        throw new ValidationError(
          `--budget must be a whole number of tokens from 64 to ${MAX_BUDGET_TOKENS}`,
        );
      }
      await runDemo({
        databasePath: flags.db,
        sessionId: flags.session,
        budget,
        strategy: flags.strategy,
        input: process.stdin,
        output: io.stdout,
      });
    });

  withStore(
    program
      .command('serve')
      .summary('HTTP server (AMS-compatible API, MCP at /mcp)')
      .description(
        'HTTP server: the AMS-compatible /v1 API, engram extensions, /openapi.json, /ready, /metrics and POST /mcp. ' +
          'Settings: flags, then ENGRAM_* variables, then the config file (docs/server.md). With authentication ' +
          'disabled (the default) only loopback addresses are accepted, and only requests whose Host/Origin is ' +
          'loopback or allow-listed are served (docs/auth.md). SIGTERM, SIGINT or SIGHUP drains ' +
          'requests and stops.',
      )
      .option('--host <host>', 'address to listen on (default 127.0.0.1)')
      .option('--port <port>', 'port (default 8000; 0 picks a free one)')
      .addOption(new Option('--auth <mode>', 'authentication').choices(['enabled', 'disabled']))
      .option('--allowed-hosts <names>', 'comma-separated Host/Origin names also served while auth is off')
      .option('--llm-base-url <url>', 'OpenAI-compatible API root: turns on extraction and LLM summaries')
      .option('--llm-model <name>', 'model name at --llm-base-url (key: ENGRAM_LLM_API_KEY)')
      .option(
        '--embeddings-base-url <url>',
        'OpenAI-compatible embeddings endpoint instead of the offline static vectors (docs/embeddings.md)',
      )
      .option('--embeddings-model <name>', 'model at --embeddings-base-url (key: ENGRAM_EMBEDDINGS_API_KEY)')
      .option('--embeddings-dimensions <n>', 'dimensions to ask the embeddings endpoint for'),
  ).action(
    async (flags: {
      host?: string;
      port?: string;
      db?: string;
      config?: string;
      auth?: string;
      allowedHosts?: string;
      llmBaseUrl?: string;
      llmModel?: string;
      embeddingsBaseUrl?: string;
      embeddingsModel?: string;
      embeddingsDimensions?: string;
    }) => {
      const {
        allowedHosts,
        llmBaseUrl,
        llmModel,
        embeddingsBaseUrl,
        embeddingsModel,
        embeddingsDimensions,
        ...rest
      } = flags;
      await startServer({
        flags: {
          ...rest,
          'allowed-hosts': allowedHosts,
          'llm-base-url': llmBaseUrl,
          'llm-model': llmModel,
          'embeddings-base-url': embeddingsBaseUrl,
          'embeddings-model': embeddingsModel,
          'embeddings-dimensions': embeddingsDimensions,
        },
        environment: io.environment,
        stderr: io.stderr,
      });
    },
  );

  withStore(
    program
      .command('mcp')
      .summary('MCP server on stdio')
      .description(
        'MCP server on stdio (docs/mcp.md) for one tenant, on the same database as serve. Stdout carries only ' +
          'MCP messages; logs go to stderr.',
      )
      .option('--tenant <tenant>', 'tenant (default: ENGRAM_TENANT, else default)'),
  ).action(async (flags: { db?: string; store?: string; tenant?: string; config?: string }) => {
    await runMcpStdio({
      flags,
      environment: io.environment,
      stdin: process.stdin,
      stdout: io.stdout,
      stderr: io.stderr,
    });
  });

  program.addCommand(createKeysCommand(io, setExitCode));

  withStore(
    program
      .command('export')
      .summary('write a tenant to a JSON Lines file')
      .description(
        'everything in a tenant as JSON Lines: agents, sessions with messages, memories with every version ' +
          "(knowledge chunks, procedures and episodes included). FILE '-' writes to stdout.",
      )
      .argument('<file>', 'the file to write (replaced once complete)')
      .option('--tenant <tenant>', 'tenant to export', 'default'),
  ).action(async (file: string, flags: { tenant: string; db?: string; config?: string }) => {
    setExitCode(await runExport(file, flags, io));
  });

  withStore(
    program
      .command('import')
      .summary('read an engram export or an AMS memory dump')
      .description(
        'an engram export (idempotent and resumable: items already present are skipped) or an AMS long-term ' +
          'memory dump (records as the AMS API returns them). Exit code 1 if any item failed.',
      )
      .argument(
        '<file>',
        'an `engram export` file, or AMS records (JSON Lines, a JSON array, or a search response)',
      )
      .option('--tenant <tenant>', "target tenant (default: the export's tenant; for AMS dumps, default)")
      .addOption(
        new Option('--format <format>', 'file format').choices(['auto', 'engram', 'ams']).default('auto'),
      ),
  ).action(
    async (
      file: string,
      flags: { tenant?: string; format: 'auto' | 'engram' | 'ams'; db?: string; config?: string },
    ) => {
      setExitCode(await runImport(file, flags, io));
    },
  );

  withStore(
    program
      .command('ingest')
      .summary('add knowledge documents for an agent')
      .description(
        'knowledge documents (Markdown, text, HTML) for an agent; directories are walked recursively and a ' +
          "file's name is its path relative to the directory, so re-ingesting replaces changed files only",
      )
      .argument('<paths...>', 'files and directories')
      .requiredOption('--agent <id>', 'the agent the knowledge belongs to')
      .option('--tenant <tenant>', 'tenant', 'default'),
  ).action(
    async (paths: string[], flags: { agent: string; tenant: string; db?: string; config?: string }) => {
      setExitCode(await runIngest(paths, flags, io));
    },
  );

  withStore(
    program
      .command('inspect')
      .summary("show a session's last context traces")
      .description(
        "the session's last turns as the Context Inspector records them: sections, tokens, what was " +
          'excluded and why, sources (metadata only, never content)',
      )
      .argument('<session>', 'session id')
      .option('--tenant <tenant>', 'tenant', 'default')
      .option('--user <id>', 'user id of the session')
      .option('--namespace <namespace>', 'namespace of the session')
      .option('--last <turns>', 'how many turns', '3')
      .option('--json', 'print the traces as JSON'),
  ).action(
    async (
      session: string,
      flags: { tenant: string; user?: string; namespace?: string; last: string; json?: boolean; db?: string },
    ) => {
      setExitCode(await runInspect(session, flags, io));
    },
  );

  withStore(
    program
      .command('doctor')
      .summary('check store, embedder, LLM; show settings')
      .description(
        'versions, the settings in force (secrets redacted), and whether the store, the embedder and the LLM answer',
      )
      .option('--json', 'print JSON'),
  ).action(async (flags: { json?: boolean; db?: string; config?: string }) => {
    setExitCode(await runDoctor(flags, io));
  });

  return program;
}
