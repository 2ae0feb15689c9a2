import { describe, expect, it } from 'vitest';
import { ftsMatchExpression, memoryFilterSql } from './memory-filter-sql.js';

describe('memory filter SQL', () => {
  it('quotes every query word as an FTS5 string and drops stopwords', () => {
    expect(ftsMatchExpression('The cat AND the "dog" NEAR(x, 2) col:term*')).toBe(
      '"cat" OR "dog" OR "near" OR "x" OR "2" OR "col" OR "term"',
    );
    expect(ftsMatchExpression("O'Brien's café")).toBe('"o\'brien" OR "s" OR "cafe"');
    expect(ftsMatchExpression('cat cat Cat')).toBe('"cat"');
    expect(ftsMatchExpression('the and of "" * - : ^')).toBeNull();
    expect(ftsMatchExpression('')).toBeNull();
  });

  it('binds every value, so the SQL text depends only on which conditions are present', () => {
    const hostile = "x' OR '1'='1";
    const first = memoryFilterSql('t', { userId: { eq: hostile, any: [hostile] }, topics: { all: ['a'] } });
    const second = memoryFilterSql('other', { userId: { eq: 'u', any: ['a', 'b'] }, topics: { all: [] } });
    expect(first.where).toBe(second.where);
    expect(first.where).not.toContain(hostile);
    expect(first.parameters).toMatchObject({ tenant_id: 't', f0: hostile, f1: JSON.stringify([hostile]) });
    expect(memoryFilterSql('t', { includeSuperseded: true }).where).toBe('m.tenant_id = @tenant_id');
  });
});
