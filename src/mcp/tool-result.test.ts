import { describe, expect, it } from 'vitest';
import { EngramError, ValidationError } from '../core/errors.js';
import { toolError } from './tool-result.js';

describe('toolError', () => {
  it('keeps code and category but never echoes a huge value in the message or details', () => {
    const huge = 'x'.repeat(5_000_000);
    const error = new EngramError('validation_failed', 'validation', `Bad value ${huge}`, {
      details: { input: huge, items: Array.from({ length: 100_000 }, (_, index) => index) },
    });
    const result = toolError(error, () => undefined);
    const text = (result.content[0] as { text: string }).text;
    expect(result.isError).toBe(true);
    expect(text.length).toBeLessThan(5_000);
    expect(JSON.parse(text).error).toMatchObject({ code: 'validation_failed', category: 'validation' });
    expect(text).toContain('(5000000 characters)');
  });

  it('passes small details through unchanged', () => {
    const error = new ValidationError('Invalid document: content: Too big', [
      { path: ['content'], message: 'Too big' },
    ]);
    const body = toolError(error, () => undefined).structuredContent as { error: { details: unknown } };
    expect(body.error.details).toEqual({ issues: [{ path: ['content'], message: 'Too big' }] });
  });
});
