import { describe, expect, it } from 'vitest';
import { createEngram } from '../../engram.js';
import { createMemoryStore } from '../../stores/memory/memory-store.js';
import { exportTenant } from './export-tenant.js';

describe('an export beside writes', () => {
  it('misses no memory when an earlier one is deleted while it runs', async () => {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      sessionEnd: { idleMs: 0 },
      defaultSources: false,
    });
    // More than one page (500), with ties in creation time (one batch shares its time).
    const ids = Array.from({ length: 1_200 }, (_, index) => `m${String(index).padStart(4, '0')}`);
    for (let start = 0; start < ids.length; start += 300) {
      await engram.memories.create(
        'acme',
        ids.slice(start, start + 300).map((id) => ({ id, text: `Fact number ${id}.` })),
      );
    }
    const exported: string[] = [];
    for await (const line of exportTenant(engram.store, 'acme', { engramVersion: 'test' })) {
      if (line.type !== 'memory') continue;
      exported.push(line.memory.id);
      // A server deletes memories already written to the file.
      if (exported.length === 10) await engram.memories.delete('acme', ['m0000', 'm0001']);
      if (exported.length === 700) await engram.memories.delete('acme', ['m0600']);
    }
    expect(exported).toEqual(ids);
    await engram.close();
  }, 60_000);
});

describe('an export beside session and agent writes', () => {
  it('misses no session or agent when others are deleted or written while it lists them', async () => {
    const engram = await createEngram({
      store: createMemoryStore(),
      sweepIntervalMs: 0,
      sessionEnd: { idleMs: 0 },
      defaultSources: false,
    });
    // More than one page (500) of each.
    const names = Array.from({ length: 520 }, (_, index) => `s${String(index).padStart(4, '0')}`);
    const key = (sessionId: string) => ({ tenantId: 'acme', namespace: null, userId: null, sessionId });
    for (const name of names) {
      await engram.sessions.append(key(name), [{ role: 'user', content: `hello ${name}` }]);
      await engram.agents.create('acme', { id: name, systemPrompt: `Agent ${name}.` });
    }
    // After the first page of a listing, a server deletes one listed item and writes to another.
    let sessionsTouched = false;
    let agentsTouched = false;
    const touchSessions = async () => {
      if (sessionsTouched) return;
      sessionsTouched = true;
      await engram.sessions.delete(key('s0000'));
      await engram.sessions.delete(key('s0519'));
      await engram.sessions.append(key('s0001'), [{ role: 'user', content: 'again' }]);
      await engram.sessions.append(key('s0518'), [{ role: 'user', content: 'again' }]);
    };
    const documents = new Proxy(engram.store.documents, {
      get(target, property, receiver) {
        if (property !== 'listDocuments') return Reflect.get(target, property, receiver);
        return async (...args: Parameters<typeof target.listDocuments>) => {
          const page = await target.listDocuments(...args);
          if (args[1] === 'agents' && !agentsTouched) {
            agentsTouched = true;
            await engram.agents.delete('acme', 's0000');
          }
          return page;
        };
      },
    });
    const store = new Proxy(engram.store, {
      get(target, property, receiver) {
        if (property === 'documents') return documents;
        if (property !== 'listSessions' && property !== 'listIdleSessions') {
          return Reflect.get(target, property, receiver);
        }
        return async (query: never) => {
          const page = await (target[property] as (query: never) => Promise<unknown>)(query);
          await touchSessions();
          return page;
        };
      },
    });
    const sessions: string[] = [];
    const agents: string[] = [];
    for await (const line of exportTenant(store, 'acme', { engramVersion: 'test' })) {
      if (line.type === 'session') sessions.push(line.session.sessionId);
      if (line.type === 'agent') agents.push(line.id);
    }
    expect(sessions.sort()).toEqual(names.filter((name) => name !== 's0000' && name !== 's0519'));
    // s0000 was read before it was deleted.
    expect(agents.filter((id) => id !== 'default')).toEqual(names);
    await engram.close();
  }, 60_000);
});
