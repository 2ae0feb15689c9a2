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

  it('keeps the best `limit` hits, ties by id, asking `accept` only about hits that could be kept', () => {
    const many = new Bm25Index();
    for (let index = 0; index < 50; index++) many.add(`doc-${String(index).padStart(2, '0')}`, 'kayak trip');
    many.add('long', 'kayak, kayak!');
    many.add('other', 'nothing in common');
    const asked: string[] = [];
    const hits = many.search('kayak', 3, (id) => {
      asked.push(id);
      return id !== 'doc-00';
    });
    expect(hits.map((hit) => hit.id)).toEqual(['long', 'doc-01', 'doc-02']);
    expect(hits[0]?.score).toBeGreaterThan(hits[1]?.score ?? 0);
    expect(hits[1]?.score).toBe(hits[2]?.score);
    // Once three ties are kept, a tie with a larger id cannot enter and is never asked about.
    expect(asked.length).toBeLessThan(10);
    expect(many.search('kayak', 0)).toEqual([]);
  });
});
