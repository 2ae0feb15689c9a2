import { describe, expect, it } from 'vitest';
import { Bm25Index } from './bm25-index.js';

describe('Bm25Index', () => {
  const index = new Bm25Index();
  index.add('a', 'I went to a LGBTQ support group yesterday');
  index.add('b', 'The kids painted a sunrise at the lake');
  index.add('c', 'Support for the new policy is growing');
  index.add('d', 'Groups of kids went hiking');

  it('ranks the document sharing rare terms first', () => {
    expect(index.search('When did she go to the LGBTQ support group?', 3).map((hit) => hit.id)).toEqual([
      'a',
      'c',
      'd',
    ]);
  });

  it('filters before ranking and forgets removed or replaced documents', () => {
    expect(index.search('support', 10, (id) => id !== 'a').map((hit) => hit.id)).toEqual(['c']);
    index.remove('c');
    index.add('b', 'a support meeting');
    expect(
      index
        .search('support', 10)
        .map((hit) => hit.id)
        .sort(),
    ).toEqual(['a', 'b']);
    expect(index.search('sunrise', 10)).toEqual([]);
    expect(index.size).toBe(3);
  });
});
