import { describe, expect, it } from 'vitest';
import { newId } from './new-id.js';

describe('newId', () => {
  it('gives ULIDs that sort in creation order, within one millisecond too', () => {
    const now = Date.now();
    const ids = Array.from({ length: 1_000 }, () => newId(now));
    for (const id of ids) expect(id).toMatch(/^[0-9A-HJKMNP-TV-Z]{26}$/);
    expect([...ids].sort()).toEqual(ids);
    expect(new Set(ids).size).toBe(ids.length);
  });
});
