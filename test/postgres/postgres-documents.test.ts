import { describe, expect, it } from 'vitest';
import { createPostgresStore } from '../../src/stores/postgres/postgres-store.js';
import { usePostgresTestSchema } from '../support/postgres-test-schema.js';

const database = await usePostgresTestSchema('documents');

describe.skipIf(database === null)('PostgreSQL batch document writes', () => {
  const { url, schema } = database ?? { url: '', schema: '' };

  it('puts and deletes a batch in one write: new documents at version 1, replaced ones bumped', async () => {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    try {
      const documents = store.documents;
      if (!documents.writeDocuments) throw new Error('writeDocuments is missing');
      await documents.putDocument('t', 'traces', 'a', { n: 0 });
      await documents.putDocument('t', 'traces', 'gone', { n: 0 });
      await documents.putDocument('other', 'traces', 'gone', { n: 0 });
      await documents.writeDocuments('t', 'traces', {
        put: [
          { id: 'a', value: { n: 1 } },
          { id: 'b', value: { n: 2 } },
        ],
        delete: ['gone', 'never-there'],
      });
      const listed = await documents.listDocuments('t', 'traces', { limit: 10, offset: 0 });
      expect(listed.documents.map(({ id, value, version }) => ({ id, value, version }))).toEqual([
        { id: 'a', value: { n: 1 }, version: 2 },
        { id: 'b', value: { n: 2 }, version: 1 },
      ]);
      // Another tenant's document with the same id stays.
      expect(await documents.getDocument('other', 'traces', 'gone')).not.toBeNull();
    } finally {
      await store.close();
    }
  });

  it('writes nothing when a batch fails part way', async () => {
    const store = await createPostgresStore({ connectionString: url, schema, poolSize: 2 });
    try {
      const documents = store.documents;
      if (!documents.writeDocuments) throw new Error('writeDocuments is missing');
      // PostgreSQL rejects a NUL character in text: the delete fails after the put ran, so the
      // put must roll back with it.
      await expect(
        documents.writeDocuments('t2', 'traces', {
          put: [{ id: 'new', value: { n: 1 } }],
          delete: ['bad\u0000id'],
        }),
      ).rejects.toThrow();
      expect(await documents.getDocument('t2', 'traces', 'new')).toBeNull();
    } finally {
      await store.close();
    }
  });
});
