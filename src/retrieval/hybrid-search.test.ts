import { beforeAll, describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import type { MemoryRecordInput } from '../core/schemas/memory-record.js';
import { createLongTermMemory } from '../engine/long-term/long-term-memory.js';
import type { EmbeddingProvider } from '../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../stores/memory/memory-record-store.js';
import { hybridSearch, type SearchHit, type SearchRequest } from './hybrid-search.js';
import { MAX_QUERY_CHARS } from './search-query-of.js';

let embedder: EmbeddingProvider;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
});

const tenant = 'acme';
const now = new Date('2024-06-01T00:00:00Z');

/** A store holding `inputs`, and a search over it. */
async function setup(inputs: MemoryRecordInput[]) {
  const store = createMemoryRecordStore();
  await createLongTermMemory(store, embedder).create(tenant, inputs);
  return (request: SearchRequest) => hybridSearch(store, embedder, tenant, request, now);
}

/** Turns of one chat session, a second apart. */
const session = (sessionId: string, start: string, texts: string[]): MemoryRecordInput[] =>
  texts.map((text, index) => ({
    id: `${sessionId}-${index}`,
    text,
    memoryType: 'message',
    sessionId,
    createdAt: new Date(Date.parse(start) + index * 1_000).toISOString(),
  }));

describe('hybridSearch', () => {
  it('searches a text longer than MAX_QUERY_CHARS by its start and end, never refusing it', async () => {
    const store = createMemoryRecordStore();
    await createLongTermMemory(store, embedder).create(tenant, [
      { id: 'seat', text: 'Ada prefers window seats on trains.' },
    ]);
    // What the query's embedding is computed from: the fitted text, not the whole paste.
    const embedded: number[] = [];
    const spy: EmbeddingProvider = {
      ...embedder,
      embed: (texts) => {
        embedded.push(...texts.map((text) => text.length));
        return embedder.embed(texts);
      },
    };
    const pasted = 'Some pasted travel paperwork follows here. '.repeat(1_000);
    for (const text of [`Which seats does Ada prefer? ${pasted}`, `${pasted} Which seats does Ada prefer?`]) {
      expect(text.length).toBeGreaterThan(MAX_QUERY_CHARS);
      const { hits } = await hybridSearch(store, spy, tenant, { text }, now);
      expect(hits.map((hit) => hit.memory.id)).toEqual(['seat']);
    }
    expect(embedded).toHaveLength(2);
    for (const length of embedded) expect(length).toBeLessThanOrEqual(MAX_QUERY_CHARS);
  });

  it('lets an answer that shares no word with the query rank through the turn before it', async () => {
    const search = await setup([
      ...session('s1', '2024-05-01T10:00:00Z', [
        'Ada: How was the picnic by the lake on Sunday?',
        'Bob: We played frisbee until sunset.',
        'Ada: Sounds lovely.',
      ]),
      ...session('s2', '2024-05-02T10:00:00Z', [
        'Carol: Did you send the quarterly tax forms?',
        'Dan: Yes, the accountant has them now.',
        'Carol: Great, the audit can start on Monday morning then.',
      ]),
    ]);
    const withContext = await search({ text: 'What did they do at the picnic?', limit: 6 });
    const ids = withContext.hits.map((hit) => hit.memory.id);
    expect(ids.slice(0, 2)).toEqual(['s1-0', 's1-1']);
    const answer = withContext.hits[1];
    expect(answer?.textRank).toBeNull();
    expect(answer?.contextScore).toBeGreaterThan(0);
    // From the best hit alone: the turn after gets half its own score, the one after that a quarter,
    // both × 1.25 (replyWeight) because it asks a question; being a question, it ranks at 0.8 × its
    // own score (questionWeight).
    const single = await search({ text: 'What did they do at the picnic?', neighbors: { sources: 1 } });
    const context = Object.fromEntries(single.hits.map((hit) => [hit.memory.id, hit.contextScore]));
    const question = single.hits[0];
    expect(question?.memory.id).toBe('s1-0');
    expect(question?.questionFactor).toBe(0.8);
    expect(single.hits.filter((hit) => hit.questionFactor !== 1)).toHaveLength(2);
    const questionOwn = ((question?.score ?? 0) - (question?.contextScore ?? 0)) / 0.8;
    expect(context['s1-1']).toBeCloseTo(0.5 * 1.25 * questionOwn);
    expect(context['s1-2']).toBeCloseTo(0.25 * 1.25 * questionOwn);
    expect(context['s2-0']).toBe(0);
    const plain = await search({
      text: 'What did they do at the picnic?',
      neighbors: { sources: 1, replyWeight: 1 },
      questionWeight: 1,
    });
    const plainContext = Object.fromEntries(plain.hits.map((hit) => [hit.memory.id, hit.contextScore]));
    expect(plain.hits[0]?.score).toBeCloseTo(questionOwn);
    expect(plain.hits.every((hit) => hit.questionFactor === 1)).toBe(true);
    expect(plainContext['s1-1']).toBeCloseTo(0.5 * questionOwn);
    expect(plainContext['s1-0']).toBe(0);

    const without = await search({
      text: 'What did they do at the picnic?',
      limit: 6,
      neighbors: { window: 0 },
    });
    expect(without.hits.every((hit) => hit.contextScore === 0)).toBe(true);
    const answerWithout = without.hits.find((hit) => hit.memory.id === 's1-1');
    expect(answerWithout?.score).toBeLessThan(answer?.score ?? 0);
  });

  it('ranks by the final score even when nothing but the question, entity or when factors reorders', async () => {
    const search = await setup([
      ...session('s1', '2024-05-01T10:00:00Z', [
        'Ada: Did you like the hiking trip to the lake?',
        'Bob: The hiking trip to the lake was great.',
      ]),
      { id: 'ada', text: 'Ada went hiking to the lake again.', entities: ['Ada'] },
      { id: 'bob', text: 'Bob: hiking trip, lake, hiking, lake, trip!', entities: ['Bob'] },
      { id: 'dated', text: 'Two years ago I took a hiking trip to the lake.' },
    ]);
    // No dates, entity boost or neighbours: only the factors (question 0.8, entity 0.6, when 1.5)
    // change the fused order, and the page must still be the best by final score, best first.
    const plain = { entityBoost: 0, neighbors: { window: 0 } };
    for (const text of ['hiking trip to the lake', 'When did Ada go on a hiking trip to the lake?']) {
      const whole = await search({ text, ...plain, limit: 10 });
      const scores = whole.hits.map((hit) => hit.score);
      expect(scores).toEqual([...scores].sort((a, b) => b - a));
      expect(whole.hits.some((hit) => hit.questionFactor !== 1)).toBe(true);
      for (const limit of [1, 2, 3]) {
        const page = await search({ text, ...plain, limit });
        expect(page.hits.map((hit) => hit.memory.id)).toEqual(
          whole.hits.slice(0, limit).map((hit) => hit.memory.id),
        );
      }
    }
  });

  it('fetches a hit’s session neighbours that no ranking found, within the search’s filter', async () => {
    const search = await setup([
      ...session('s1', '2024-05-01T10:00:00Z', [
        'Ada: How was the picnic by the lake on Sunday?',
        'Bob: We played frisbee until sunset.',
        'Ada: Sounds lovely.',
      ]),
      { id: 'note', text: 'Bob likes frisbee.', sessionId: 's1', createdAt: '2024-05-01T10:00:00.500Z' },
    ]);
    // Text mode: BM25 finds only the question; the answer and the closing turn come as neighbours.
    const result = await search({ text: 'picnic', mode: 'text', filter: { memoryType: { eq: 'message' } } });
    expect(result.hits.map((hit) => [hit.memory.id, hit.textRank, hit.contextScore > 0])).toEqual([
      ['s1-0', 1, false],
      ['s1-1', null, true],
      ['s1-2', null, true],
    ]);
    expect(result.total).toBe(3);
    // Without the filter the note sits between the question and the answer, and pushes it a step away.
    const unfiltered = await search({ text: 'picnic', mode: 'text' });
    const context = Object.fromEntries(unfiltered.hits.map((hit) => [hit.memory.id, hit.contextScore]));
    expect(context.note).toBeCloseTo(2 * (context['s1-1'] ?? 0));
    expect(context['s1-2']).toBeUndefined();
  });

  it('boosts memories dated on the day or month the query names, and matches the rest of the text', async () => {
    const search = await setup([
      { id: 'march', text: 'Ada had sushi for dinner with her sister.', eventDate: '2023-03-03T19:00:00Z' },
      { id: 'may', text: 'Ada had dinner at home.', eventDate: '2023-05-03T19:00:00Z' },
      { id: 'undated', text: 'Ada had sushi for dinner.', createdAt: '2023-05-03T20:00:00Z' },
    ]);
    const { hits } = await search({ text: 'What did Ada have for dinner on 3 May, 2023?' });
    // "sushi … with her sister" matches no better than the others, and its date is wrong: last.
    expect(hits.map((hit) => hit.memory.id)[2]).toBe('march');
    expect(Object.fromEntries(hits.map((hit) => [hit.memory.id, hit.dateScore]))).toEqual({
      may: 0.5,
      undated: 0.5,
      march: 0,
    });
    const month = await search({ text: 'dinner with her sister in March 2023', dateBoost: 2 });
    expect(month.hits[0]?.memory.id).toBe('march');
    expect(month.hits[0]?.dateScore).toBe(2);
    const off = await search({ text: 'What did Ada have for dinner on 3 May, 2023?', dateBoost: 0 });
    expect(off.hits.every((hit) => hit.dateScore === 0)).toBe(true);
  });

  it('matches a date the query names against relative dates in a memory, read from its own date', async () => {
    const search = await setup([
      { id: 'told', text: 'Ada: We went camping yesterday!', eventDate: '2023-05-04T10:00:00Z' },
      { id: 'later', text: 'Ada: We went camping two weeks ago.', eventDate: '2023-06-01T10:00:00Z' },
      { id: 'plain', text: 'Ada: We went camping.', eventDate: '2023-05-20T10:00:00Z' },
    ]);
    const { hits } = await search({ text: 'Where did Ada go camping on 3 May, 2023?' });
    expect(Object.fromEntries(hits.map((hit) => [hit.memory.id, hit.dateScore]))).toEqual({
      told: 0.5,
      later: 0,
      plain: 0,
    });
    const month = await search({ text: 'Where did Ada go camping in May 2023?' });
    expect(Object.fromEntries(month.hits.map((hit) => [hit.memory.id, hit.dateScore]))).toEqual({
      told: 0.5,
      later: 0.5,
      plain: 0.5,
    });
  });

  it('boosts memories whose entities the query names', async () => {
    const search = await setup([
      { id: 'ada', text: 'I went hiking in the Alps last summer.', entities: ['Ada'] },
      { id: 'bob', text: 'Ada, I went hiking in the Alps too!', entities: ['Bob'] },
    ]);
    const query = 'Where did Ada go hiking?';
    const plain = await search({ text: query, entityBoost: 0 });
    expect(plain.hits[0]?.memory.id).toBe('bob');
    const boosted = await search({ text: query, entityBoost: 2 });
    expect(boosted.hits.map((hit) => [hit.memory.id, hit.entityScore])).toEqual([
      ['ada', 2],
      ['bob', 0],
    ]);
    const byDefault = await search({ text: query });
    expect(byDefault.hits.find((hit) => hit.memory.id === 'ada')?.entityScore).toBe(0.2);
  });

  it('weighs down memories about other entities when the query names one of a candidate', async () => {
    const search = await setup([
      { id: 'ada', text: 'I went hiking last summer.', entities: ['Ada'] },
      { id: 'bob', text: 'Ada, I went hiking in the Alps too, Alps hiking is the best!', entities: ['Bob'] },
      { id: 'note', text: 'The hiking maps of the Alps are in the cabin.' },
    ]);
    const query = 'Where did Ada go hiking in the Alps?';
    const byId = (hits: SearchHit[]) => Object.fromEntries(hits.map((hit) => [hit.memory.id, hit]));
    const off = byId((await search({ text: query, entityWeight: 1 })).hits);
    const on = byId((await search({ text: query })).hits);
    expect(off.bob?.memory.id).toBe('bob');
    // Bob's memory names Ada in its text, but its entity is Bob: 0.6 of its score by default.
    expect(on.bob?.entityFactor).toBe(0.6);
    expect(on.bob?.score).toBeCloseTo(0.6 * (off.bob?.score ?? 0));
    // Ada's own memory, and one without entities, keep their scores.
    expect([on.ada?.entityFactor, on.note?.entityFactor]).toEqual([1, 1]);
    expect(on.ada?.score).toBeCloseTo(off.ada?.score ?? 0);
    // It does not depend on the additive boost.
    const unboosted = byId((await search({ text: query, entityBoost: 0 })).hits);
    expect([unboosted.bob?.entityFactor, unboosted.ada?.entityFactor]).toEqual([0.6, 1]);
    const silenced = await search({ text: query, entityWeight: 0 });
    expect(silenced.hits.at(-1)?.memory.id).toBe('bob');
    // A query that names no candidate's entity changes nothing.
    const unnamed = await search({ text: 'Where did Carol go hiking in the Alps?' });
    expect(unnamed.hits.every((hit) => hit.entityFactor === 1)).toBe(true);
  });

  it('weighs up memories that say when, for a question that asks when', async () => {
    const search = await setup([
      { id: 'dated', text: 'I took up surfing five years ago.' },
      { id: 'plain', text: 'Surfing, surfing every weekend: surfing is my favourite sport!' },
    ]);
    const byId = (hits: SearchHit[]) => Object.fromEntries(hits.map((hit) => [hit.memory.id, hit]));
    const off = byId((await search({ text: 'When did she take up surfing?', whenWeight: 1 })).hits);
    const on = byId((await search({ text: 'When did she take up surfing?' })).hits);
    expect([on.dated?.whenFactor, on.plain?.whenFactor]).toEqual([1.5, 1]);
    expect(on.dated?.score).toBeCloseTo(1.5 * (off.dated?.score ?? 0));
    expect(on.plain?.score).toBeCloseTo(off.plain?.score ?? 0);
    const what = await search({ text: 'What sport does she take up?' });
    expect(what.hits.every((hit) => hit.whenFactor === 1)).toBe(true);
  });

  it('fuses by normalized scores by default, by reciprocal rank on request', async () => {
    const search = await setup([
      { id: 'a', text: 'The violin lesson moved to Thursday.' },
      { id: 'b', text: 'Violin strings and violin rosin are on the shopping list.' },
      { id: 'c', text: 'The garden needs watering.' },
    ]);
    const scored = await search({ text: 'violin', neighbors: { window: 0 } });
    const top = scored.hits[0];
    expect(top?.textRank).toBe(1);
    // First in the text ranking is worth weights.text = 1; the vector part adds at most 0.25.
    expect(top?.score).toBeGreaterThanOrEqual(1);
    expect(top?.score).toBeLessThanOrEqual(1.25);
    expect(scored.hits.every((hit) => hit.relevance >= 0 && hit.relevance <= 1)).toBe(true);
    const rrf = await search({ text: 'violin', fusion: 'rrf', neighbors: { window: 0 } });
    expect(rrf.hits[0]?.score).toBeLessThanOrEqual(2 / 61);
    expect(
      rrf.hits
        .map((hit) => hit.memory.id)
        .slice(0, 2)
        .sort(),
    ).toEqual(['a', 'b']);
  });

  it('boosts recent memories when asked, and only then, on the chosen date field', async () => {
    // Same text, two sessions: equally relevant, so only recency can separate them. The older
    // memory was accessed more recently.
    const text = 'Booked a table at the harbour restaurant.';
    const search = await setup([
      {
        id: 'old',
        text,
        sessionId: 's1',
        createdAt: '2023-06-01T00:00:00Z',
        lastAccessed: '2024-05-31T00:00:00Z',
      },
      {
        id: 'new',
        text,
        sessionId: 's2',
        createdAt: '2024-05-30T00:00:00Z',
        lastAccessed: '2024-01-01T00:00:00Z',
      },
    ]);
    const query = { text: 'harbour restaurant table', neighbors: { window: 0 } };
    const plain = await search(query);
    expect(plain.hits.every((hit) => hit.recencyFactor === 1)).toBe(true);
    const byCreation = await search({
      ...query,
      recency: { weight: 1, halfLifeDays: 30, field: 'createdAt' },
    });
    expect(byCreation.hits.map((hit) => hit.memory.id)).toEqual(['new', 'old']);
    expect(byCreation.hits[0]?.recencyFactor).toBeGreaterThan(byCreation.hits[1]?.recencyFactor ?? 0);
    const byAccess = await search({
      ...query,
      recency: { weight: 1, halfLifeDays: 30, field: 'lastAccessed' },
    });
    expect(byAccess.hits.map((hit) => hit.memory.id)).toEqual(['old', 'new']);
  });

  it('drops vector matches beyond the distance threshold and counts only what is left', async () => {
    const search = await setup([
      { id: 'pet', text: 'We adopted a puppy from the shelter.' },
      { id: 'dog', text: 'Our new dog loves long walks.' },
      { id: 'tax', text: 'Quarterly tax forms are due in April.' },
    ]);
    const all = await search({ text: 'getting a new puppy', mode: 'vector', neighbors: { window: 0 } });
    expect(all.total).toBe(3);
    const near = await search({
      text: 'getting a new puppy',
      mode: 'vector',
      distanceThreshold: 0.7,
      neighbors: { window: 0 },
    });
    const ids = near.hits.map((hit) => hit.memory.id);
    expect(ids).toContain('pet');
    expect(ids).not.toContain('tax');
    expect(near.total).toBe(ids.length);
    expect(near.hits.every((hit) => (hit.distance ?? 2) <= 0.7)).toBe(true);
  });

  it('text mode finds only word matches, with an exact total', async () => {
    const search = await setup([
      { id: 'a', text: 'The violin lesson moved to Thursday.' },
      { id: 'b', text: 'Violin strings are on the shopping list.' },
      { id: 'c', text: 'The cello needs new strings.' },
    ]);
    const result = await search({ text: 'violin', mode: 'text', neighbors: { window: 0 } });
    expect(result.hits.map((hit) => hit.memory.id).sort()).toEqual(['a', 'b']);
    expect(result.total).toBe(2);
    expect(result.hits.every((hit) => hit.distance === null)).toBe(true);
  });

  it('orders by creation over the whole pool before paging, and lists every match in that order', async () => {
    // The best match (k2, the exact phrase) is by date neither first nor last.
    const search = await setup(
      ['kettle', 'kettle kettle kettle descale', 'kettle descale', 'kettle note'].map((text, index) => ({
        id: `k${index}`,
        text,
        createdAt: `2024-0${index + 1}-01T00:00:00.000Z`,
      })),
    );
    /** Both pages of two, joined. */
    const ids = async (request: SearchRequest) => {
      const pages = await Promise.all([0, 2].map((offset) => search({ ...request, limit: 2, offset })));
      return pages.flatMap((page) => page.hits.map((hit) => hit.memory.id));
    };
    expect((await ids({ text: 'kettle descale' }))[0]).toBe('k2');
    expect(await ids({ text: 'kettle descale', order: 'created_asc' })).toEqual(['k0', 'k1', 'k2', 'k3']);
    expect(await ids({ text: 'kettle descale', order: 'created_desc' })).toEqual(['k3', 'k2', 'k1', 'k0']);
    expect(await ids({ text: '', order: 'created_asc' })).toEqual(['k0', 'k1', 'k2', 'k3']);
    expect(await ids({ text: '' })).toEqual(['k3', 'k2', 'k1', 'k0']);
  });

  it('rejects out-of-range options', async () => {
    const search = await setup([{ text: 'anything' }]);
    for (const request of [
      { text: 'x', neighbors: { window: -1 } },
      { text: 'x', neighbors: { weight: 2 } },
      { text: 'x', neighbors: { sources: 0 } },
      { text: 'x', dateBoost: 11 },
      { text: 'x', entityBoost: -1 },
      { text: 'x', fusion: 'sum' },
    ]) {
      await expect(search(request as SearchRequest)).rejects.toBeInstanceOf(ValidationError);
    }
    // The error names the option, as the other validation errors do.
    await expect(search({ text: 'x', offset: 10_001 })).rejects.toMatchObject({
      message: expect.stringMatching(/^Invalid search: offset: /),
      issues: [{ path: ['offset'] }],
    });
  });
});
