import { describe, expect, it } from 'vitest';
import type { Trace, TraceRecord } from './api-types.js';
import { budgetParts, compareTraces } from './trace-math.js';

const trace = (sections: Trace['sections'], used: number): Trace => ({
  model: 'gpt-4o',
  encoding: 'o200k_base',
  budget: { max_working_memory_tokens: 1_000, reserved_output_tokens: 100, available: 900, used },
  sections,
  history: { strategy: 'token-budget', candidates: 0, kept: 0, older_not_read: 0, recounted: 0 },
  sources: [],
  degraded: false,
  duration_ms: 1,
});
const record = (id: string, value: Trace): TraceRecord => ({
  id,
  session_id: 's',
  namespace: null,
  user_id: null,
  agent_id: 'default',
  created_at: '2026-11-25T00:00:00Z',
  trace: value,
});
const item = (id: string, included: boolean) => ({
  id,
  kind: 'memory' as const,
  included,
  reason: 'ok',
  tokens: 5,
});

describe('budgetParts', () => {
  it('splits the whole window: sections, reserved output and unused add up to it', () => {
    const parts = budgetParts(
      trace(
        [
          { name: 'system', tokens: 20, cap: null, items: [] },
          { name: 'knowledge', tokens: 50, cap: 270, items: [] },
          { name: 'current', tokens: 10, cap: null, items: [] },
        ],
        83,
      ),
    );
    expect(parts.reduce((sum, part) => sum + part.tokens, 0)).toBe(1_000);
    expect(parts.find((part) => part.name === 'system')?.tokens).toBe(23);
    expect(parts.find((part) => part.name === 'unused')?.tokens).toBe(1_000 - 100 - 83);
    expect(parts.reduce((sum, part) => sum + part.share, 0)).toBeCloseTo(1);
  });
});

describe('compareTraces', () => {
  it('lists what entered and left, by section and id, ignoring excluded candidates', () => {
    const earlier = record(
      'a',
      trace([{ name: 'knowledge', tokens: 10, cap: null, items: [item('m1', true), item('m2', true)] }], 10),
    );
    const later = record(
      'b',
      trace(
        [
          {
            name: 'knowledge',
            tokens: 10,
            cap: null,
            items: [item('m2', true), item('m3', true), item('m1', false)],
          },
        ],
        10,
      ),
    );
    const { entered, left, kept } = compareTraces(earlier, later);
    expect(entered.map((entry) => entry.id)).toEqual(['m3']);
    expect(left.map((entry) => entry.id)).toEqual(['m1']);
    expect(kept).toBe(1);
  });
});
