import { spawn } from 'node:child_process';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { MAX_STDIO_LINE_BYTES } from '../../src/mcp/bounded-lines.js';
import { engram } from '../cli/cli-process.js';
import { useTemporaryDirectories } from '../support/temporary-directories.js';
import { callFailing, callOk, cliArguments, connectStdio } from './mcp-test-client.js';
import { describeMemoryTools } from './tool-scenarios.js';

const temporaryDirectory = useTemporaryDirectories('engram-mcp-stdio-');

describe('engram mcp (stdio)', () => {
  let database = '';
  let client: Client | undefined;
  beforeAll(async () => {
    database = join(temporaryDirectory(), 'engram.db');
    client = await connectStdio(['--db', database]);
  });
  afterAll(async () => {
    await client?.close();
  });

  describeMemoryTools(() => {
    if (!client) throw new Error('not connected');
    return client;
  });

  it('scopes every call to --tenant (or ENGRAM_TENANT) on the same database', async () => {
    const acme = await connectStdio(['--db', database, '--tenant', 'acme']);
    const globex = await connectStdio([], { ENGRAM_DATABASE_PATH: database, ENGRAM_TENANT: 'globex' });
    try {
      const { memory_ids } = await callOk<{ memory_ids: string[] }>(acme, 'create_long_term_memories', {
        memories: [{ text: 'Acme ships anvils', user_id: 'wile' }],
      });
      const id = memory_ids[0] as string;
      expect(await callOk(acme, 'get_long_term_memory', { memory_id: id })).toMatchObject({ id });
      expect((await callFailing(globex, 'get_long_term_memory', { memory_id: id })).code).toBe('not_found');
      const { total } = await callOk<{ total: number }>(globex, 'search_long_term_memory', {
        text: 'anvils',
      });
      expect(total).toBe(0);
    } finally {
      await Promise.all([acme.close(), globex.close()]);
    }
  });

  it('opens the store --store names, never the SQLite file instead', async () => {
    // A PostgreSQL server that refuses: the command fails naming it (password hidden).
    const run = await engram([
      'mcp',
      '--store',
      'postgres://engram:hunter2@127.0.0.1:1/engram',
      '--db',
      join(temporaryDirectory(), 'unused.db'),
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('PostgreSQL store at postgres://engram:***@127.0.0.1:1/engram');
    expect(run.stderr).not.toContain('hunter2');
    expect(run.stdout).toBe('');
  });

  it('writes only protocol messages to stdout, logs to stderr, and exits 0 when stdin closes', async () => {
    const child = spawn(process.execPath, [
      ...cliArguments,
      'mcp',
      '--db',
      join(temporaryDirectory(), 'raw.db'),
    ]);
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    child.stderr.on('data', (chunk) => {
      stderr += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    // Blank lines are no message: nothing is answered.
    child.stdin.write('\n  \r\n');
    // A broken line: answered with a JSON-RPC parse error, one stderr line that names its size and
    // not its text (a user's words), and the session goes on.
    child.stdin.write('{not json, my door code is 4711\n');
    // Valid JSON that is not JSON-RPC: the SDK's error message is pretty-printed JSON over many lines.
    child.stdin.write('{"foo":1}\n');
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_current_datetime', arguments: {} },
    });
    // Params that do not fit the method: -32602 with a short message, not -32603 with a zod dump.
    send({ jsonrpc: '2.0', id: 3, method: 'tools/call', params: {} });
    await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 20_000 }).toBe(5);
    child.stdin.end();
    expect(await exited).toBe(0);
    const lines = stdout.split('\n').filter(Boolean);
    const messages = lines.map(
      (line) =>
        JSON.parse(line) as { jsonrpc: string; id: number | null; error?: { code: number; message: string } },
    );
    expect(messages.every((message) => message.jsonrpc === '2.0')).toBe(true);
    expect(messages.slice(0, 2).map((message) => message.id)).toEqual([null, null]);
    // The refusal is answered at once, the others when their (asynchronous) handlers finish.
    expect(messages.slice(2).map((message) => message.id)).toEqual(expect.arrayContaining([1, 2, 3]));
    expect(messages.slice(0, 2).map((message) => message.error?.code)).toEqual([-32700, -32600]);
    const invalid = messages.find((message) => message.id === 3);
    expect(invalid?.error).toMatchObject({ code: -32602, message: expect.stringMatching(/^Invalid params/) });
    expect(invalid?.error?.message.length).toBeLessThan(300);
    expect(stderr).toMatch(/serving tenant default/);
    expect(stderr).toContain('ignored a stdin line of 31 bytes: not JSON at position 1');
    expect(stderr).toContain('ignored a stdin line of 9 bytes: JSON, but not a JSON-RPC message');
    expect(stderr).not.toMatch(/door code|4711|foo/);
    expect(stderr).not.toMatch(/\n\s+at /);
    // One line per ignored message, whatever the error's message looks like.
    expect(stderr.split('\n').filter((line) => line !== '' && !line.startsWith('engram mcp: '))).toEqual([]);
  });

  it('refuses only a stdin line over MAX_STDIO_LINE_BYTES: the session goes on', async () => {
    const child = spawn(process.execPath, [
      ...cliArguments,
      'mcp',
      '--db',
      join(temporaryDirectory(), 'big.db'),
    ]);
    let stdout = '';
    child.stdout.on('data', (chunk) => {
      stdout += chunk;
    });
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    // Ids last, as the TypeScript SDK writes them. 12 MB passes the SDK's own 10 MiB buffer limit,
    // which closed the transport: a 5,000,000-character document in a 3-byte script is 15 MB.
    const ping = (id: number, padBytes: number) =>
      child.stdin.write(
        `${JSON.stringify({ method: 'ping', params: { pad: '日'.repeat(padBytes / 3) }, jsonrpc: '2.0', id })}\n`,
      );
    ping(1, 12_000_000);
    ping(2, MAX_STDIO_LINE_BYTES + 3);
    ping(3, 0);
    await expect.poll(() => stdout.split('\n').filter(Boolean).length, { timeout: 30_000 }).toBe(3);
    child.stdin.end();
    expect(await exited).toBe(0);
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id: number; result?: unknown; error?: { code: number } });
    expect(answers).toEqual([
      { jsonrpc: '2.0', id: 1, result: {} },
      expect.objectContaining({ id: 2, error: expect.objectContaining({ code: -32600 }) }),
      { jsonrpc: '2.0', id: 3, result: {} },
    ]);
  });

  it('refuses an empty tenant', async () => {
    await expect(connectStdio(['--db', database, '--tenant', ' '])).rejects.toThrow();
  });
});
