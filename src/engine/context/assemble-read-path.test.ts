import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { instrumentStore } from '../../stores/instrument-store.js';
import { createSqliteStore } from '../../stores/sqlite/sqlite-store.js';
import { TRACES_COLLECTION } from './trace-log.js';

/** Store calls a turn may make: reads only. */
const READS = new Set([
  'sessions.getSession',
  'sessions.readMessages',
  'sessions.sessionRevision',
  'memories.getMemories',
  'memories.listMemories',
  'memories.countMemories',
  'memories.searchText',
  'memories.searchVector',
  'memories.sessionNeighbors',
  'memories.findUnembedded',
  'memories.memoryRevision',
  'documents.getDocument',
  'documents.listDocuments',
]);

describe('assemble: the read path', () => {
  it('makes no store write; traces and access statistics are written once flushed or closed', async () => {
    const path = join(mkdtempSync(join(tmpdir(), 'engram-read-path-')), 'engram.db');
    const calls: string[] = [];
    const store = instrumentStore(await createSqliteStore({ path }), (operation) => calls.push(operation));
    const engram = await createEngram({ store, sweepIntervalMs: 0, sessionEnd: { idleMs: 0 } });
    const ref = { sessionId: 's1', userId: 'ada' };
    await engram.sessions.append(ref, [{ role: 'user', content: 'I moved to Lisbon last spring.' }]);
    const [fact] = (
      await engram.memories.create('default', [{ text: 'Ada lives in Lisbon.', userId: 'ada' }])
    ).inserted;
    const procedure = await engram.procedures.create('default', {
      agentId: 'helper',
      name: 'Moving',
      triggers: ['\\bmove\\b'],
      steps: ['Ask where to'],
    });
    await engram.procedures.approve('default', procedure.id);
    await engram.knowledge.ingest('default', {
      agentId: 'helper',
      name: 'City.md',
      content: '# Lisbon\nSunny.',
    });
    await engram.episodes.record('default', { userId: 'ada', summary: 'Ada planned a move to Lisbon.' });

    calls.length = 0;
    for (let turn = 0; turn < 3; turn++) {
      const result = await engram.assemble({
        session: ref,
        agent: { id: 'helper' },
        message: 'Where do I live now, in Lisbon?',
      });
      expect(result.context.some((message) => message.content.includes('Ada lives in Lisbon.'))).toBe(true);
    }
    const turnCalls = calls.filter((operation) => !operation.startsWith('jobs.'));
    expect(turnCalls.length).toBeGreaterThan(0);
    expect(turnCalls.filter((operation) => !READS.has(operation))).toEqual([]);

    // Nothing of the turns is stored yet; a flush writes it.
    const stored = async () =>
      (await store.documents.listDocuments('default', TRACES_COLLECTION, { limit: 100, offset: 0 })).total;
    expect(await stored()).toBe(0);
    expect((await store.memories.getMemories('default', [fact?.id ?? '']))[0]?.accessCount).toBe(0);
    await engram.memories.flush();
    expect((await store.memories.getMemories('default', [fact?.id ?? '']))[0]?.accessCount).toBe(3);

    // Close writes what is still queued: another process sees it in the file.
    await engram.assemble({ session: ref, agent: { id: 'helper' }, message: 'And my city?' });
    await engram.close();
    const reopened = await createSqliteStore({ path });
    expect(
      (await reopened.documents.listDocuments('default', TRACES_COLLECTION, { limit: 100, offset: 0 })).total,
    ).toBe(4);
    expect((await reopened.memories.getMemories('default', [fact?.id ?? '']))[0]?.accessCount).toBe(4);
    await reopened.close();
  });
});
