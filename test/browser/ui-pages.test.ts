import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser, startUiServer, type UiServer } from '../../scripts/ui-browser.js';
import { type DemoData, jsonClient, seedDemoData } from '../../scripts/ui-demo-data.js';

if (!hasChromium) {
  console.warn('test/browser skipped: no Chromium at /usr/bin/chromium (apt-get install -y chromium)');
}

interface TraceBody {
  sections: { name: string; items: { id: string; included: boolean; reason: string }[] }[];
}

/** The web UI against a real server (authentication off, loopback) in headless Chromium. */
describe.skipIf(!hasChromium)('web UI pages and flows', () => {
  let server: UiServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let demo: DemoData;
  let call: ReturnType<typeof jsonClient>;
  let scope: string;

  beforeAll(async () => {
    server = await startUiServer();
    call = jsonClient(server.url);
    demo = await seedDemoData(call);
    scope = new URLSearchParams(demo.session).toString();
    browser = await launchBrowser();
    context = browser.context;
    context.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const pages = (): [string, string][] => [
    [`#/sessions?${scope}`, 'Sessions'],
    [`#/inspector?${scope}`, 'Context Inspector'],
    [`#/working-set?${scope}&query=delivery`, 'Working set'],
    ['#/memories', 'Long-term memory'],
    ['#/procedures', 'Procedures & knowledge'],
    ['#/jobs', 'Background jobs'],
  ];

  /** A new tab that records console errors and uncaught exceptions. */
  async function open(hash: string): Promise<{ page: Page; errors: string[] }> {
    const page = await context.newPage();
    const errors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    await page.goto(`${server.url}/ui/${hash}`);
    await page.locator('main h1').waitFor();
    await page.waitForLoadState('networkidle');
    return { page, errors };
  }

  /** Assembles a turn through the API, as an agent would after the operator's change. */
  const contextFor = async (message: string, agentId = demo.agentId) =>
    (await call('POST', '/v1/context', { agent_id: agentId, ...demo.session, message })).trace as TraceBody;
  const itemsOf = (trace: TraceBody, section: string) =>
    trace.sections.find((entry) => entry.name === section)?.items ?? [];

  it('loads every page without console errors', async () => {
    for (const [hash, title] of pages()) {
      const { page, errors } = await open(hash);
      expect(await page.locator('main h1').textContent()).toBe(title);
      expect(await page.locator('[role="alert"]').count()).toBe(0);
      expect(errors, `${title}: ${errors.join('; ')}`).toEqual([]);
      await page.close();
    }
  });

  it('shows the messages the running summary covers in a fold, collapsed, with their count', async () => {
    const ref = { session_id: 'chat-43', namespace: 'support', user_id: 'ada' };
    const query = new URLSearchParams(ref).toString();
    await call('POST', `/v1/working-memory/${ref.session_id}/messages?${query}`, {
      messages: [
        { role: 'user', content: 'My toaster burns one side.' },
        { role: 'assistant', content: 'Which model is it?' },
        { role: 'user', content: 'The T-100.' },
      ],
    });
    // The summary mark as the summarizer job would record it: the first two messages.
    await server.engram.sessions.recordSummary(
      { sessionId: ref.session_id, namespace: ref.namespace, userId: ref.user_id },
      { context: 'Ada’s toaster burns one side.', throughSeq: 2, expectedThroughSeq: 0 },
    );
    const { page, errors } = await open(`#/sessions?${query}`);
    const fold = page.locator('details.summarized-messages');
    await fold.waitFor();
    expect(await fold.locator('summary').textContent()).toBe('2 summarized messages: show them');
    expect(await fold.getAttribute('open')).toBeNull();
    expect(await page.getByText('My toaster burns one side.').count()).toBe(0);
    expect(await page.locator('.messages li').allTextContents()).toEqual([
      expect.stringContaining('The T-100.'),
    ]);
    await fold.locator('summary').click();
    const folded = fold.locator('.messages li');
    await expect.poll(() => folded.count()).toBe(2);
    expect(await folded.nth(0).textContent()).toContain('My toaster burns one side.');
    expect(await folded.nth(1).textContent()).toContain('Which model is it?');
    expect(await folded.locator('.badge').allTextContents()).toEqual(['summarized', 'summarized']);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('is usable by keyboard and fits a narrow window', async () => {
    const { page } = await open(`#/sessions?${scope}`);
    // Every navigation landmark has a name of its own (the main one and the pager's).
    const landmarks = await page
      .getByRole('navigation')
      .evaluateAll((navs) => navs.map((nav) => nav.getAttribute('aria-label')));
    expect(landmarks).toEqual(['Main', 'Pages of sessions']);
    let focused = '';
    for (let step = 0; step < 12 && focused !== 'Background jobs'; step++) {
      await page.keyboard.press('Tab');
      focused = String(await page.evaluate('document.activeElement?.textContent ?? ""'));
    }
    expect(focused).toBe('Background jobs');
    await page.keyboard.press('Enter');
    await expect.poll(() => page.locator('main h1').textContent()).toBe('Background jobs');
    await page.setViewportSize({ width: 400, height: 800 });
    for (const [hash, title] of pages()) {
      await page.goto(`${server.url}/ui/${hash}`);
      await page.waitForLoadState('networkidle');
      // Wide tables scroll inside their frame; the page itself never scrolls sideways.
      expect(await page.evaluate('document.documentElement.scrollWidth <= window.innerWidth'), title).toBe(
        true,
      );
    }
    await page.close();
  });

  it('shows a session’s turns with the budget bar and every candidate’s reason', async () => {
    const { page } = await open(`#/inspector?${scope}`);
    await expect.poll(() => page.locator('.turns li').count()).toBe(5);
    const bar = await page.locator('.budget-bar').getAttribute('aria-label');
    expect(bar).toMatch(/^Budget of 4000 tokens: system \d+, procedure \d+, knowledge \d+/);
    // The newest turn: the demo's pinned memory is included; the candidates past the knowledge
    // limit are excluded, each with its reason (a memory the session removed, when the query
    // finds it, is excluded as removed_by_user: see the remove flow below).
    const row = (id: string) =>
      page.locator('tr', { has: page.getByRole('button', { name: `Show the content of ${id}` }) }).first();
    await expect.poll(() => row('fact-5').locator('.reason').textContent()).toBe('included');
    const excluded = page.locator('tr.excluded');
    expect(await excluded.count()).toBeGreaterThan(0);
    expect(new Set(await page.locator('tr.excluded td:nth-child(3)').allTextContents())).toEqual(
      new Set(['excluded']),
    );
    expect(await excluded.locator('.reason').allTextContents()).toContain('over_limit');
    // Each turn's compare box is named by its turn (newest is turn 5).
    await expect.poll(() => page.getByRole('checkbox', { name: /^Compare turn 5, / }).count()).toBe(1);
    expect(await page.getByRole('checkbox', { name: /^Compare turn 1, / }).count()).toBe(1);
    await page.getByRole('button', { name: 'Show the content of fact-5' }).first().click();
    await expect
      .poll(() => page.locator('pre.content').allTextContents())
      .toContain('Ada is a member of the Acme loyalty programme (gold).');
    // Score components per memory: the working-set parts of a fact, the search parts of a chunk.
    const parts = page.locator('[aria-label="Score components of fact-5"]').first();
    expect(await parts.locator('dt').allTextContents()).toEqual(
      expect.arrayContaining(['similarity', 'decayed salience', 'confidence', 'weight similarity']),
    );
    expect(
      Number(
        await parts
          .locator('.component', { hasText: 'confidence' })
          .first()
          .locator('.score-value')
          .textContent(),
      ),
    ).toBeGreaterThan(0);
    expect(await page.locator('.components dt', { hasText: 'relevance' }).count()).toBeGreaterThan(0);
    await page.close();
  });

  it('pin a block → the next /v1/context includes it', async () => {
    await call('POST', '/v1/agents', { id: 'narrow', memory: { semantic_top_k: 1 } });
    const message = 'Where does Ada live?';
    const before = itemsOf(await contextFor(message, 'narrow'), 'knowledge');
    expect(before.find((item) => item.id === 'fact-2')?.included ?? false).toBe(false);

    const { page } = await open(`#/working-set?${scope}&query=kettle`);
    await page.getByRole('button', { name: 'Pin fact-2' }).click();
    await page.getByRole('button', { name: 'Unpin fact-2' }).waitFor();
    const after = itemsOf(await contextFor(message, 'narrow'), 'knowledge');
    expect(after.find((item) => item.id === 'fact-2')?.included).toBe(true);
    await page.close();
  });

  it('remove → excluded, with the reason shown, and left out of the next context', async () => {
    const message = 'Does Ada prefer refunds or replacements?';
    expect(
      itemsOf(await contextFor(message), 'knowledge').some((item) => item.id === 'fact-1' && item.included),
    ).toBe(true);
    const { page } = await open(`#/working-set?${scope}&query=refunds`);
    await page.getByRole('button', { name: 'Remove fact-1' }).click();
    const excluded = page.locator('.excluded-list li', { hasText: 'fact-1' });
    await excluded.waitFor();
    expect(await excluded.locator('.reason').textContent()).toBe('removed_by_user');
    // The next turn's trace (what the Inspector shows) has it excluded with the same reason.
    expect(itemsOf(await contextFor(message), 'knowledge').filter((item) => item.id === 'fact-1')).toEqual([
      expect.objectContaining({ included: false, reason: 'removed_by_user' }),
    ]);
    // The preview shows the same assembly without recording a turn.
    const { total } = (await call(
      'GET',
      `/v1/inspector/sessions/${demo.session.session_id}/traces?${new URLSearchParams({ namespace: 'support', user_id: 'ada' })}`,
    )) as { total: number };
    await page.getByLabel('Agent').fill(demo.agentId);
    await page.getByLabel('Message', { exact: true }).fill(message);
    await page.getByRole('button', { name: 'Preview (no write)' }).click();
    await page.locator('.preview').waitFor();
    expect(await page.locator('.preview').textContent()).not.toContain('Ada prefers replacements');
    const after = (await call(
      'GET',
      `/v1/inspector/sessions/${demo.session.session_id}/traces?${new URLSearchParams({ namespace: 'support', user_id: 'ada' })}`,
    )) as { total: number };
    expect(after.total).toBe(total);
    await page.close();
  });

  it('approve a proposed procedure → it appears in the next context', async () => {
    const message = 'Can it come in the evening?';
    const included = async () =>
      itemsOf(await contextFor(message), 'procedure').some((item) => item.included);
    expect(await included()).toBe(false);
    const { page } = await open('#/procedures');
    await page.getByLabel('Agent').selectOption(demo.agentId);
    await page.getByRole('button', { name: 'Approve Evening delivery' }).click();
    await page.getByText('No pending procedures.').waitFor();
    expect(await included()).toBe(true);
    await page.close();
  });

  it('uploads a knowledge document with progress and shows its chunks', async () => {
    const { page } = await open('#/procedures');
    await page.getByLabel('Agent').selectOption(demo.agentId);
    await page.getByLabel('Document (Markdown or text)').setInputFiles({
      name: 'Warranty.md',
      mimeType: 'text/markdown',
      buffer: Buffer.from('# Warranty\n\n## Kettles\nTwo years, parts and labour.\n'),
    });
    await page.getByRole('button', { name: 'Upload' }).click();
    await page.locator('summary', { hasText: 'Warranty.md' }).click();
    await page.getByText('Two years, parts and labour.').waitFor();
    expect(await page.locator('progress').getAttribute('value')).toBe('1');
    const { documents } = (await call('GET', `/v1/agents/${demo.agentId}/knowledge`)) as {
      documents: { name: string }[];
    };
    expect(documents.map((document) => document.name)).toContain('Warranty.md');
    await page.close();
  });

  it('searches long-term memory with filters', async () => {
    const { page } = await open('#/memories');
    const texts = () => page.locator('tbody button.link').allTextContents();
    await page.getByLabel('Topics (comma-separated)').fill('profile');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect
      .poll(async () => (await texts()).sort())
      .toEqual([
        'Ada is a member of the Acme loyalty programme (gold).',
        'Ada lives in Lyon and orders in French or English.',
      ]);
    await page.getByLabel('Topics (comma-separated)').fill('');
    await page.getByLabel('Type').selectOption('episodic');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(async () => (await texts()).length).toBe(1);
    expect((await texts())[0]).toContain('blender');
    await page.close();
  });

  it('sorts long-term memory by date over the whole result, not just the page', async () => {
    // 30 records, more than a page of 25: the oldest is on no first page ordered newest first.
    const day = (index: number) => new Date(Date.UTC(2020, 0, 1 + index)).toISOString();
    await call('POST', '/v1/long-term-memory/', {
      memories: Array.from({ length: 30 }, (_, index) => ({
        id: `sorted-${index}`,
        text: `Sorted record number ${index}.`,
        namespace: 'sorting',
        created_at: day(index),
      })),
    });
    const { page } = await open('#/memories');
    const first = () => page.locator('tbody button.link').first().textContent();
    const form = page.getByRole('form', { name: 'Search long-term memory' });
    // The select's label wraps its options, so it is found by name.
    const sort = form.locator('select[name="sort"]');
    await form.getByLabel('Namespace').fill('sorting');
    await sort.selectOption('oldest');
    await form.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(first).toBe('Sorted record number 0.');
    await sort.selectOption('newest');
    await form.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(first).toBe('Sorted record number 29.');
    await form.getByLabel('Search', { exact: true }).fill('sorted record');
    await sort.selectOption('oldest');
    await form.getByRole('button', { name: 'Search', exact: true }).click();
    await expect.poll(first).toBe('Sorted record number 0.');
    await page.close();
  });

  it('a long history → older versions a page at a time', async () => {
    // 101 versions: the first page holds the newest 100 (the route's default limit).
    await call('POST', '/v1/long-term-memory/', {
      memories: [{ id: 'often-edited', text: 'Revised note, version 1.', namespace: 'history-pages' }],
    });
    for (let version = 2; version <= 101; version++)
      await call('PATCH', '/v1/long-term-memory/often-edited', {
        text: `Revised note, version ${version}.`,
      });
    const { page, errors } = await open('#/memories');
    await page.getByLabel('Search', { exact: true }).fill('Revised note');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Revised note, version 101.' }).click();
    const versions = page.locator('.versions li');
    await expect.poll(() => versions.count()).toBe(100);
    expect(await versions.last().textContent()).toContain('Revised note, version 2.');
    await page.getByRole('button', { name: 'Older versions' }).click();
    await expect.poll(() => versions.count()).toBe(101);
    expect(await versions.last().textContent()).toContain('Revised note, version 1.');
    expect(await page.getByRole('button', { name: 'Older versions' }).count()).toBe(0);
    expect(errors).toEqual([]);
    await page.close();
  });

  it('edit a memory → its history shows both versions', async () => {
    const { page } = await open('#/memories');
    await page.getByLabel('Search', { exact: true }).fill('Lyon');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Ada lives in Lyon and orders in French or English.' }).click();
    await page.getByRole('button', { name: 'Edit' }).click();
    await page.getByLabel('Text', { exact: true }).fill('Ada moved from Lyon to Grenoble.');
    await page.getByRole('button', { name: 'Save as a new version' }).click();
    await page.locator('.memory-text', { hasText: 'Grenoble' }).waitFor();
    const versions = page.locator('.versions li');
    await expect.poll(() => versions.count()).toBe(2);
    expect(await versions.nth(0).textContent()).toContain('Ada moved from Lyon to Grenoble.');
    expect(await versions.nth(1).textContent()).toContain(
      'Ada lives in Lyon and orders in French or English.',
    );
    await page.close();
  });
});
