import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { expect } from 'vitest';
import type { ToolErrorBody } from '../../src/mcp/tool-result.js';

/** The CLI as the tests run it (no build needed). */
export const cliArguments = ['--import', 'tsx', 'src/cli/main.ts'];

/** An MCP client on `engram mcp` over stdio, spawned with these flags and environment. */
export async function connectStdio(flags: string[], environment: Record<string, string> = {}) {
  const transport = new StdioClientTransport({
    command: process.execPath,
    args: [...cliArguments, 'mcp', ...flags],
    env: { ...(process.env as Record<string, string>), ...environment },
    stderr: 'pipe',
  });
  const client = new Client({ name: 'engram-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** An MCP client on the HTTP server's `/mcp`. */
export async function connectHttp(baseUrl: string, headers: Record<string, string> = {}) {
  const transport = new StreamableHTTPClientTransport(new URL('/mcp', baseUrl), { requestInit: { headers } });
  const client = new Client({ name: 'engram-test', version: '1.0.0' });
  await client.connect(transport);
  return client;
}

/** Calls a tool that must succeed; resolves its structured content. */
export async function callOk<T = Record<string, unknown>>(
  client: Client,
  name: string,
  args: Record<string, unknown> = {},
): Promise<T> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  if (result.isError) throw new Error(`${name} failed: ${JSON.stringify(result.content)}`);
  const [first] = result.content;
  // The text content and the structured content carry the same JSON.
  expect(first?.type === 'text' ? JSON.parse(first.text) : undefined).toEqual(result.structuredContent);
  return result.structuredContent as T;
}

/** Calls a tool that must fail with an engram error; resolves that error. */
export async function callFailing(
  client: Client,
  name: string,
  args: Record<string, unknown>,
): Promise<ToolErrorBody['error']> {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  return (result.structuredContent as unknown as ToolErrorBody).error;
}

/** Calls a tool with arguments its schema rejects; resolves the SDK's error text. */
export async function callRejected(client: Client, name: string, args: Record<string, unknown>) {
  const result = (await client.callTool({ name, arguments: args })) as CallToolResult;
  expect(result.isError).toBe(true);
  const [first] = result.content;
  return first?.type === 'text' ? first.text : '';
}
