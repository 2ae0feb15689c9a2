import fc from 'fast-check';
import { expect, it } from 'vitest';
import { NotFoundError, ValidationError, VersionConflictError } from '../../src/core/errors.js';
import { words } from '../../src/core/text/analyze-text.js';
import {
  CURRENT,
  day,
  EVERYTHING,
  expectCode,
  idsOf,
  insertAll,
  type MemoryConformanceContext,
  MODEL,
  newMemory,
  nextVersion,
  OTHER_TENANT,
  TENANT,
} from './memory-record-fixtures.js';

const unit = (...values: number[]) => Float32Array.from(values);
const VOCABULARY = ['apple', 'river', 'stone', 'cloud', 'ember'];

/** Stable ids: `updateMemory` writes versions in place, `memoryHistory` reads them back. */
export function describeMemoryHistoryConformance(context: MemoryConformanceContext): void {
  it('moves the memory revision on an in-place version, and partitions follow its new owner', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { text: 'owns a bike', userId: 'ada', vector: [1, 0, 0, 0] })]);
    const revision = () => (memories.memoryRevision as (tenant: string) => Promise<string>)(TENANT);
    const before = await revision();
    // Only the metadata and owner change: caches validated by the revision must still see it.
    await memories.updateMemory(
      TENANT,
      'm',
      nextVersion({
        text: 'owns a bike',
        userId: 'bob',
        metadata: { status: 'approved' },
        vector: [1, 0, 0, 0],
      }),
    );
    expect(await revision()).not.toBe(before);
    const byUser = (userId: string) => ({ ...CURRENT, userId: { eq: userId } });
    expect(idsOf(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, byUser('bob'), 5))).toEqual([
      'm',
    ]);
    expect(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, byUser('ada'), 5)).toEqual([]);
    expect(idsOf(await memories.searchText(TENANT, 'bike', byUser('bob'), 5))).toEqual(['m']);
    expect(await memories.searchText(TENANT, 'bike', byUser('ada'), 5)).toEqual([]);
  });

  it('keeps the id across versions, counting them, and reads the history newest first', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { text: 'lives in Porto', validFrom: day(0) })]);
    await memories.recordAccess(TENANT, ['m'], day(5));
    const two = await memories.updateMemory(
      TENANT,
      'm',
      nextVersion({ text: 'lives in Lisbon', validFrom: day(10), updatedAt: day(10), writtenBy: 'agent' }),
    );
    expect(two).toMatchObject({
      id: 'm',
      text: 'lives in Lisbon',
      version: 2,
      writtenBy: 'agent',
      validFrom: day(10),
      validTo: null,
      supersedes: null,
      supersededBy: null,
      createdAt: newMemory('m').createdAt,
      accessCount: 1,
      lastAccessed: day(5),
    });
    const three = await memories.updateMemory(
      TENANT,
      'm',
      nextVersion({ text: 'lives in Faro', topics: ['home'], validFrom: day(20), writtenBy: 'llm' }),
    );
    expect(three).toMatchObject({ id: 'm', version: 3, text: 'lives in Faro', topics: ['home'] });
    expect(await memories.getMemories(TENANT, ['m'])).toStrictEqual([three]);

    const history = (await memories.memoryHistory(TENANT, 'm')).versions;
    expect(history.map((version) => [version.version, version.text, version.writtenBy])).toEqual([
      [3, 'lives in Faro', 'llm'],
      [2, 'lives in Lisbon', 'agent'],
      [1, 'lives in Porto', 'api'],
    ]);
    expect(history.map((version) => [version.validFrom, version.validTo])).toEqual([
      [day(20), null],
      [day(10), day(20)],
      [day(0), day(10)],
    ]);
    expect(history.every((version) => version.id === 'm')).toBe(true);
    expect(history[2]).toMatchObject({ memoryHash: newMemory('m', { text: 'lives in Porto' }).memoryHash });
    expect(await memories.memoryHistory(TENANT, 'm', { limit: 2 })).toStrictEqual({
      versions: history.slice(0, 2),
      nextBefore: 2,
    });
    expect(await memories.memoryHistory(TENANT, 'm')).toStrictEqual({ versions: history, nextBefore: null });
    expect(await memories.memoryHistory(TENANT, 'absent')).toEqual({ versions: [], nextBefore: null });
    expect(await memories.memoryHistory(OTHER_TENANT, 'm')).toEqual({ versions: [], nextBefore: null });
  });

  it('searches, lists and counts only the current version', async () => {
    const { memories } = context;
    await insertAll(memories, [
      newMemory('m', { text: 'drinks green tea', vector: [1, 0, 0, 0], sessionId: 's1' }),
      newMemory('n', { text: 'plays chess', vector: [0, 1, 0, 0] }),
    ]);
    await memories.updateMemory(
      TENANT,
      'm',
      nextVersion({ text: 'drinks black coffee', vector: [0, 0, 1, 0], validFrom: day(1), sessionId: 's2' }),
    );
    expect(await memories.searchText(TENANT, 'tea', EVERYTHING, 10)).toEqual([]);
    expect(idsOf(await memories.searchText(TENANT, 'coffee', CURRENT, 10))).toEqual(['m']);
    const nearest = await memories.searchVector(TENANT, unit(0, 0, 1, 0), MODEL, CURRENT, 1);
    expect(nearest.map(({ id, distance }) => ({ id, distance }))).toEqual([{ id: 'm', distance: 0 }]);
    // Traits, where a driver gives them, are the current version's.
    const [byText] = await memories.searchText(TENANT, 'coffee', CURRENT, 10);
    for (const traits of [nearest[0]?.traits, byText?.traits].filter((value) => value !== undefined)) {
      expect(traits).toEqual({ sessionId: 's2', entities: [] });
    }
    expect((await memories.searchVector(TENANT, unit(1, 1, 0, 0), MODEL, CURRENT, 1))[0]?.id).toBe('n');
    expect((await memories.listMemories(TENANT, EVERYTHING, { limit: 10, offset: 0 })).total).toBe(2);
    expect(await memories.countMemories(TENANT, { ...CURRENT, sessionId: { eq: 's1' } })).toBe(0);
    expect(await memories.countMemories(TENANT, { ...CURRENT, sessionId: { eq: 's2' } })).toBe(1);
    const [neighbors] = await memories.sessionNeighbors(TENANT, ['m'], CURRENT, 2);
    expect(neighbors).toMatchObject({ id: 'm', sessionId: 's2' });
  });

  it('follows the hash of the current version for deduplication', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { text: 'owns a bike' })]);
    await memories.updateMemory(TENANT, 'm', nextVersion({ text: 'owns a car', validFrom: day(1) }));
    const again = await memories.insertMemories(TENANT, [newMemory('b', { text: 'owns a bike' })]);
    expect(idsOf(again.inserted)).toEqual(['b']);
    const current = await memories.insertMemories(TENANT, [newMemory('c', { text: 'owns a car' })]);
    expect(current.duplicates.map((duplicate) => duplicate.existing.id)).toEqual(['m']);
  });

  it('replaces or removes the vector with the version', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { vector: [1, 0, 0, 0] })]);
    const without = await memories.updateMemory(TENANT, 'm', nextVersion({ text: 'no vector' }));
    expect(without.embeddingModel).toBeNull();
    expect(await memories.searchVector(TENANT, unit(1, 0, 0, 0), MODEL, CURRENT, 5)).toEqual([]);
    expect(await memories.findUnembedded(TENANT, MODEL, 5)).toEqual([{ id: 'm', text: 'no vector' }]);
    const withVector = await memories.updateMemory(TENANT, 'm', nextVersion({ vector: [0, 1, 0, 0] }));
    expect(withVector.embeddingModel).toBe(MODEL);
    expect(idsOf(await memories.searchVector(TENANT, unit(0, 1, 0, 0), MODEL, CURRENT, 5))).toEqual(['m']);
    expect((await memories.getMemories(TENANT, ['m']))[0]?.embeddingModel).toBe(MODEL);
  });

  it('never lets a version start before the one it follows', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { validFrom: day(5) })]);
    const next = await memories.updateMemory(TENANT, 'm', nextVersion({ text: 'later', validFrom: day(1) }));
    expect(next.validFrom).toBe(day(5));
    const [, prior] = (await memories.memoryHistory(TENANT, 'm')).versions;
    expect(prior).toMatchObject({ validFrom: day(5), validTo: day(5) });
  });

  it('refuses a stale expected version, an absent or merged-away memory, and a bad vector, changing nothing', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { vector: [1, 0, 0, 0] }), newMemory('old', { text: 'old' })]);
    await memories.updateMemory(TENANT, 'm', nextVersion({ text: 'two', vector: [1, 0, 0, 0] }), {
      expectedVersion: 1,
    });
    const stale = memories.updateMemory(TENANT, 'm', nextVersion({ text: 'three' }), { expectedVersion: 1 });
    const conflict = await expectCode(stale, 'version_conflict', VersionConflictError);
    expect(conflict).toMatchObject({ category: 'conflict', details: { expected: 1, actual: 2 } });
    await expectCode(memories.updateMemory(TENANT, 'absent', nextVersion()), 'not_found', NotFoundError);
    await expectCode(memories.updateMemory(OTHER_TENANT, 'm', nextVersion()), 'not_found', NotFoundError);
    const wrongSize = memories.updateMemory(TENANT, 'm', nextVersion({ text: 'x', vector: [1, 0] }));
    await expectCode(wrongSize, 'validation_failed', ValidationError);
    await memories.supersede(TENANT, 'old', newMemory('merged', { text: 'merged', validFrom: day(1) }));
    await expectCode(memories.updateMemory(TENANT, 'old', nextVersion()), 'already_superseded');

    const [m] = await memories.getMemories(TENANT, ['m']);
    expect(m).toMatchObject({ version: 2, text: 'two', embeddingModel: MODEL });
    expect((await memories.memoryHistory(TENANT, 'm')).versions.map((version) => version.version)).toEqual([
      2, 1,
    ]);
    const [closed] = (await memories.memoryHistory(TENANT, 'old')).versions;
    expect(closed).toMatchObject({ version: 1, validTo: day(1) });
  });

  it('deletes a memory with its history, and a new memory under its id starts again at version 1', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('m', { text: 'alpha' })]);
    await memories.updateMemory(TENANT, 'm', nextVersion({ text: 'beta', validFrom: day(1) }));
    expect(await memories.deleteMemories(TENANT, ['m'])).toBe(1);
    expect(await memories.memoryHistory(TENANT, 'm')).toEqual({ versions: [], nextBefore: null });
    await insertAll(memories, [newMemory('m', { text: 'gamma' })]);
    const history = (await memories.memoryHistory(TENANT, 'm')).versions;
    expect(history.map((version) => [version.version, version.text])).toEqual([[1, 'gamma']]);
  });

  it('inserts every record, identical ones too, when asked not to deduplicate', async () => {
    const { memories } = context;
    await insertAll(memories, [newMemory('a', { text: 'same text' })]);
    const result = await memories.insertMemories(
      TENANT,
      [newMemory('b', { text: 'same text' }), newMemory('c', { text: 'same text' })],
      { deduplicate: false },
    );
    expect(idsOf(result.inserted)).toEqual(['b', 'c']);
    expect(result.duplicates).toEqual([]);
    expect((await memories.listMemories(TENANT, CURRENT, { limit: 10, offset: 0 })).total).toBe(3);
    // Ids stay unique either way.
    const taken = memories.insertMemories(TENANT, [newMemory('a', { text: 'other' })], {
      deduplicate: false,
    });
    await expectCode(taken, 'validation_failed', ValidationError);
    // With deduplication on again, the oldest current record is the duplicate.
    const again = await memories.insertMemories(TENANT, [newMemory('d', { text: 'same text' })]);
    expect(again.duplicates.map((duplicate) => duplicate.existing.id)).toEqual(['a']);
  });

  it('property: any run of updates keeps one id, contiguous versions and current-only search', async () => {
    const { memories } = context;
    const update = fc.record({
      target: fc.integer({ min: 0, max: 2 }),
      words: fc.subarray(VOCABULARY, { minLength: 1 }),
      day: fc.integer({ min: 0, max: 30 }),
      writtenBy: fc.constantFrom('user' as const, 'agent' as const, 'llm' as const, 'api' as const),
    });
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(update, { maxLength: 12 }), async (updates) => {
        const tenant = `property-${run++}`;
        const ids = ['p0', 'p1', 'p2'];
        await insertAll(
          memories,
          ids.map((id) => newMemory(id, { text: `${id} start`, validFrom: day(0) })),
          tenant,
        );
        const expected = new Map(ids.map((id) => [id, [{ text: `${id} start`, writtenBy: 'api' }]]));
        for (const step of updates) {
          const id = ids[step.target] as string;
          const text = `${id} ${step.words.join(' ')}`;
          const next = await memories.updateMemory(
            tenant,
            id,
            nextVersion({ text, validFrom: day(step.day), writtenBy: step.writtenBy }),
          );
          expected.get(id)?.push({ text, writtenBy: step.writtenBy });
          expect(next).toMatchObject({ id, version: expected.get(id)?.length });
        }
        for (const id of ids) {
          const history = (await memories.memoryHistory(tenant, id, { limit: 1_000 })).versions;
          const written = [...(expected.get(id) ?? [])].reverse();
          expect(history.map((version) => [version.id, version.text, version.writtenBy])).toEqual(
            written.map((version) => [id, version.text, version.writtenBy]),
          );
          expect(history.map((version) => version.version)).toEqual(
            written.map((_, index) => written.length - index),
          );
          expect(history[0]?.validTo).toBeNull();
          history.slice(1).forEach((version, index) => {
            expect(version.validTo).toBe(history[index]?.validFrom);
            expect(version.validFrom <= (version.validTo as string)).toBe(true);
          });
          const [current] = await memories.getMemories(tenant, [id]);
          expect(current).toMatchObject({ text: history[0]?.text, version: history[0]?.version });
        }
        expect(await memories.countMemories(tenant, EVERYTHING)).toBe(3);
        // Text search finds exactly the memories whose current text has the word.
        for (const word of VOCABULARY) {
          const found = idsOf(await memories.searchText(tenant, word, EVERYTHING, 10)).sort();
          const holders = ids.filter((id) => {
            const latest = expected.get(id)?.at(-1)?.text ?? '';
            return words(latest).includes(words(word)[0] as string);
          });
          expect(found).toEqual(holders);
        }
      }),
      { numRuns: 25 },
    );
  });

  it('reads the history in pages: at most limit versions and maxChars of text, each page as full as they allow', async () => {
    const { memories } = context;
    // Texts of 1 to 40 characters, some outside the BMP: characters are code points in every driver.
    const text = fc
      .array(fc.constantFrom('a', 'é', '😀', ' ', 'z'), { minLength: 1, maxLength: 40 })
      .map((parts) => parts.join(''));
    let run = 0;
    await fc.assert(
      fc.asyncProperty(
        fc.array(text, { minLength: 1, maxLength: 8 }),
        fc.integer({ min: 1, max: 4 }),
        fc.integer({ min: 1, max: 120 }),
        async (texts, limit, maxChars) => {
          const tenant = `pages-${run++}`;
          await insertAll(
            memories,
            [newMemory('m', { text: texts[0] as string, validFrom: day(0) })],
            tenant,
          );
          for (const [index, next] of texts.slice(1).entries())
            await memories.updateMemory(tenant, 'm', nextVersion({ text: next, validFrom: day(index + 1) }));
          const whole = (await memories.memoryHistory(tenant, 'm', { limit: 1_000 })).versions;
          const chars = (version: { text: string }) => [...version.text].length;
          const read: typeof whole = [];
          let before: number | undefined;
          for (let pages = 0; pages <= texts.length; pages += 1) {
            const page = await memories.memoryHistory(tenant, 'm', {
              limit,
              maxChars,
              ...(before !== undefined ? { before } : {}),
            });
            const size = page.versions.reduce((sum, version) => sum + chars(version), 0);
            const rest = whole.slice(read.length + page.versions.length);
            expect(page.versions.length).toBeGreaterThan(0);
            expect(page.versions.length).toBeLessThanOrEqual(limit);
            if (page.versions.length > 1) expect(size).toBeLessThanOrEqual(maxChars);
            // Full: the next version would pass the limit or the characters.
            if (rest[0] && page.versions.length < limit)
              expect(size + chars(rest[0])).toBeGreaterThan(maxChars);
            read.push(...page.versions);
            expect(page.nextBefore).toBe(rest[0] ? page.versions.at(-1)?.version : null);
            if (page.nextBefore === null) break;
            before = page.nextBefore;
          }
          expect(read).toStrictEqual(whole);
          expect(whole.map((version) => version.version)).toEqual(
            texts.map((_, index) => texts.length - index),
          );
          // Below the oldest version there is nothing; above the current one, everything.
          expect(await memories.memoryHistory(tenant, 'm', { before: 1 })).toEqual({
            versions: [],
            nextBefore: null,
          });
          expect(
            (await memories.memoryHistory(tenant, 'm', { before: texts.length + 5 })).versions,
          ).toStrictEqual(whole);
        },
      ),
      { numRuns: 20 },
    );
  });
}
