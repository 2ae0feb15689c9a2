import { describe, expect, it } from 'vitest';
import { EngramError } from '../core/errors.js';
import { loggedError } from './logged-error.js';

describe('loggedError', () => {
  it('keeps the kind, code, message, numbers and causes, never the texts of details', () => {
    const cause = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const error = new EngramError('llm_unavailable', 'unavailable', 'request failed', {
      details: { status: 503, retryable: true, body: 'echo: ZEBRA-SECRET-4711', nested: { text: 'ZEBRA' } },
      cause,
    });
    const logged = loggedError(error);
    expect(logged).toMatchObject({
      type: 'EngramError',
      message: 'request failed',
      code: 'llm_unavailable',
      category: 'unavailable',
      details: { status: 503, retryable: true },
      cause: { type: 'Error', message: 'connect ECONNREFUSED', code: 'ECONNREFUSED' },
    });
    expect(logged.stack).toMatch(/^EngramError: request failed\n {4}at /);
    expect(JSON.stringify(logged)).not.toContain('ZEBRA');
  });

  it('bounds a long message, in the stack too, and describes a thrown non-error by its type', () => {
    const logged = loggedError(new Error('x'.repeat(50_000)));
    expect(logged.message.length).toBeLessThan(1_100);
    expect(logged.stack?.length).toBeLessThan(5_000);
    expect(loggedError('plain text')).toEqual({ type: 'string', message: 'plain text' });
  });
});
