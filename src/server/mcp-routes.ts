import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { Engram } from '../engram.js';
import { createMcpServer } from '../mcp/create-mcp-server.js';
import { authorize, tenantOf } from './auth/principal.js';
import { exactHostValues } from './host-guard.js';

/** What the OpenAPI document says about the body: one JSON-RPC message or a batch. */
const jsonRpcBodySchema = z.union([
  z.looseObject({ jsonrpc: z.literal('2.0'), method: z.string().optional(), id: z.unknown().optional() }),
  z.array(z.looseObject({ jsonrpc: z.literal('2.0') })),
]);

const parseError = { jsonrpc: '2.0', error: { code: -32700, message: 'Parse error' }, id: null };

/**
 * MCP over streamable HTTP at `POST /mcp`, stateless: every request gets a fresh MCP server bound
 * to the caller's tenant and role, answers with JSON (no SSE stream, no `Mcp-Session-Id`), and is
 * forgotten. Authentication is the REST hook's; the route needs `read`, and each tool checks
 * what the operation table says (docs/mcp.md). With `allowedHosts` (authentication off), the SDK's
 * own DNS-rebinding check runs too, behind the server's host guard (host-guard.ts).
 */
export function registerMcpRoutes(
  app: FastifyInstance,
  engram: Engram,
  allowedHosts?: readonly string[],
): void {
  app.post(
    '/mcp',
    {
      config: {
        permission: 'read',
        errorShape: 'engram',
        docs: {
          summary: 'MCP (streamable HTTP, stateless)',
          description:
            'Model Context Protocol endpoint with the memory tools of docs/mcp.md, scoped to the caller’s tenant.',
          tags: ['mcp'],
          body: jsonRpcBodySchema,
          extension: true,
        },
      },
    },
    async (request, reply) => {
      let body: unknown;
      try {
        body = JSON.parse(typeof request.body === 'string' ? request.body : '');
      } catch {
        return reply.status(400).send(parseError);
      }
      const server = createMcpServer({
        engram,
        tenantId: tenantOf(request),
        authorize: (permission) => authorize(request, permission),
        onUnexpected: (error) => request.log.error({ err: error }, 'MCP tool failed'),
      });
      const exact = allowedHosts ? exactHostValues(allowedHosts, request.socket.localPort ?? 0) : undefined;
      const transport = new StreamableHTTPServerTransport({
        sessionIdGenerator: undefined,
        enableJsonResponse: true,
        ...(exact
          ? { enableDnsRebindingProtection: true, allowedHosts: exact.hosts, allowedOrigins: exact.origins }
          : {}),
      });
      reply.hijack();
      reply.raw.setHeader('x-request-id', request.id);
      reply.raw.on('close', () => {
        transport.close().catch(() => {});
        server.close().catch(() => {});
      });
      try {
        await server.connect(transport);
        await transport.handleRequest(request.raw, reply.raw, body);
      } catch (error) {
        request.log.error({ err: error }, 'MCP request failed');
        if (!reply.raw.headersSent) {
          reply.raw.writeHead(500, { 'content-type': 'application/json' });
          reply.raw.end(
            JSON.stringify({ jsonrpc: '2.0', error: { code: -32603, message: 'Internal error' }, id: null }),
          );
        }
      }
    },
  );
}
