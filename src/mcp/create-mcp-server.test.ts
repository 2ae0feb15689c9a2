import { describe, expect, it, vi } from 'vitest';

// Counts the validators made: the HTTP transport makes a server per request.
const made = vi.hoisted(() => ({ validators: 0 }));
vi.mock('@modelcontextprotocol/sdk/validation/ajv', async (importOriginal) => {
  const original = await importOriginal<typeof import('@modelcontextprotocol/sdk/validation/ajv')>();
  class CountedValidator extends original.AjvJsonSchemaValidator {
    constructor(...args: ConstructorParameters<typeof original.AjvJsonSchemaValidator>) {
      super(...args);
      made.validators++;
    }
  }
  return { ...original, AjvJsonSchemaValidator: CountedValidator };
});

const { createMcpServer } = await import('./create-mcp-server.js');

describe('createMcpServer', () => {
  it('shares one JSON Schema validator between servers instead of compiling one per request', () => {
    const context = {} as Parameters<typeof createMcpServer>[0];
    for (let request = 0; request < 5; request++) createMcpServer(context);
    expect(made.validators).toBe(1);
  });
});
