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
  ]);
  expect(inserted).toHaveLength(2);
  const edited = await engram.memories.edit(tenant, 'm1', { text: 'Ada always prefers replacements.' });
  await engram.memories.edit(tenant, edited.id, { salience: 0.9 });
  // m2's newer version is deleted: the old version must not come back as current.
  const gone = await engram.memories.edit(tenant, 'm2', { text: 'Ada lives in Porto.' });
  await engram.memories.delete(tenant, [gone.id]);
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
    // 3 versions of m1, a knowledge chunk, 2 versions of the procedure, an episode.
    expect(exported.filter((line) => line.type === 'memory').length).toBe(7);

    const target = await open(await drivers[to]());
    const outcomes = await importAll(target.store, exported);
    expect(outcomes.filter((outcome) => outcome.status !== 'created')).toEqual([]);
    expect(outcomes).toHaveLength(exported.length - 1);
    // The version whose newer version was deleted is left out, not resurrected.
    expect(exported.some((line) => line.type === 'memory' && line.memory.id === 'm2')).toBe(false);
    expect(comparable(await collect(target.store))).toEqual(comparable(exported));
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

  it('does not resurrect a superseded version whose newer version is not in the file', async () => {
    const source = await open(createMemoryStore());
    await source.memories.create(tenant, [{ id: 'old', text: 'Ada lives in Lisbon.' }]);
    await source.memories.edit(tenant, 'old', { text: 'Ada lives in Porto.' });
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
