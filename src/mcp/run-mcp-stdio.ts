import type { Readable, Writable } from 'node:stream';
import { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import { pino } from 'pino';
import { z } from 'zod';
import { parseWith } from '../core/errors.js';
import { createEngram } from '../engram.js';
import { embedderOptionOf } from '../server/embedder-option.js';
import { installFatalHandlers } from '../server/fatal-handlers.js';
import { openConfiguredStore } from '../server/open-configured-store.js';
import { resolveServerConfig } from '../server/server-config.js';
import { writePathOptionsOf } from '../server/write-path-options.js';
import { boundedLines, MAX_STDIO_LINE_BYTES } from './bounded-lines.js';
import { createMcpServer } from './create-mcp-server.js';

/** Flags of `engram mcp`. */
export interface McpFlags {
  db?: string | undefined;
  /** A PostgreSQL URL (`--store`), else the SQLite file. */
  store?: string | undefined;
  config?: string | undefined;
  tenant?: string | undefined;
}

const tenantSchema = z.string().trim().min(1, 'tenant cannot be empty').max(256);

/**
 * `engram mcp`: the MCP tools over stdio for one tenant (`--tenant`, `ENGRAM_TENANT`, default
 * `default`) on the SQLite file `engram serve` would use (`--db`, `ENGRAM_DATABASE_PATH`, the
 * config file). Stdout carries protocol messages only; diagnostics go to stderr. Resolves when the
 * client closes stdin or the process gets SIGTERM/SIGINT/SIGHUP, after closing the database. Signals,
 * uncaught exceptions and unhandled rejections are logged as a JSON line on stderr before exit.
 */
export async function runMcpStdio(options: {
  flags: McpFlags;
  environment: Record<string, string | undefined>;
  stdin: Readable;
  stdout: Writable;
  stderr: Writable;
}): Promise<void> {
  const { flags, environment, stderr } = options;
  const config = resolveServerConfig({ db: flags.db, store: flags.store, config: flags.config }, environment);
  const tenantId = parseWith(tenantSchema, flags.tenant ?? environment.ENGRAM_TENANT ?? 'default', 'tenant');
  const report = (what: string) => (error: unknown) =>
    stderr.write(`engram mcp: ${what}: ${error instanceof Error ? (error.stack ?? error.message) : error}\n`);
  const { store, description } = await openConfiguredStore(
    config,
    (message) => stderr.write(`engram mcp: ${message}\n`),
    (error) => {
      stderr.write(`engram mcp: ${error.message}: exiting\n`);
      process.exit(1);
    },
  );
  const engram = await createEngram({
    ...embedderOptionOf(config),
    store,
    ...writePathOptionsOf(config, (message) => stderr.write(`engram mcp: ${message}\n`)),
    onBackgroundError: report('background work failed'),
  });
  const server = createMcpServer({
    engram,
    tenantId,
    authorize: () => {},
    onUnexpected: report('tool failed'),
  });
  const reply = (id: string | number | null, error: { code: number; message: string; data?: unknown }) =>
    options.stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id, error })}\n`);
  // Sizes of the lines passed to the transport and not yet read by it: it reads each as one
  // message or one error, in order, so a refusal can name a line's size without quoting it.
  const pendingLineBytes: number[] = [];
  // The SDK would close the whole session on a line over its buffer limit: only that call fails here.
  const input = options.stdin.pipe(
    boundedLines(
      MAX_STDIO_LINE_BYTES,
      ({ bytes, id }) => {
        stderr.write(`engram mcp: refused a stdin line of ${bytes} bytes (over ${MAX_STDIO_LINE_BYTES})\n`);
        reply(id, {
          code: -32600,
          message: `Request too large: a stdin line is limited to ${MAX_STDIO_LINE_BYTES} bytes`,
          data: { bytes, limit_bytes: MAX_STDIO_LINE_BYTES },
        });
      },
      (bytes) => pendingLineBytes.push(bytes),
    ),
  );
  const transport = new StdioServerTransport(input, options.stdout, {
    maxBufferSize: MAX_STDIO_LINE_BYTES + 1,
  });
  const transportError = report('transport error');
  transport.onerror = (error) => {
    // A line that is not JSON, or not a JSON-RPC message: the client is told (JSON-RPC 2.0 §5.1,
    // id null), and stderr gets one line, not a stack trace.
    const unreadable = error instanceof SyntaxError;
    if (!unreadable && error.name !== 'ZodError') return transportError(error);
    // Neither error's message is logged: JSON.parse's quotes the line, the ZodError's its keys.
    const bytes = pendingLineBytes.shift();
    const size = bytes === undefined ? '' : ` of ${bytes} bytes`;
    const position = unreadable ? /at position (\d+)/.exec(error.message)?.[1] : undefined;
    const reason = unreadable
      ? `not JSON${position === undefined ? '' : ` at position ${position}`}`
      : 'JSON, but not a JSON-RPC message';
    stderr.write(`engram mcp: ignored a stdin line${size}: ${reason}\n`);
    reply(
      null,
      unreadable ? { code: -32700, message: 'Parse error' } : { code: -32600, message: 'Invalid Request' },
    );
  };

  // Signals and crashes leave one JSON line on stderr (stdout is the protocol's).
  const logger = pino({ level: config.logLevel }, stderr);
  let uninstall = () => {};
  const closed = new Promise<void>((resolve) => {
    let closing = false;
    const close = () => {
      if (closing) return;
      closing = true;
      // stdin feeds the line filter, not the transport: stop reading it, or it keeps the process up.
      options.stdin.unpipe(input);
      options.stdin.pause();
      server
        .close()
        .then(() => engram.close())
        .catch(report('shutdown failed'))
        .finally(resolve);
    };
    options.stdin.once('end', close);
    options.stdin.once('close', close);
    uninstall = installFatalHandlers(logger, close);
  });
  await server.connect(transport);
  const deliver = transport.onmessage;
  transport.onmessage = (message: JSONRPCMessage) => {
    pendingLineBytes.shift();
    deliver?.(message);
  };
  stderr.write(`engram mcp: serving tenant ${tenantId} from ${description} on stdio\n`);
  return closed.finally(() => uninstall());
}
