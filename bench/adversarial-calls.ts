/**
 * How bench/adversarial.ts and its inputs reach the server under test: its address and process,
 * and requests that report their status.
 */

import type { ChildProcess } from 'node:child_process';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';

/** The server under test, as the inputs reach it. */
export interface Context {
  base: string;
  child: ChildProcess;
  /** The MCP client of `mcp-long-search`, connected in its setup. */
  mcp?: Client;
}

/**
 * The status of a request that the server may refuse and close before the body is sent whole:
 * `closed` when the upload broke off first (EPIPE, ECONNRESET), which is how an early refusal
 * sometimes reaches a client.
 */
export async function refusedStatus(send: () => Promise<{ status: number }>): Promise<string> {
  try {
    return String((await send()).status);
  } catch (error) {
    const code = (error as { cause?: { code?: string } }).cause?.code;
    if (code === 'EPIPE' || code === 'ECONNRESET') return `closed (${code})`;
    throw error;
  }
}

/** One request to the server: its status and its answer's text. */
export async function call(
  context: Context,
  method: string,
  path: string,
  body?: string | Uint8Array,
  type = 'application/json',
) {
  const response = await fetch(`${context.base}${path}`, {
    method,
    ...(body === undefined ? {} : { body, headers: { 'content-type': type } }),
  });
  const text = await response.text();
  return { status: response.status, text };
}
