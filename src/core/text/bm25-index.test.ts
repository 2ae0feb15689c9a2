import fc from 'fast-check';
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

describe('Bm25Index pruning', () => {
  // Skewed word frequencies, as in real text: common words have long lists and low weights, which
  // is where pruning skips postings (a uniform vocabulary would rarely prune at all).
  const vocabulary = ['kayak', 'lake', 'trip', 'sun', 'paint', 'group', 'support', 'art', 'dog', 'rare'];
  const word = fc
    .integer({ min: 0, max: 2 ** vocabulary.length - 1 })
    .map((bits) => vocabulary[Math.max(0, Math.floor(Math.log2(bits + 1)))] as string);
  const text = fc.array(word, { minLength: 0, maxLength: 12 }).map((words) => words.join(' '));
  const corpus = fc.array(fc.tuple(fc.integer({ min: 0, max: 300 }), text), { maxLength: 400 });

  it('returns exactly the exhaustive top-k, walked or summed, with and without a filter, after removals', () => {
    fc.assert(
      fc.property(
        corpus,
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 40 }),
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 5 }),
        (documents, removed, queryWords, limit, modulus) => {
          const index = new Bm25Index();
          for (const [key, body] of documents) index.add(`d${key}`, body);
          for (const key of removed) index.remove(`d${key}`);
          const query = queryWords.join(' ');
          const accept = (id: string) => Number(id.slice(1)) % modulus !== 0;
          const all = index.searchExhaustive(query, limit);
          const accepted = index.searchExhaustive(query, limit, accept);
          // As chosen, and each way forced: MaxScore's walk and the per-slot sums.
          for (const plan of [undefined, 'walk', 'sum'] as const) {
            expect(index.search(query, limit, undefined, { plan })).toEqual(all);
            expect(index.search(query, limit, accept, { plan })).toEqual(accepted);
            // The filter's answers kept under its key serve the next search the same.
            const filterKey = `modulus ${modulus}`;
            expect(index.search(query, limit, accept, { plan, filterKey })).toEqual(accepted);
            expect(index.search(query, limit, accept, { plan, filterKey })).toEqual(accepted);
          }
        },
      ),
      { numRuns: 300 },
    );
  });

  it('scores only the candidates it is given (a superset of the accepted ids) with the same result', () => {
    fc.assert(
      fc.property(
        corpus,
        fc.array(fc.integer({ min: 0, max: 300 }), { maxLength: 40 }),
        fc.array(word, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 2, max: 40 }),
        (documents, removed, queryWords, limit, modulus) => {
          const index = new Bm25Index();
          for (const [key, body] of documents) index.add(`d${key}`, body);
          for (const key of removed) index.remove(`d${key}`);
          const query = queryWords.join(' ');
          const accept = (id: string) => Number(id.slice(1)) % modulus === 0;
          // A superset of the accepted ids, with repeats and absent ids, as partitions may give.
          const ids = Array.from({ length: 302 }, (_, key) => `d${key}`).filter(
            (id) => accept(id) || Number(id.slice(1)) % 7 === 0,
          );
          const candidates = { size: 0, ids: () => [...ids, ...ids] };
          expect(index.search(query, limit, accept, { candidates })).toEqual(
            index.searchExhaustive(query, limit, accept),
          );
        },
      ),
      { numRuns: 300 },
    );
  });

  it('walks the postings when scoring the candidates would cost more (nearly every document)', () => {
    const index = new Bm25Index();
    for (let key = 0; key < 2_000; key++)
      index.add(`d${key}`, `user mentioned ${key % 50 === 0 ? 'kayak' : 'lake'}`);
    const asked = { many: 0, few: 0 };
    const all = Array.from({ length: 1_990 }, (_, key) => `d${key}`);
    const few = all.filter((id) => Number(id.slice(1)) % 100 === 0);
    const many = {
      size: all.length,
      ids: () => {
        asked.many++;
        return all;
      },
    };
    const some = {
      size: few.length,
      ids: () => {
        asked.few++;
        return few;
      },
    };
    // 2,000 postings of "user" + 40 of "kayak": scoring 1,990 candidates × (2 terms + 1) costs more.
    const accept = (id: string) => Number(id.slice(1)) < 1_990;
    expect(index.search('user kayak', 10, accept, { candidates: many })).toEqual(
      index.searchExhaustive('user kayak', 10, accept),
    );
    expect(asked.many).toBe(0);
    const acceptFew = (id: string) => Number(id.slice(1)) % 100 === 0;
    expect(index.search('user kayak', 10, acceptFew, { candidates: some })).toEqual(
      index.searchExhaustive('user kayak', 10, acceptFew),
    );
    expect(asked.few).toBe(1);
  });

  it('keeps the slots of a candidate source until the index changes', () => {
    const index = new Bm25Index();
    for (let key = 0; key < 1_000; key++)
      index.add(`d${key}`, `user mentioned ${key % 7 === 0 ? 'kayak' : 'lake'}`);
    const source = new Set(Array.from({ length: 20 }, (_, key) => `d${key * 50}`));
    let listed = 0;
    const candidates = () => ({
      size: source.size,
      source,
      ids: () => {
        listed++;
        return source;
      },
    });
    const accept = (id: string) => source.has(id);
    const search = () => index.search('kayak', 5, accept, { candidates: candidates() });
    const first = search();
    expect(first).toEqual(index.searchExhaustive('kayak', 5, accept));
    expect(search()).toEqual(first);
    expect(listed).toBe(1);
    // A new member (added to the index and the source together) is found: the slots are redone.
    index.add('new', 'kayak kayak');
    source.add('new');
    expect(search()[0]?.id).toBe('new');
    expect(listed).toBe(2);
    index.remove('new');
    source.delete('new');
    expect(search()).toEqual(first);
    expect(listed).toBe(3);
  });

  it('agrees with a plain BM25 written out in full', () => {
    const index = new Bm25Index();
    const texts = ['kayak lake', 'kayak kayak trip', 'lake sun paint art', 'dog'];
    for (const [key, body] of texts.entries()) index.add(`d${key}`, body);
    const lengths = [2, 3, 4, 1];
    const average = 10 / 4;
    const part = (frequency: number, length: number, containing: number) =>
      (Math.log(1 + (4 - containing + 0.5) / (containing + 0.5)) * frequency * 2.2) /
      (frequency + 1.2 * (0.25 + (0.75 * length) / average));
    expect(index.search('kayak lake', 10)).toEqual([
      { id: 'd0', score: part(1, lengths[0] ?? 0, 2) + part(1, lengths[0] ?? 0, 2) },
      { id: 'd1', score: part(2, lengths[1] ?? 0, 2) },
      { id: 'd2', score: part(1, lengths[2] ?? 0, 2) },
    ]);
  });
});

describe('Bm25Index filter answers kept by key', () => {
  it('asks the filter once per document, again after the document changed or was replaced', () => {
    const index = new Bm25Index<{ open: boolean }>();
    const items = { a: { open: true }, b: { open: true } };
    index.add('a', 'kayak lake', items.a);
    index.add('b', 'kayak trip', items.b);
    let asked = 0;
    const accept = (_id: string, item: { open: boolean }) => {
      asked++;
      return item.open;
    };
    const search = () => index.search('kayak', 10, accept, { filterKey: 'open' }).map((hit) => hit.id);
    expect(search().sort()).toEqual(['a', 'b']);
    expect(asked).toBe(2);
    expect(search().sort()).toEqual(['a', 'b']);
    expect(asked).toBe(2);
    // Changed in place: kept answers hold until the index is told.
    items.a.open = false;
    expect(search().sort()).toEqual(['a', 'b']);
    index.changed('a');
    expect(search()).toEqual(['b']);
    expect(asked).toBe(3);
    // A replaced document is a new slot, asked afresh; without a key nothing is kept.
    index.add('b', 'kayak trip again', { open: false });
    expect(search()).toEqual([]);
    expect(index.search('kayak', 10, accept).length).toBe(0);
    expect(asked).toBe(6);
  });
});
