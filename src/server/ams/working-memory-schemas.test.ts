import { describe, expect, it } from 'vitest';
import { MAX_SESSION_MEMORIES, MAX_SESSION_MESSAGES } from '../../core/schemas/session.js';
import { RequestValidationError } from '../request-validation-error.js';
import { validateRequest } from '../validate-request.js';
import { amsWorkingMemoryBodySchema } from './working-memory-schemas.js';

/** `count` items whose every field read is counted: a parse that reaches any item reads one. */
function spiedItems(count: number) {
  const reads = { count: 0 };
  const item = new Proxy(
    {},
    {
      get: () => {
        reads.count++;
        return 'x';
      },
      has: () => {
        reads.count++;
        return true;
      },
    },
  );
  return { items: Array.from({ length: count }, () => item), reads };
}

describe('working-memory PUT body limits', () => {
  it.each([
    ['messages', MAX_SESSION_MESSAGES],
    ['memories', MAX_SESSION_MEMORIES],
  ])('refuses more than the %s limit without parsing any item', (field, limit) => {
    const { items, reads } = spiedItems(limit + 1);
    expect(() => validateRequest(amsWorkingMemoryBodySchema, { [field]: items }, 'body')).toThrowError(
      RequestValidationError,
    );
    expect(reads.count).toBe(0);
  });

  it('does parse the items of a batch within the limit (the spy sees them)', () => {
    const { items, reads } = spiedItems(2);
    expect(() => validateRequest(amsWorkingMemoryBodySchema, { messages: items }, 'body')).toThrowError();
    expect(reads.count).toBeGreaterThan(0);
  });
});
