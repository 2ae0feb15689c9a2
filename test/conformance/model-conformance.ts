import fc from 'fast-check';
import { expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../src/core/errors.js';
import { applyMergePatch } from '../../src/core/merge-patch.js';
import type { JsonObject } from '../../src/core/schemas/json.js';
import type { NewMessage } from '../../src/core/schemas/message.js';
import type { SessionKey } from '../../src/core/schemas/session.js';
import type { SessionStore } from '../../src/stores/session-store.js';
import { type ConformanceContext, ids, message, sessionKey, sessionWrite } from './fixtures.js';

type Command =
  | { kind: 'append'; count: number; duplicate: boolean }
  | { kind: 'put'; count: number; data: JsonObject | null }
  | { kind: 'patch'; dataPatch: JsonObject };

/** What the session should hold, kept the obvious way. Seqs are checked by rule, not predicted. */
interface Model {
  version: number;
  messages: NewMessage[];
  data: JsonObject | null;
  highestSeq: number;
}

const dataArbitrary: fc.Arbitrary<JsonObject> = fc.dictionary(
  fc.constantFrom('a', 'b', 'c'),
  fc.oneof(fc.integer({ min: 0, max: 9 }), fc.constant(null), fc.constant({ nested: 1 })),
  { maxKeys: 3 },
);

const commandArbitrary: fc.Arbitrary<Command> = fc.oneof(
  fc.record({
    kind: fc.constant('append' as const),
    count: fc.integer({ min: 0, max: 3 }),
    duplicate: fc.boolean(),
  }),
  fc.record({
    kind: fc.constant('put' as const),
    count: fc.integer({ min: 0, max: 3 }),
    data: fc.option(dataArbitrary, { nil: null }),
  }),
  fc.record({ kind: fc.constant('patch' as const), dataPatch: dataArbitrary }),
);

/** Applies one command to the store and the model; returns the seqs the store assigned. */
async function step(
  store: SessionStore,
  key: SessionKey,
  model: Model,
  command: Command,
  fresh: () => NewMessage[],
) {
  if (command.kind === 'patch') {
    if (model.version === 0) {
      await expect(store.patchSession(key, { dataPatch: command.dataPatch })).rejects.toBeInstanceOf(
        NotFoundError,
      );
      return [];
    }
    await store.patchSession(key, { dataPatch: command.dataPatch });
    model.data = applyMergePatch(model.data, command.dataPatch) as JsonObject;
    model.version += 1;
    return [];
  }
  const messages = fresh();
  const existing = model.messages[0];
  if (command.kind === 'append' && command.duplicate && existing) {
    await expect(store.appendMessages(key, [...messages, existing])).rejects.toBeInstanceOf(ValidationError);
    return [];
  }
  if (command.kind === 'append') {
    const result = await store.appendMessages(key, messages);
    model.messages.push(...messages);
    model.version += 1;
    return result.messages.map((item) => item.seq);
  }
  await store.putSession(key, sessionWrite({ messages, data: command.data }));
  model.messages = messages;
  model.data = command.data;
  model.version += 1;
  return (await store.readMessages(key, { order: 'oldest-first' })).map((item) => item.seq);
}

/** A random mix of writes leaves the driver agreeing with a simple model. */
export function describeModelConformance(context: ConformanceContext): void {
  it('agrees with a simple model over random sequences of appends, puts and patches', async () => {
    let run = 0;
    await fc.assert(
      fc.asyncProperty(fc.array(commandArbitrary, { maxLength: 12 }), async (commands) => {
        const { store } = context;
        run += 1;
        const key = sessionKey(`model-${run}`);
        const model: Model = { version: 0, messages: [], data: null, highestSeq: 0 };
        let counter = 0;
        const fresh = (count: number) => () =>
          Array.from({ length: count }, () => message(`r${run}-m${counter++}`, { tokenCount: counter % 5 }));
        for (const command of commands) {
          const count = command.kind === 'patch' ? 0 : command.count;
          const assigned = await step(store, key, model, command, fresh(count));
          // Seqs a write assigns are increasing and above every seq the session ever had.
          for (const seq of assigned) {
            expect(seq).toBeGreaterThan(model.highestSeq);
            model.highestSeq = seq;
          }
          const session = await store.getSession(key);
          if (model.version === 0) {
            expect(session).toBeNull();
            continue;
          }
          const tokens = model.messages.reduce((sum, item) => sum + item.tokenCount, 0);
          expect(session).toMatchObject({ version: model.version, data: model.data, tokenCount: tokens });
          expect(session?.messageCount).toBe(model.messages.length);
          expect(session?.lastSeq).toBe(model.highestSeq);
          const stored = await store.readMessages(key, { order: 'oldest-first' });
          expect(ids(stored)).toEqual(ids(model.messages));
        }
      }),
      { numRuns: 60 },
    );
  });
}
