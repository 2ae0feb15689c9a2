import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createEngram, type Engram } from '../../engram.js';
import type { EngramStore } from '../../stores/engram-store.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { createSqliteStore } from '../../stores/sqlite/sqlite-store.js';
import { exportTenant } from './export-tenant.js';
import { createTenantImporter, type ImportOutcome } from './import-tenant.js';
import type { TransferLine } from './transfer-line.js';

const directories: string[] = [];
afterAll(() => {
  for (const directory of directories) rmSync(directory, { recursive: true, force: true });
});
const drivers = {
  memory: async () => createMemoryStore(),
  sqlite: async () => {
    const directory = mkdtempSync(join(tmpdir(), 'engram-transfer-'));
    directories.push(directory);
    return createSqliteStore({ path: join(directory, 'engram.db') });
  },
} satisfies Record<string, () => Promise<EngramStore>>;
const tenant = 'acme';
const open = async (store: EngramStore) =>
  createEngram({ store, sweepIntervalMs: 0, sessionEnd: { idleMs: 0 }, defaultSources: false });

/** A tenant with one of everything an export carries, edits and a deleted newer version included. */
async function fill(engram: Engram): Promise<void> {
  await engram.agents.create(tenant, { id: 'support', systemPrompt: 'You help Acme customers.' });
  const session = { tenantId: tenant, sessionId: 's1', userId: 'ada', namespace: 'shop' };
  await engram.sessions.append(session, [
    { role: 'user', content: 'My order #1234 arrived damaged.' },
    { role: 'assistant', content: 'Sorry! Refund or replacement?' },
    { role: 'user', content: 'A replacement, please.' },
  ]);
  await engram.store.patchSession(
    { tenantId: tenant, sessionId: 's1', userId: 'ada', namespace: 'shop' },
    {
      dataPatch: { order: 1234 },
      workingSet: { pinned: ['m1'], removed: [] },
      summary: { context: 'Ada reported a damaged order.', throughSeq: 2, expectedThroughSeq: 0 },
    },
  );
  await engram.sessions.append({ tenantId: tenant, sessionId: 'empty-user' }, [
    { role: 'user', content: 'hi' },
  ]);
  const { inserted } = await engram.memories.create(tenant, [
    { id: 'm1', text: 'Ada prefers replacements over refunds.', userId: 'ada', topics: ['returns'] },
    { id: 'm2', text: 'Ada lives in Lisbon.', userId: 'ada' },
    { id: 'm4', text: 'Ada has a cat.', userId: 'ada' },
  ]);
  expect(inserted).toHaveLength(3);
  // Edits keep the id: m1 has three versions.
  const edited = await engram.memories.edit(tenant, 'm1', { text: 'Ada always prefers replacements.' });
  await engram.memories.edit(tenant, edited.id, { salience: 0.9 });
  // m2 is merged into m3, which is then edited.
  await merge(engram, 'm2', { id: 'm3', text: 'Ada lives in Porto.' });
  await engram.memories.edit(tenant, 'm3', { topics: ['address'] });
  // m4 is merged into m5, which is deleted: m4 must not come back as current.
  await merge(engram, 'm4', { id: 'm5', text: 'Ada has two cats.' });
  await engram.memories.delete(tenant, ['m5']);
  await engram.knowledge.ingest(tenant, {
    agentId: 'support',
    name: 'Returns.md',
    content: '# Returns\nDamaged items can be returned within 30 days.',
  });
  const procedure = await engram.procedures.create(tenant, {
    agentId: 'support',
    name: 'Damaged item',
    triggers: ['damaged'],
    steps: ['Apologise', 'Offer a replacement'],
  });
  await engram.procedures.approve(tenant, procedure.id);
  await engram.episodes.record(tenant, { userId: 'ada', summary: 'Ada returned a damaged blender.' });
}

/** Merges `id` into a new memory (`supersede`, the one use of merges in the store). */
async function merge(engram: Engram, id: string, replacement: { id: string; text: string }) {
  const [old] = await engram.store.memories.getMemories(tenant, [id]);
  if (!old) throw new Error(`no memory ${id}`);
  const { tenantId: _t, supersededBy: _b, validTo: _v, embeddingModel: _m, version: _n, ...fields } = old;
  const now = new Date(Date.parse(old.createdAt) + 1).toISOString();
  return engram.store.memories.supersede(tenant, id, {
    ...fields,
    ...replacement,
    createdAt: now,
    updatedAt: now,
    validFrom: now,
    memoryHash: `hash-${replacement.id}`,
    embedding: null,
  });
}

async function collect(store: EngramStore): Promise<TransferLine[]> {
  const lines: TransferLine[] = [];
  for await (const line of exportTenant(store, tenant, { engramVersion: 'test' })) lines.push(line);
  return lines;
}

/** The data of an export: bookkeeping that a restore restarts (versions, update times, vectors) left out. */
function comparable(lines: TransferLine[]) {
  const kept = lines.flatMap((line): unknown[] => {
    if (line.type === 'engram-export') return [];
    if (line.type === 'session') {
      const { version: _v, updatedAt: _u, expiresAt: _e, ...session } = line.session;
      return [{ ...line, session }];
    }
    if (line.type === 'memory') {
      const { embeddingModel: _model, ...memory } = line.memory;
      return [{ ...line, memory }];
    }
    return [line];
  });
  // Sessions are listed newest write first, and an import writes them anew.
  const order = (line: unknown) => {
    const { type, session } = line as { type: string; session?: { sessionId: string } };
    return session ? `session ${session.sessionId}` : type;
  };
  return kept
    .map((line, index) => ({ line, index }))
    .sort((a, b) => order(a.line).localeCompare(order(b.line)) || a.index - b.index)
    .map(({ line }) => line);
}

async function importAll(store: EngramStore, lines: readonly unknown[]): Promise<ImportOutcome[]> {
  const importer = createTenantImporter(store, tenant);
  const outcomes: ImportOutcome[] = [];
  for (const line of lines) {
    outcomes.push(...(await importer.importLine(JSON.parse(JSON.stringify(line)))));
  }
  return [...outcomes, ...(await importer.finish())];
}

const pairs = [
  ['memory', 'sqlite'],
  ['sqlite', 'memory'],
  ['sqlite', 'sqlite'],
] as const;

describe.each(pairs)('export from %s, import into %s', (from, to) => {
  it('gives identical data, and re-importing changes nothing', async () => {
    const source = await open(await drivers[from]());
    await fill(source);
    const exported = await collect(source.store);
    // 3 versions of m1, m2, 2 versions of m3, a knowledge chunk, 2 versions of the procedure, an episode.
    const memoryIds = exported.flatMap((line) => (line.type === 'memory' ? [line.memory.id] : []));
    expect(memoryIds.filter((id) => /^m\d$/.test(id))).toEqual(['m1', 'm1', 'm1', 'm2', 'm3', 'm3']);
    expect(memoryIds).toHaveLength(10);

    const target = await open(await drivers[to]());
    const outcomes = await importAll(target.store, exported);
    expect(outcomes.filter((outcome) => outcome.status !== 'created')).toEqual([]);
    expect(outcomes).toHaveLength(exported.length - 1);
    // The memory merged into a deleted one is left out, not resurrected.
    expect(memoryIds).not.toContain('m4');
    expect(comparable(await collect(target.store))).toEqual(comparable(exported));
    // Ids, version numbers and history (texts, times, writers) come back as they were.
    for (const id of ['m1', 'm2', 'm3']) {
      expect(await target.store.memories.memoryHistory(tenant, id)).toEqual(
        await source.store.memories.memoryHistory(tenant, id),
      );
    }
    expect((await target.store.memories.getMemories(tenant, ['m1']))[0]?.version).toBe(3);
    expect((await target.store.memories.getMemories(tenant, ['m2']))[0]?.supersededBy).toBe('m3');
    // The engine works on the imported data: search finds the current version, assembly the summary.
    const { hits } = await target.memories.search(tenant, {
      text: 'replacements',
      filter: { userId: { eq: 'ada' } },
    });
    expect(hits.map((hit) => hit.memory.text)).toContain('Ada always prefers replacements.');
    const session = await target.sessions.get({
      tenantId: tenant,
      sessionId: 's1',
      userId: 'ada',
      namespace: 'shop',
    });
    expect(session?.context).toBe('Ada reported a damaged order.');

    const again = await importAll(target.store, exported);
    expect(again.every((outcome) => outcome.status === 'skipped')).toBe(true);
    expect(comparable(await collect(target.store))).toEqual(comparable(exported));
    await source.close();
    await target.close();
  });
});

describe('a restore keeps every memory', () => {
  it('keeps two memories whose texts an edit made equal, each with its history', async () => {
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [
      { id: 'd1', text: 'Ada likes tea.', userId: 'ada' },
      { id: 'd2', text: 'Ada likes coffee.', userId: 'ada', pinned: true, topics: ['drinks'] },
    ]);
    // The engine allows it: an edit may give a memory another memory's text (d1 is exported
    // first, so its edited version is stored before d2 is inserted).
    await source.memories.edit(tenant, 'd1', { text: 'Ada likes coffee.' });
    const exported = await collect(source.store);
    const target = await open(await drivers.sqlite());
    const outcomes = await importAll(target.store, exported);
    expect(outcomes.filter((outcome) => outcome.status !== 'created')).toEqual([]);
    const restored = await target.store.memories.getMemories(tenant, ['d1', 'd2']);
    expect(restored.map((memory) => [memory.id, memory.text, memory.pinned])).toEqual([
      ['d1', 'Ada likes coffee.', false],
      ['d2', 'Ada likes coffee.', true],
    ]);
    expect(comparable(await collect(target.store))).toEqual(comparable(exported));
    await source.close();
    await target.close();
  });
});

describe('an ended session', () => {
  it('stays ended after a restore: ending it again writes no second episode', async () => {
    const source = await open(createMemoryStore());
    const session = { tenantId: tenant, sessionId: 'trip', userId: 'ada' };
    await source.sessions.append(session, [
      { role: 'user', content: 'I fly to Lisbon on Friday.' },
      { role: 'assistant', content: 'Have a good trip to Lisbon!' },
    ]);
    const settle = async (engram: Engram, jobId: string | undefined) => {
      for (let poll = 0; poll < 100_000 && jobId; poll++) {
        const job = await engram.jobs.get(tenant, jobId);
        if (job?.status === 'succeeded' || job?.status === 'failed') return job;
        await new Promise((resolve) => setImmediate(resolve));
      }
      throw new Error('the end-session job did not finish');
    };
    expect(await settle(source, (await source.sessions.end(session)).job?.id)).toMatchObject({
      status: 'succeeded',
    });
    const episodes = async (engram: Engram) =>
      (await engram.episodes.search(tenant, { userId: 'ada', query: 'Lisbon trip' })).length;
    expect(await episodes(source)).toBe(1);
    const exported = await collect(source.store);
    expect(exported.find((line) => line.type === 'session')).toMatchObject({ ended: { throughSeq: 2 } });

    const target = await open(await drivers.sqlite());
    await importAll(target.store, exported);
    expect(await episodes(target)).toBe(1);
    // Ended again (as the idle sweep would end it): the mark says it is ended, nothing is written.
    const again = await settle(target, (await target.sessions.end(session)).job?.id);
    expect(again).toMatchObject({ status: 'succeeded', result: { skipped: 'already ended' } });
    expect(await episodes(target)).toBe(1);
    await source.close();
    await target.close();
  });
});

describe('a newer export of an imported session', () => {
  it('adds the messages written since, and a second import of it adds nothing', async () => {
    const source = await open(createMemoryStore());
    const session = { tenantId: tenant, sessionId: 'chat', userId: 'ada' };
    await source.sessions.append(session, [
      { role: 'user', content: 'Hello' },
      { role: 'assistant', content: 'Hi Ada' },
    ]);
    const target = await open(await drivers.sqlite());
    await importAll(target.store, await collect(source.store));
    await source.sessions.append(session, [{ role: 'user', content: 'One more thing' }]);
    const newer = await collect(source.store);
    const outcomes = await importAll(target.store, newer);
    expect(outcomes.find((outcome) => outcome.item.startsWith('session'))).toMatchObject({
      status: 'created',
      reason: '1 newer messages appended',
    });
    const contents = async () =>
      (await target.store.readMessages({ ...session, namespace: null }, { order: 'oldest-first' })).map(
        (message) => message.content,
      );
    expect(await contents()).toEqual(['Hello', 'Hi Ada', 'One more thing']);
    const again = await importAll(target.store, newer);
    expect(again.find((outcome) => outcome.item.startsWith('session'))?.status).toBe('skipped');
    expect(await contents()).toHaveLength(3);
    await source.close();
    await target.close();
  });
});

describe('resuming an import', () => {
  it('after a stop half-way adds only what is missing', async () => {
    const source = await open(createMemoryStore());
    await fill(source);
    const exported = await collect(source.store);
    const target = await open(await drivers.sqlite());
    // Stops after some lines (no `finish`), as a killed process would.
    const partial = createTenantImporter(target.store, tenant);
    for (const line of exported.slice(0, Math.ceil(exported.length / 2))) await partial.importLine(line);
    const resumed = await importAll(target.store, exported);
    expect(resumed.some((outcome) => outcome.status === 'skipped')).toBe(true);
    expect(resumed.some((outcome) => outcome.status === 'created')).toBe(true);
    expect(comparable(await collect(target.store))).toEqual(
      comparable(await collect((await importFresh(exported)).store)),
    );
    await source.close();
    await target.close();
  });

  it("resumes within a memory's history", async () => {
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [{ id: 'm1', text: 'Ada lives in Lisbon.' }]);
    await source.memories.edit(tenant, 'm1', { text: 'Ada lives in Porto.' });
    await source.memories.edit(tenant, 'm1', { text: 'Ada lives in Faro.' });
    const exported = await collect(source.store);
    const target = await open(createMemoryStore());
    // Stopped after the second version.
    const partial = createTenantImporter(target.store, tenant);
    for (const line of exported.slice(0, -1)) await partial.importLine(JSON.parse(JSON.stringify(line)));
    expect((await target.store.memories.getMemories(tenant, ['m1']))[0]?.version).toBe(2);
    const resumed = await importAll(target.store, exported);
    expect(resumed.map((outcome) => outcome.status)).toEqual(['skipped', 'skipped', 'created']);
    expect(await target.store.memories.memoryHistory(tenant, 'm1')).toEqual(
      await source.store.memories.memoryHistory(tenant, 'm1'),
    );
    await source.close();
    await target.close();
  });

  it('exports a history longer than one read of versions whole, oldest first', async () => {
    // 60 versions of 20,000 characters: a history read holds about 1,000,000 characters (50 here).
    const text = (version: number) => `${`Version ${version}: `.padEnd(19_999, 'the policy changed ')}.`;
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [{ id: 'm1', text: text(1) }]);
    for (let version = 2; version <= 60; version++)
      await source.memories.edit(tenant, 'm1', { text: text(version) });
    const exported = await collect(source.store);
    const texts = exported.flatMap((line) => (line.type === 'memory' ? [line.memory.text] : []));
    expect(texts).toEqual(Array.from({ length: 60 }, (_, index) => text(index + 1)));
    await source.close();
  });

  it('does not resurrect a merged-away memory whose merge result is not in the file', async () => {
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [{ id: 'old', text: 'Ada lives in Lisbon.' }]);
    await source.memories.edit(tenant, 'old', { text: 'Ada lives in Porto.' });
    await merge(source, 'old', { id: 'new', text: 'Ada lives in Porto, Portugal.' });
    const exported = await collect(source.store);
    const target = await open(createMemoryStore());
    const outcomes = await importAll(
      target.store,
      exported.filter((line) => line.type !== 'memory' || line.memory.id === 'old'),
    );
    expect(outcomes.at(-1)).toMatchObject({ status: 'skipped', item: 'memory old' });
    expect((await target.memories.list(tenant)).total).toBe(0);
    await source.close();
    await target.close();
  });

  it('reads a format 1 file, whose versions were records linked by supersedes', async () => {
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [{ id: 'a', text: 'Ada lives in Lisbon.' }]);
    await merge(source, 'a', { id: 'b', text: 'Ada lives in Porto.' });
    const lines = (await collect(source.store)).map((line) => {
      if (line.type === 'engram-export') return { ...line, formatVersion: 1 };
      if (line.type !== 'memory') return line;
      const { version: _v, writtenBy: _w, ...memory } = line.memory;
      return { ...line, memory };
    });
    const target = await open(createMemoryStore());
    const outcomes = await importAll(target.store, lines);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['created', 'created']);
    const [a, b] = await target.store.memories.getMemories(tenant, ['a', 'b']);
    expect(a).toMatchObject({ supersededBy: 'b', version: 1 });
    expect(b).toMatchObject({ supersedes: 'a', validTo: null, writtenBy: 'api' });
    await source.close();
    await target.close();
  });

  it("recomputes a memory's hash: an older export's hash ignored the agent", async () => {
    const source = await open(createMemoryStore());
    const { inserted } = await source.memories.create(tenant, [
      { id: 'k', text: 'Anvils ship fast.', agentId: 'bot' },
    ]);
    const lines = (await collect(source.store)).map((line) =>
      line.type === 'memory' ? { ...line, memory: { ...line.memory, memoryHash: 'stale' } } : line,
    );
    const target = await open(createMemoryStore());
    await importAll(target.store, lines);
    const [imported] = await target.store.memories.getMemories(tenant, ['k']);
    expect(imported?.memoryHash).toBe(inserted[0]?.memoryHash);
    await source.close();
    await target.close();
  });

  it('reports a malformed line and goes on', async () => {
    const target = await open(createMemoryStore());
    const outcomes = await importAll(target.store, [
      { type: 'memory', kind: 'memory', memory: { id: 'x' } },
      { type: 'agent', id: 'a', value: { systemPrompt: 'Hi' } },
    ]);
    expect(outcomes.map((outcome) => outcome.status)).toEqual(['failed', 'created']);
    expect(outcomes[0]?.reason).toMatch(/export line/);
    await target.close();
  });
});

async function importFresh(lines: TransferLine[]): Promise<Engram> {
  const engram = await open(createMemoryStore());
  await importAll(engram.store, lines);
  return engram;
}
