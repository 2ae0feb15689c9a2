import { describe, expect, it } from 'vitest';
import { retrievalLimit } from './memory-source.js';

describe('retrievalLimit', () => {
  it('asks knowledge for semanticTopK, episodes for episodicTopK and procedures for one', () => {
    const memory = { semanticTopK: 7, episodicTopK: 2 };
    expect(retrievalLimit('knowledge', memory)).toBe(7);
    expect(retrievalLimit('episodes', memory)).toBe(2);
    expect(retrievalLimit('procedure', memory)).toBe(1);
  });
});
