import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { StoreError, VersionConflictError } from '../../src/core/errors.js';
import type { EngramStore } from '../../src/stores/engram-store.js';

/**
 * The behaviour every `DocumentStore` driver must show (the `documents` of an `EngramStore`).
 * `connectAgain`, for a shared backend, opens another store on the last factory-made one's backend.
 */
export function describeDocumentStoreConformance(
  name: string,
  factory: () => Promise<EngramStore>,
  connectAgain?: () => Promise<EngramStore>,
): void {
  describe(`DocumentStore conformance: ${name}`, () => {
    let store: EngramStore;
    beforeEach(async () => {
      store = await factory();
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates at version 1, replaces with version + 1 and keeps the creation time', async () => {
      const created = await store.documents.putDocument('t1', 'agents', 'a', { name: 'first' });
      expect(created).toMatchObject({ id: 'a', value: { name: 'first' }, version: 1 });
      expect(created.createdAt).toBe(created.updatedAt);
      const replaced = await store.documents.putDocument('t1', 'agents', 'a', { name: 'second' });
      expect(replaced).toMatchObject({ value: { name: 'second' }, version: 2, createdAt: created.createdAt });
      expect(await store.documents.getDocument('t1', 'agents', 'a')).toEqual(replaced);
    });

    it('keeps tenants and collections apart', async () => {
      await store.documents.putDocument('t1', 'agents', 'a', { owner: 't1' });
      await store.documents.putDocument('t2', 'agents', 'a', { owner: 't2' });
      await store.documents.putDocument('t1', 'keys', 'a', { owner: 'keys' });
      expect((await store.documents.getDocument('t2', 'agents', 'a'))?.value).toEqual({ owner: 't2' });
      expect((await store.documents.getDocument('t1', 'keys', 'a'))?.value).toEqual({ owner: 'keys' });
      expect(await store.documents.getDocument('t3', 'agents', 'a')).toBeNull();
      expect(await store.documents.deleteDocument('t2', 'agents', 'a')).toBe(true);
      expect(await store.documents.getDocument('t1', 'agents', 'a')).not.toBeNull();
      expect(await store.documents.deleteDocument('t2', 'agents', 'a')).toBe(false);
    });

    it('rejects a stale expectedVersion and changes nothing', async () => {
      await expect(
        store.documents.putDocument('t', 'c', 'x', { v: 0 }, { expectedVersion: 1 }),
      ).rejects.toBeInstanceOf(VersionConflictError);
      expect(await store.documents.getDocument('t', 'c', 'x')).toBeNull();
      await store.documents.putDocument('t', 'c', 'x', { v: 1 }, { expectedVersion: 0 });
      await expect(
        store.documents.putDocument('t', 'c', 'x', { v: 2 }, { expectedVersion: 0 }),
      ).rejects.toBeInstanceOf(VersionConflictError);
      const updated = await store.documents.putDocument('t', 'c', 'x', { v: 2 }, { expectedVersion: 1 });
      expect(updated.version).toBe(2);
      expect((await store.documents.getDocument('t', 'c', 'x'))?.value).toEqual({ v: 2 });
    });

    it('lists by id with a prefix (taken literally), both orders, pages and a true total', async () => {
      for (const id of ['s1/003', 's1/001', 's1/002', 's2/001', 's%_x', 's1']) {
        await store.documents.putDocument('t', 'traces', id, { id });
      }
      const ascending = await store.documents.listDocuments('t', 'traces', {
        prefix: 's1/',
        limit: 2,
        offset: 0,
      });
      expect(ascending.documents.map((document) => document.id)).toEqual(['s1/001', 's1/002']);
      expect(ascending.total).toBe(3);
      const descending = await store.documents.listDocuments('t', 'traces', {
        prefix: 's1/',
        order: 'id-desc',
        limit: 10,
        offset: 1,
      });
      expect(descending.documents.map((document) => document.id)).toEqual(['s1/002', 's1/001']);
      expect(descending.total).toBe(3);
      const literal = await store.documents.listDocuments('t', 'traces', {
        prefix: 's%',
        limit: 10,
        offset: 0,
      });
      expect(literal.documents.map((document) => document.id)).toEqual(['s%_x']);
      const all = await store.documents.listDocuments('t', 'traces', { limit: 100, offset: 0 });
      expect(all.total).toBe(6);
      expect((await store.documents.listDocuments('other', 'traces', { limit: 10, offset: 0 })).total).toBe(
        0,
      );
    });

    it('pages by key after an id, in both orders, however many were deleted before it', async () => {
      for (const id of ['a', 'b', 'c', 'd', 'e']) await store.documents.putDocument('t', 'agents', id, {});
      await store.documents.deleteDocument('t', 'agents', 'a');
      await store.documents.deleteDocument('t', 'agents', 'b');
      const ids = async (query: { after: string; order?: 'id-asc' | 'id-desc' }) =>
        (await store.documents.listDocuments('t', 'agents', { ...query, limit: 2, offset: 0 })).documents.map(
          (document) => document.id,
        );
      expect(await ids({ after: 'b' })).toEqual(['c', 'd']);
      expect(await ids({ after: 'c' })).toEqual(['d', 'e']);
      expect(await ids({ after: 'e' })).toEqual([]);
      expect(await ids({ after: 'd', order: 'id-desc' })).toEqual(['c']);
    });

    it('lists stale documents of one collection in every tenant, least recently written first', async () => {
      const pause = () => new Promise((resolve) => setTimeout(resolve, 5));
      await store.documents.putDocument('t1', 'cursors', 'a', { n: 1 });
      await pause();
      await store.documents.putDocument('t2', 'cursors', 'b', { n: 2 });
      await pause();
      await store.documents.putDocument('t1', 'other', 'c', { n: 3 });
      const rewritten = await store.documents.putDocument('t1', 'cursors', 'a', { n: 4 });
      await pause();
      const later = new Date(Date.now() + 1).toISOString();
      const all = await store.documents.listStaleDocuments('cursors', later, 10);
      expect(all.map(({ tenantId, document }) => [tenantId, document.id, document.value])).toEqual([
        ['t2', 'b', { n: 2 }],
        ['t1', 'a', { n: 4 }],
      ]);
      expect(await store.documents.listStaleDocuments('cursors', later, 1)).toHaveLength(1);
      const before = await store.documents.listStaleDocuments('cursors', rewritten.updatedAt, 10);
      expect(before.map(({ document }) => document.id)).toEqual(['b']);
    });

    it('returns copies', async () => {
      const value = { nested: { list: [1, 2] } };
      const stored = await store.documents.putDocument('t', 'c', 'copy', value);
      value.nested.list.push(3);
      stored.value.changed = true;
      expect((await store.documents.getDocument('t', 'c', 'copy'))?.value).toEqual({
        nested: { list: [1, 2] },
      });
    });

    it('rejects every call after close', async () => {
      await store.close();
      await expect(store.documents.getDocument('t', 'c', 'x')).rejects.toBeInstanceOf(StoreError);
      await expect(store.documents.putDocument('t', 'c', 'x', {})).rejects.toBeInstanceOf(StoreError);
    });

    if (connectAgain) {
      it("a second connection sees the first one's writes", async () => {
        await store.documents.putDocument('t', 'agents', 'shared', { seen: true });
        const other = await connectAgain();
        try {
          expect((await other.documents.getDocument('t', 'agents', 'shared'))?.value).toEqual({ seen: true });
        } finally {
          await other.close();
        }
      });
    }
  });
}
