import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import { hashUsesOwnerFields, memoryHash } from './memory-hash.js';

const fact = {
  text: 'Ada likes tea.',
  userId: 'ada',
  sessionId: null,
  namespace: 'app',
  memoryType: 'semantic',
};
const procedure = {
  text: 'Refund',
  userId: null,
  sessionId: null,
  namespace: null,
  memoryType: 'procedural',
  agentId: 'support',
  metadata: {
    name: 'Refund',
    triggers: ['refund'],
    examples: [],
    steps: ['Ask for the order'],
    status: 'pending',
  },
};

describe('memoryHash', () => {
  it("is AMS's hash for a record without engram's owner fields", () => {
    const canonical = JSON.stringify([
      ['memory_type', 'semantic'],
      ['namespace', 'app'],
      ['session_id', null],
      ['text', 'Ada likes tea.'],
      ['user_id', 'ada'],
    ]);
    const ams = createHash('sha256').update(canonical).digest('hex');
    expect(memoryHash(fact)).toBe(ams);
    expect(memoryHash({ ...fact, agentId: null, documentId: null })).toBe(ams);
  });

  it('tells owners apart: agent and knowledge document', () => {
    const hashes = new Set([
      memoryHash(fact),
      memoryHash({ ...fact, agentId: 'a' }),
      memoryHash({ ...fact, agentId: 'b' }),
      memoryHash({ ...fact, agentId: 'a', documentId: 'd1' }),
      memoryHash({ ...fact, agentId: 'a', documentId: 'd2' }),
    ]);
    expect(hashes.size).toBe(5);
  });

  it("covers a procedure's name, steps, triggers and examples, but not its status", () => {
    const base = memoryHash(procedure);
    const steps = { ...procedure.metadata, steps: ['Escalate'] };
    expect(memoryHash({ ...procedure, metadata: steps })).not.toBe(base);
    const triggers = { ...procedure.metadata, triggers: ['money back'] };
    expect(memoryHash({ ...procedure, metadata: triggers })).not.toBe(base);
    const examples = { ...procedure.metadata, examples: ['I want my money back'] };
    expect(memoryHash({ ...procedure, metadata: examples })).not.toBe(base);
    // The name is part of the meaning even where the searchable text stays the same.
    const renamed = { ...procedure.metadata, name: 'Refund request' };
    expect(memoryHash({ ...procedure, metadata: renamed })).not.toBe(base);
    const approved = { ...procedure.metadata, status: 'approved', version: 2 };
    expect(memoryHash({ ...procedure, metadata: approved })).toBe(base);
  });

  it('names the records whose hash uses more than AMS fields: an owner or a procedure', () => {
    expect(hashUsesOwnerFields({ memoryType: 'semantic', agentId: null, documentId: null })).toBe(false);
    expect(hashUsesOwnerFields({ memoryType: 'semantic', agentId: 'bot' })).toBe(true);
    expect(hashUsesOwnerFields({ memoryType: 'semantic', documentId: 'doc' })).toBe(true);
    expect(hashUsesOwnerFields({ memoryType: 'procedural' })).toBe(true);
    // Exactly the records whose hash differs from the AMS-fields-only one.
    const plain = { text: 't', userId: null, sessionId: null, namespace: null, memoryType: 'semantic' };
    expect(memoryHash({ ...plain, agentId: 'bot' })).not.toBe(memoryHash(plain));
  });
});
