import { describe, expect, it } from 'vitest';
import { invalidParamsAnswer } from './invalid-params-answer.js';

describe('invalidParamsAnswer', () => {
  it('answers -32602 naming the first issue, never quoting the value', () => {
    const answer = invalidParamsAnswer({
      jsonrpc: '2.0',
      id: 4,
      method: 'tools/call',
      params: { name: { secret: 'x'.repeat(10_000) } },
    });
    expect(answer).toMatchObject({ jsonrpc: '2.0', id: 4, error: { code: -32602 } });
    expect(answer?.error.message).toMatch(/^Invalid params for tools\/call: params\.name: /);
    expect(answer?.error.message).not.toContain('xxx');
    expect(invalidParamsAnswer({ jsonrpc: '2.0', id: 5, method: 'initialize', params: {} })?.error.code).toBe(
      -32602,
    );
  });

  it('passes well-formed requests, notifications and methods engram does not serve', () => {
    const call = {
      jsonrpc: '2.0' as const,
      id: 1,
      method: 'tools/call',
      params: { name: 'a', arguments: {} },
    };
    expect(invalidParamsAnswer(call)).toBeUndefined();
    expect(invalidParamsAnswer({ jsonrpc: '2.0', id: 2, method: 'ping' })).toBeUndefined();
    expect(
      invalidParamsAnswer({ jsonrpc: '2.0', id: 3, method: 'resources/list', params: [] as never }),
    ).toBeUndefined();
    expect(invalidParamsAnswer({ jsonrpc: '2.0', method: 'notifications/initialized' })).toBeUndefined();
    expect(invalidParamsAnswer({ jsonrpc: '2.0', id: 4, result: {} })).toBeUndefined();
  });
});
