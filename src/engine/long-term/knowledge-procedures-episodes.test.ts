import { beforeAll, describe, expect, it } from 'vitest';
import { NotFoundError, ValidationError } from '../../core/errors.js';
import { cachedLinearPattern, UnsupportedPatternError } from '../../core/patterns/linear-pattern.js';
import { loadTokenCounter, type TokenCounter } from '../../core/tokens/token-counter.js';
import type { EmbeddingProvider } from '../../providers/embeddings/embedding-provider.js';
import { createStaticEmbeddingProvider } from '../../providers/embeddings/static-embedding-provider.js';
import { createMemoryRecordStore } from '../../stores/memory/memory-record-store.js';
import { createLongTermServices } from './long-term-services.js';
import { MAX_TRIGGER_INPUT_CHARS } from './procedure-library.js';

let embedder: EmbeddingProvider;
let counter: TokenCounter;
beforeAll(async () => {
  embedder = await createStaticEmbeddingProvider();
  counter = await loadTokenCounter('o200k_base');
});
const tenant = 'acme';
const services = () => createLongTermServices(createMemoryRecordStore(), embedder, counter, () => new Date());

const policy = `# HR Policy 2025
## Vacation
Employees get 25 days of paid vacation per year. Unused days carry over until March.
## Expenses
Submit receipts within 30 days through the expenses portal.`;

describe('knowledge base', () => {
  it('ingests a document into attributed chunks, lists, replaces and deletes it', async () => {
    const { knowledge, memories } = services();
    const document = await knowledge.ingest(tenant, {
      agentId: 'hr-bot',
      name: 'HR Policy 2025.md',
      content: policy,
    });
    expect(document.chunks).toBe(2);
    const { hits } = await memories.search(tenant, {
      text: 'how many vacation days do I get',
      filter: { agentId: { eq: 'hr-bot' }, documentId: { exists: true } },
    });
    expect(hits[0]?.memory.source).toBe('HR Policy 2025.md');
    expect(hits[0]?.memory.text).toContain('25 days of paid vacation');

    const replaced = await knowledge.ingest(tenant, {
      agentId: 'hr-bot',
      name: 'HR Policy 2025.md',
      content: '# HR Policy 2025\nEveryone gets 30 days of vacation.',
    });
    expect(replaced.documentId).toBe(document.documentId);
    expect(await knowledge.list(tenant, 'hr-bot')).toEqual([
      expect.objectContaining({ documentId: document.documentId, chunks: 1, name: 'HR Policy 2025.md' }),
    ]);
    expect(await knowledge.list(tenant, 'other-agent')).toEqual([]);
    expect(await knowledge.delete(tenant, 'hr-bot', document.documentId)).toBe(1);
    await expect(knowledge.delete(tenant, 'hr-bot', document.documentId)).rejects.toBeInstanceOf(
      NotFoundError,
    );
  });

  it('stores the same text for a second agent, and in a second document, as their own chunks', async () => {
    const { knowledge } = services();
    const content = '# Hours\nWe are open from 9 to 5.';
    const first = await knowledge.ingest(tenant, { agentId: 'hr-bot', name: 'hours.md', content });
    const second = await knowledge.ingest(tenant, { agentId: 'it-bot', name: 'hours.md', content });
    const copy = await knowledge.ingest(tenant, { agentId: 'hr-bot', name: 'copy.md', content });
    expect([first.chunks, second.chunks, copy.chunks]).toEqual([1, 1, 1]);
    expect(await knowledge.list(tenant, 'it-bot')).toEqual([
      expect.objectContaining({ documentId: second.documentId, chunks: 1 }),
    ]);
    expect((await knowledge.list(tenant, 'hr-bot')).map((document) => document.name)).toEqual([
      'copy.md',
      'hours.md',
    ]);
  });

  it('takes a heading longer than a topic as a topic cut to 256 characters, keeping it whole in metadata', async () => {
    const { knowledge, memories } = services();
    const heading = `Policy ${'é'.repeat(300)} 😀`;
    const document = await knowledge.ingest(tenant, {
      agentId: 'hr-bot',
      name: 'long-heading.md',
      content: `# ${heading}\nEmployees get 25 days of paid vacation.\n#\nNo heading text above.`,
    });
    expect(document.chunks).toBeGreaterThan(0);
    const { hits } = await memories.search(tenant, {
      text: 'vacation',
      filter: { agentId: { eq: 'hr-bot' } },
    });
    const chunk = hits[0]?.memory;
    expect(chunk?.topics[0]).toBe(heading.slice(0, 256));
    expect(chunk?.metadata.headings).toEqual([heading]);
  });

  it('rejects empty documents', async () => {
    await expect(
      services().knowledge.ingest(tenant, { agentId: 'a', name: 'empty.md', content: '  \n' }),
    ).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('procedures', () => {
  const refund = {
    agentId: 'support',
    name: 'Refund request',
    triggers: ['\\brefund\\b'],
    examples: ['I want my money back for a damaged order'],
    steps: ['Ask for the order number', 'Check the order is under 30 days old', 'Issue the refund'],
  };

  it('starts pending and is never matched until approved; rejected ones are never matched', async () => {
    const { procedures } = services();
    const created = await procedures.create(tenant, refund);
    expect(created.status).toBe('pending');
    expect(await procedures.match(tenant, 'support', 'I need a refund')).toBeNull();
    const approved = await procedures.approve(tenant, created.id);
    expect(approved).toMatchObject({ id: created.id, status: 'approved', version: 2 });
    expect((await procedures.match(tenant, 'support', 'Can I get a REFUND?'))?.matchedBy).toBe('trigger');
    expect(await procedures.match(tenant, 'other-agent', 'refund')).toBeNull();
    // Approving the same id again is not a conflict: it already is approved, nothing changes.
    expect(await procedures.approve(tenant, created.id)).toStrictEqual(approved);
    const rejected = await procedures.reject(tenant, created.id);
    expect(rejected).toMatchObject({ id: created.id, status: 'rejected', version: 3 });
    expect(await procedures.match(tenant, 'support', 'refund please')).toBeNull();
    expect((await procedures.list(tenant, 'support')).map((procedure) => procedure.id)).toEqual([created.id]);
  });

  it('keeps the id through edits and decisions, recording who wrote each version', async () => {
    const { procedures, memories } = services();
    const created = await procedures.create(tenant, refund, { writtenBy: 'llm' });
    await procedures.update(tenant, created.id, { steps: ['Ask for the order number', 'Issue the refund'] });
    await procedures.approve(tenant, created.id);
    const history = (await memories.history(tenant, created.id)).versions;
    expect(history.map((version) => [version.version, version.writtenBy, version.metadata.status])).toEqual([
      [3, 'user', 'approved'],
      [2, 'api', 'pending'],
      [1, 'llm', 'pending'],
    ]);
  });

  it("dedups within one agent only: another agent's same-named procedure is its own", async () => {
    const { procedures } = services();
    const mine = await procedures.create(tenant, refund);
    const theirs = await procedures.create(tenant, { ...refund, agentId: 'billing' });
    expect(theirs).toMatchObject({ agentId: 'billing', deduplicated: false });
    expect(theirs.id).not.toBe(mine.id);
    expect((await procedures.list(tenant, 'billing')).map((procedure) => procedure.id)).toEqual([theirs.id]);
    expect((await procedures.list(tenant, 'support')).map((procedure) => procedure.id)).toEqual([mine.id]);
  });

  it('keeps a procedure with the same name but other steps, and reports a true duplicate', async () => {
    const { procedures } = services();
    const first = await procedures.create(tenant, refund);
    expect(first.deduplicated).toBe(false);
    const other = await procedures.create(tenant, { ...refund, steps: ['Escalate to a manager'] });
    expect(other).toMatchObject({ deduplicated: false, steps: ['Escalate to a manager'] });
    expect(other.id).not.toBe(first.id);
    const same = await procedures.create(tenant, refund);
    expect(same).toMatchObject({ id: first.id, deduplicated: true, agentId: 'support' });
    expect(await procedures.list(tenant, 'support')).toHaveLength(2);
  });

  it('tries triggers on the start of a message only (a bounded input for any pattern)', async () => {
    const { procedures } = services();
    const created = await procedures.create(tenant, { ...refund, examples: [] });
    await procedures.approve(tenant, created.id);
    const padding = 'word '.repeat(MAX_TRIGGER_INPUT_CHARS / 5);
    expect((await procedures.match(tenant, 'support', `refund ${padding}`))?.matchedBy).toBe('trigger');
    expect(await procedures.match(tenant, 'support', `${padding} refund`)).toBeNull();
  });

  it('runs an approved (a+)+$ trigger on RE2: a near-miss answers at once instead of backtracking', async () => {
    const { procedures } = services();
    const created = await procedures.create(tenant, { ...refund, triggers: ['(a+)+$'], examples: [] });
    await procedures.approve(tenant, created.id);
    // 30 `a` and `!` took 13 s on a backtracking engine (doubling per `a`): over the test timeout.
    expect(await procedures.match(tenant, 'support', `${'a'.repeat(30)}!`)).toBeNull();
    expect((await procedures.match(tenant, 'support', 'a'.repeat(30)))?.matchedBy).toBe('trigger');
    expect(cachedLinearPattern('(a+)+$').engine).toBe('re2js');
  });

  it('falls back to example similarity when no trigger matches', async () => {
    const { procedures } = services();
    const created = await procedures.create(tenant, { ...refund, triggers: [] });
    await procedures.approve(tenant, created.id);
    const match = await procedures.match(
      tenant,
      'support',
      'I want my money back, the order arrived damaged',
    );
    expect(match?.matchedBy).toBe('example');
    expect(await procedures.match(tenant, 'support', 'What is the weather in Paris tomorrow?')).toBeNull();
  });

  it('stores a procedure at every limit (a name of 200, 20 examples of 1,000, 50 steps of 2,000 characters)', async () => {
    const { procedures } = services();
    // Three UTF-8 bytes a character: the metadata that holds steps and examples is at its largest.
    const wide = (prefix: string, length: number) => `${prefix} ${'中'.repeat(length - prefix.length - 1)}`;
    const procedure = await procedures.create(tenant, {
      agentId: 'support',
      name: 'N'.repeat(200),
      triggers: Array.from(
        { length: 20 },
        (_, index) => `${'t'.repeat(290)}${String(index).padStart(3, '0')}`,
      ),
      examples: Array.from({ length: 20 }, (_, index) =>
        wide(`example ${String(index).padStart(3, '0')}`, 1_000),
      ),
      steps: Array.from({ length: 50 }, (_, index) => wide(`step ${String(index).padStart(3, '0')}`, 2_000)),
    });
    expect(procedure.examples).toHaveLength(20);
    expect(procedure.examples.every((example) => example.length === 1_000)).toBe(true);
    expect(procedure.steps.every((step) => step.length === 2_000)).toBe(true);
    expect(procedure.triggers).toHaveLength(20);
  });

  it('an edit of a decided procedure’s content needs a new decision, unless the editor may decide', async () => {
    const { procedures } = services();
    const created = await procedures.create(tenant, {
      agentId: 'support',
      name: 'Refunds',
      steps: ['Check the order'],
    });
    await procedures.approve(tenant, created.id);
    const edited = await procedures.update(tenant, created.id, { steps: ['Refund at once'] });
    expect(edited).toMatchObject({ id: created.id, status: 'pending', steps: ['Refund at once'] });
    await procedures.reject(tenant, created.id);
    expect((await procedures.update(tenant, created.id, { name: 'Refunds v2' })).status).toBe('pending');
    await procedures.approve(tenant, created.id);
    const kept = await procedures.update(
      tenant,
      created.id,
      { steps: ['Check, then refund'] },
      { keepDecision: true },
    );
    expect(kept.status).toBe('approved');
    // Sending the same content again is no change: the decision stands.
    expect((await procedures.update(tenant, created.id, { steps: ['Check, then refund'] })).status).toBe(
      'approved',
    );
  });

  it('names an unknown procedure as a procedure', async () => {
    const { procedures } = services();
    await expect(procedures.approve(tenant, 'nope')).rejects.toThrow('Procedure nope not found');
  });

  it('validates triggers and steps', async () => {
    const { procedures } = services();
    await expect(procedures.create(tenant, { ...refund, triggers: ['(unclosed'] })).rejects.toBeInstanceOf(
      UnsupportedPatternError,
    );
    await expect(procedures.create(tenant, { ...refund, triggers: ['refund(?!ed)'] })).rejects.toMatchObject({
      code: 'unsupported_pattern',
      httpStatus: 422,
      message: expect.stringContaining('negative lookahead'),
    });
    const created = await procedures.create(tenant, refund);
    await expect(procedures.update(tenant, created.id, { triggers: ['(a)\\1'] })).rejects.toMatchObject({
      code: 'unsupported_pattern',
      message: expect.stringContaining('backreferences'),
    });
    await expect(procedures.create(tenant, { ...refund, steps: [] })).rejects.toBeInstanceOf(ValidationError);
  });
});

describe('episodes', () => {
  it('records episodes and finds them for the same user only', async () => {
    const { episodes } = services();
    await episodes.record(tenant, {
      userId: 'ada',
      summary: 'Ada planned a sailing trip to the Azores with her sister.',
      keyFacts: ['Trip planned for July'],
    });
    await episodes.record(tenant, { userId: 'ada', summary: 'Ada asked for help with her tax return.' });
    await episodes.record(tenant, { userId: 'bob', summary: 'Bob planned a sailing trip too.' });
    const found = await episodes.search(tenant, { userId: 'ada', query: 'sailing trip plans', limit: 1 });
    expect(found).toHaveLength(1);
    expect(found[0]?.episode.keyFacts).toEqual(['Trip planned for July']);
    expect(found[0]?.episode.userId).toBe('ada');
  });
});
