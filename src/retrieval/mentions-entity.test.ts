import { describe, expect, it } from 'vitest';
import { mentionsEntity } from './mentions-entity.js';

describe('mentionsEntity', () => {
  it('matches whole entity names in the query, possessives and case aside', () => {
    const named = mentionsEntity("What did Caroline's friend see in New York?");
    expect(named(['Caroline'])).toBe(true);
    expect(named(['Melanie', 'new york'])).toBe(true);
    expect(named(['Carol'])).toBe(false);
    expect(named(['York City'])).toBe(false);
    expect(named([])).toBe(false);
    expect(named(['!!'])).toBe(false);
  });
});
