import { describe, expect, it } from 'vitest';
import type { MemoryRecord } from '../../core/schemas/memory-record.js';
import { selectForgotten } from './forget-policy.js';
import { forgetPolicySchema } from './long-term-memory-schemas.js';

const now = new Date('2025-06-01T00:00:00Z');
const daysAgo = (days: number) => new Date(now.getTime() - days * 86_400_000).toISOString();

function memory(id: string, created: number, accessed: number, extra: Partial<MemoryRecord> = {}) {
  return {
    id,
    createdAt: daysAgo(created),
    lastAccessed: daysAgo(accessed),
    pinned: false,
    memoryType: 'semantic',
    ...extra,
  } as MemoryRecord;
}
const policy = (input: Record<string, unknown>) => forgetPolicySchema.parse(input);

describe('selectForgotten (AMS forget policy)', () => {
  const candidates = [
    memory('young', 1, 1),
    memory('old-active', 40, 1),
    memory('old-idle', 40, 20),
    memory('ancient', 400, 0),
    memory('pinned', 400, 400, { pinned: true }),
    memory('episode', 400, 400, { memoryType: 'episodic' }),
  ];

  it('with both limits: hard age, or age and inactivity together', () => {
    const selected = selectForgotten(
      candidates,
      policy({ max_age_days: 30, max_inactive_days: 10 }),
      new Set(),
      now,
    );
    expect(selected).toEqual(['old-idle', 'ancient', 'episode']);
  });

  it('with one limit: that limit alone; pins and the allowlist protect', () => {
    expect(selectForgotten(candidates, policy({ max_age_days: 30 }), new Set(['ancient']), now)).toEqual([
      'old-active',
      'old-idle',
      'episode',
    ]);
    expect(
      selectForgotten(
        candidates,
        policy({ max_inactive_days: 10, memory_type_allowlist: ['semantic'] }),
        new Set(),
        now,
      ),
    ).toEqual(['old-idle']);
  });

  it('keeps only the budget most recent of the eligible rest', () => {
    expect(selectForgotten(candidates, policy({ budget: 2 }), new Set(), now)).toEqual([
      'ancient',
      'old-idle',
      'episode',
    ]);
    expect(selectForgotten(candidates, policy({ budget: 0 }), new Set(), now)).toHaveLength(5);
    expect(selectForgotten(candidates, policy({}), new Set(), now)).toEqual([]);
  });
});
