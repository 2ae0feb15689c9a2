import { describe, expect, it } from 'vitest';
import { createMcpServer } from './create-mcp-server.js';

/** The validator the SDK's server holds (a private field: what the SDK would otherwise make). */
const validatorOf = (server: ReturnType<typeof createMcpServer>) =>
  (server.server as unknown as { _jsonSchemaValidator: unknown })._jsonSchemaValidator;

describe('createMcpServer', () => {
  it('shares one JSON Schema validator between servers instead of compiling one per request', () => {
    // The HTTP transport makes a server per request.
    const context = {} as Parameters<typeof createMcpServer>[0];
    const [first, second] = [createMcpServer(context), createMcpServer(context)];
    expect(validatorOf(first)).toBeDefined();
    expect(validatorOf(second)).toBe(validatorOf(first));
  });
});
