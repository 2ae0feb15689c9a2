import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser, startUiServer, type UiServer } from '../../scripts/ui-browser.js';
import { type DemoData, jsonClient, seedDemoData } from '../../scripts/ui-demo-data.js';

if (!hasChromium) {
  console.warn('test/browser skipped: no Chromium at /usr/bin/chromium (apt-get install -y chromium)');
}

interface TraceBody {
  sections: { name: string; items: { id: string; kind: string; included: boolean }[] }[];
}

/**
 * State that must not outlive what it was about (a draft, a notice, a loaded record of another
 * memory or session), the forget limit, what owned records offer, and what long lists read.
 */
describe.skipIf(!hasChromium)('web UI: state per item, limits and windows', () => {
  let server: UiServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  let demo: DemoData;
  let call: ReturnType<typeof jsonClient>;

  beforeAll(async () => {
    server = await startUiServer();
    call = jsonClient(server.url);
    demo = await seedDemoData(call);
    browser = await launchBrowser();
    context = browser.context;
    context.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new tab that records the API requests it sends, console errors, and accepts confirms. */
  async function open(hash: string) {
    const page = await context.newPage();
    const errors: string[] = [];
    const requests: { method: string; url: string }[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error') errors.push(message.text());
    });
    page.on('pageerror', (error) => errors.push(error.message));
    page.on('dialog', (dialog) => dialog.accept());
    page.on('request', (request) => {
      const url = request.url();
      if (url.includes('/v1/'))
        requests.push({ method: request.method(), url: decodeURI(url.slice(server.url.length)) });
    });
    await page.goto(`${server.url}/ui/${hash}`);
    await page.locator('main h1').waitFor();
    await page.waitForLoadState('networkidle');
    return { page, errors, requests };
  }

  const status = async (path: string) => (await fetch(`${server.url}${path}`)).status;

  async function searchNamespace(page: Page, namespace: string) {
    const form = page.getByRole('form', { name: 'Search long-term memory' });
    await form.getByLabel('Namespace').fill(namespace);
    await form.getByRole('button', { name: 'Search', exact: true }).click();
  }

  const panel = (page: Page) => page.getByRole('region', { name: 'Memory' });
  const shownId = (page: Page) => panel(page).locator('dd code').first().textContent();

  it('an open edit draft stays with its memory: opening another one shows that one, unedited', async () => {
    await call('POST', '/v1/long-term-memory/', {
      memories: [
        { id: 'draft-a', text: 'Draft test A: original text.', namespace: 'drafts' },
        { id: 'draft-b', text: 'Draft test B: original text.', namespace: 'drafts' },
      ],
    });
    const { page, requests, errors } = await open('#/memories');
    await searchNamespace(page, 'drafts');
    await page.getByRole('button', { name: 'Draft test A: original text.' }).click();
    await expect.poll(() => shownId(page)).toBe('draft-a');
    await page.getByRole('button', { name: 'Edit', exact: true }).click();
    await page.getByLabel('Text', { exact: true }).fill('Draft test A: edited.');
    await page.getByRole('button', { name: 'Draft test B: original text.' }).click();
    await expect.poll(() => shownId(page)).toBe('draft-b');
    // No editor carried over: B's own text, and nothing for "Save" to send to B.
    expect(await page.locator('textarea[name="memory-text"]').count()).toBe(0);
    expect(await panel(page).locator('.memory-text').textContent()).toBe('Draft test B: original text.');
    expect(requests.filter((request) => request.method === 'PATCH')).toEqual([]);
    expect(((await call('GET', '/v1/long-term-memory/draft-b')) as { text: string }).text).toBe(
      'Draft test B: original text.',
    );
    expect(errors).toEqual([]);
    await page.close();
  });

  it('while the next memory loads, Delete cannot delete the one shown before', async () => {
    await call('POST', '/v1/long-term-memory/', {
      memories: [
        { id: 'stale-a', text: 'Stale test A: keep me.', namespace: 'stale' },
        { id: 'stale-b', text: 'Stale test B: delete me.', namespace: 'stale' },
      ],
    });
    const { page, requests } = await open('#/memories');
    await searchNamespace(page, 'stale');
    await page.getByRole('button', { name: 'Stale test A: keep me.' }).click();
    await expect.poll(() => shownId(page)).toBe('stale-a');
    // B's record answers slowly: A's must not stand in for it meanwhile.
    let release = () => {};
    const held = new Promise<void>((resolve) => {
      release = resolve;
    });
    await page.route('**/v1/long-term-memory/stale-b', async (route) => {
      await held;
      await route.continue();
    });
    await page.getByRole('button', { name: 'Stale test B: delete me.' }).click();
    const deleteButtons = panel(page).getByRole('button', { name: 'Delete (all versions)' });
    const enabledDeletes = () =>
      deleteButtons.evaluateAll(
        (buttons) =>
          buttons.filter((button) => !(button as unknown as { disabled: boolean }).disabled).length,
      );
    expect(await enabledDeletes()).toBe(0);
    expect(await panel(page).getByText('Stale test A: keep me.').count()).toBe(0);
    release();
    await expect.poll(() => shownId(page)).toBe('stale-b');
    await expect.poll(enabledDeletes).toBe(1);
    await deleteButtons.click();
    await expect.poll(() => status('/v1/long-term-memory/stale-b')).toBe(404);
    expect(await status('/v1/long-term-memory/stale-a')).toBe(200);
    expect(requests.filter((request) => request.method === 'DELETE').map((request) => request.url)).toEqual([
      '/v1/long-term-memory?memory_ids=stale-b',
    ]);
    await page.close();
  });

  it('a knowledge chunk offers no edit or delete, and says where it changes', async () => {
    const { page } = await open('#/memories');
    await page.getByLabel('Search', { exact: true }).fill('refunds original payment method');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: /^Returns policy > Refunds/ }).click();
    const owned = panel(page).locator('.notice.owned');
    await owned.waitFor();
    expect(await owned.textContent()).toContain(`knowledge document`);
    expect(await owned.getByRole('link', { name: 'Procedures & knowledge' }).getAttribute('href')).toBe(
      `#/procedures?agent_id=${demo.agentId}`,
    );
    expect(await panel(page).getByRole('button', { name: 'Edit', exact: true }).count()).toBe(0);
    expect(await panel(page).getByRole('button', { name: 'Delete (all versions)' }).count()).toBe(0);
    // A free-standing memory keeps both, enabled once loaded.
    await page.getByLabel('Search', { exact: true }).fill('Ada prefers replacements');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('button', { name: 'Ada prefers replacements over refunds.' }).click();
    await expect.poll(() => shownId(page)).toBe('fact-1');
    await expect
      .poll(() => panel(page).getByRole('button', { name: 'Edit', exact: true }).isEnabled())
      .toBe(true);
    expect(await panel(page).locator('.notice.owned').count()).toBe(0);
    await page.close();
  });

  it('a failed bulk delete’s error is cleared by the next delete that succeeds', async () => {
    await call('POST', '/v1/long-term-memory/', {
      memories: [{ id: 'bulk-1', text: 'Bulk victim one refunds', namespace: 'bulk' }],
    });
    const { page } = await open('#/memories');
    await page.getByLabel('Search', { exact: true }).fill('refunds');
    await page.getByRole('button', { name: 'Search', exact: true }).click();
    await page.getByRole('checkbox', { name: /^Select Returns policy > Refunds/ }).check();
    await page.getByRole('checkbox', { name: /^Select Bulk victim one/ }).check();
    await page.getByRole('button', { name: /^Delete selected/ }).click();
    await expect.poll(() => page.locator('[role="alert"]').count()).toBe(1);
    expect(await page.locator('[role="alert"]').textContent()).toContain('(409)');
    await page.getByRole('checkbox', { name: /^Select Returns policy > Refunds/ }).uncheck();
    await page.getByRole('button', { name: /^Delete selected/ }).click();
    await expect.poll(() => status('/v1/long-term-memory/bulk-1')).toBe(404);
    await expect.poll(() => page.locator('[role="alert"]').count()).toBe(0);
    await page.close();
  });

  it('forget by policy sends its scan limit and says when a run stopped at it, with a way on', async () => {
    const day = (index: number) => new Date(Date.UTC(2020, 0, 1 + index)).toISOString();
    await call('POST', '/v1/long-term-memory/', {
      memories: Array.from({ length: 25 }, (_, index) => ({
        id: `old-${index}`,
        text: `Old record ${index}.`,
        namespace: 'forgetting',
        created_at: day(index),
      })),
    });
    const count = async () =>
      (
        (await call('POST', '/v1/long-term-memory/search', {
          text: null,
          namespace: { eq: 'forgetting' },
          limit: 1,
        })) as { total: number }
      ).total;
    const { page, requests } = await open('#/memories');
    await page.getByText('Forget by policy').click();
    const form = page.getByRole('form', { name: 'Forget policy' });
    await form.getByLabel('Older than (days)').fill('1');
    await form.getByLabel('Namespace').fill('forgetting');
    // The default limit is the route's (1,000): all 25 are looked at, no limit notice.
    expect(await form.getByLabel('Scan at most (memories, oldest first)').inputValue()).toBe('1000');
    await form.getByRole('button', { name: 'Dry run' }).click();
    await page.getByText('Would forget 25 of 25 scanned.').waitFor();
    expect(await page.locator('.forget-limit').count()).toBe(0);
    await form.getByLabel('Scan at most (memories, oldest first)').fill('10');
    await form.getByRole('button', { name: 'Dry run' }).click();
    await page.getByText('Would forget 10 of 10 scanned.').waitFor();
    expect(await page.locator('.forget-limit').textContent()).toContain(
      'The scan stopped at its limit of 10 memories',
    );
    await page.getByRole('button', { name: 'Forget them' }).click();
    await page.getByText('Forgot 10 of 10 scanned.').waitFor();
    expect(await count()).toBe(15);
    // Continue: the next oldest 10 (the forgotten ones are gone).
    await page.getByRole('button', { name: 'Continue: dry run on the next 10' }).click();
    await page.getByText('Would forget 10 of 10 scanned.').waitFor();
    const forgets = requests.filter((request) => request.url.startsWith('/v1/long-term-memory/forget'));
    expect(forgets.map((request) => new URL(request.url, server.url).searchParams.get('limit'))).toEqual([
      '1000',
      '10',
      '10',
      '10',
    ]);
    await page.close();
  });

  it('the working set’s preview and session fields follow the session (picker and Back)', async () => {
    const other = { session_id: 'ws-other', namespace: 'support', user_id: 'ada' };
    await call('POST', `/v1/working-memory/ws-other/messages?namespace=support&user_id=ada`, {
      messages: [{ role: 'user', content: 'Hello from the other session.' }],
    });
    const first = new URLSearchParams({ ...demo.session, query: 'delivery' }).toString();
    const { page } = await open(`#/working-set?${first}`);
    await page.locator('ol.cards li').first().waitFor();
    await page.getByLabel('Agent').fill(demo.agentId);
    await page.getByLabel('Message', { exact: true }).fill('Can it come after 6 pm?');
    await page.getByRole('button', { name: 'Preview (no write)' }).click();
    await page.locator('ol.preview li').first().waitFor();
    const picker = page.getByRole('form', { name: 'Session' });
    await picker.getByLabel('Session id').fill(other.session_id);
    await picker.getByRole('button', { name: 'Open' }).click();
    await expect.poll(() => page.url()).toContain('session_id=ws-other');
    await page.locator('ol.cards li').first().waitFor();
    // The other session's preview box starts empty, with the URL's agent.
    await expect.poll(() => page.locator('ol.preview li').count()).toBe(0);
    expect(await page.getByLabel('Message', { exact: true }).inputValue()).toBe('');
    expect(await page.getByLabel('Agent').inputValue()).not.toBe(demo.agentId);
    await page.goBack();
    await expect.poll(() => page.url()).toContain(`session_id=${demo.session.session_id}`);
    await expect.poll(() => picker.getByLabel('Session id').inputValue()).toBe(demo.session.session_id);
    await page.close();
  });

  it('a session’s “Ending” notice stays with it: the next session opened shows none', async () => {
    for (const id of ['end-a', 'end-b'])
      await call('POST', `/v1/working-memory/${id}/messages?namespace=ending&user_id=eve`, {
        messages: [{ role: 'user', content: `hello from ${id}` }],
      });
    const { page } = await open('#/sessions?session_id=end-a&namespace=ending&user_id=eve');
    await page.getByRole('button', { name: 'End session' }).click();
    await page.locator('.panel p.notice', { hasText: 'Ending: task' }).waitFor();
    await page.evaluate("location.hash = '#/sessions?session_id=end-b&namespace=ending&user_id=eve'");
    await page.getByRole('heading', { name: 'Session end-b' }).waitFor();
    await page.getByText('hello from end-b').waitFor();
    expect(await page.locator('.panel p.notice').count()).toBe(0);
    await page.close();
  });

  it('reads a knowledge document’s chunks only when it is opened', async () => {
    await call('POST', '/v1/agents', { id: 'many-docs', system_prompt: 'x' });
    for (let index = 0; index < 4; index++)
      await call('POST', '/v1/agents/many-docs/knowledge', {
        name: `doc-${index}.md`,
        content: `# Doc ${index}\n\nThe text of document number ${index}.`,
      });
    const { page, requests } = await open('#/procedures?agent_id=many-docs');
    await page.getByLabel('Agent').selectOption('many-docs');
    await page.locator('summary', { hasText: 'doc-3.md' }).waitFor();
    await page.waitForLoadState('networkidle');
    const chunkReads = () => requests.filter((request) => request.url.includes('/chunks'));
    expect(chunkReads()).toEqual([]);
    await page.locator('summary', { hasText: 'doc-2.md' }).click();
    await page.getByText('The text of document number 2.').waitFor();
    expect(chunkReads()).toHaveLength(1);
    await page.close();
  });

  it('shows a long session’s newest messages a page at a time', async () => {
    const scope = 'namespace=long&user_id=lee';
    await call('POST', `/v1/working-memory/long-1/messages?${scope}`, {
      messages: Array.from({ length: 230 }, (_, index) => ({
        role: index % 2 ? 'assistant' : 'user',
        content: `Long message number ${index}.`,
      })),
    });
    const { page, requests } = await open(`#/sessions?session_id=long-1&${scope}`);
    const shown = page.locator('ol.messages li');
    await page.getByText('Long message number 229.').waitFor();
    expect(await shown.count()).toBe(100);
    expect(await page.getByText('Long message number 129.', { exact: true }).count()).toBe(0);
    const reads = requests.filter((request) => request.url.startsWith('/v1/working-memory/long-1'));
    expect(
      reads.map((request) => new URL(request.url, server.url).searchParams.get('recent_messages_limit')),
    ).toEqual(['100']);
    await page.getByRole('button', { name: 'Show 100 earlier messages' }).click();
    await expect.poll(() => shown.count()).toBe(200);
    await page.getByRole('button', { name: 'Show 100 earlier messages' }).click();
    await expect.poll(() => shown.count()).toBe(230);
    expect(await shown.first().textContent()).toContain('Long message number 0.');
    expect(await page.getByRole('button', { name: 'Show 100 earlier messages' }).count()).toBe(0);
    await page.close();
  });

  it('the inspector shows a message’s content without reading the whole session', async () => {
    const ref = { session_id: 'long-2', namespace: 'long', user_id: 'lee' };
    const scope = new URLSearchParams({ namespace: ref.namespace, user_id: ref.user_id }).toString();
    await call('POST', `/v1/working-memory/long-2/messages?${scope}`, {
      messages: Array.from({ length: 120 }, (_, index) => ({
        role: index % 2 ? 'assistant' : 'user',
        content: `Inspected message number ${index}.`,
      })),
    });
    const { trace } = (await call('POST', '/v1/context', {
      agent_id: demo.agentId,
      ...ref,
      message: 'What was said last?',
    })) as { trace: TraceBody };
    const messages = trace.sections
      .flatMap((section) => section.items)
      .filter((item) => item.kind === 'message');
    const newest = messages.at(-1);
    expect(newest).toBeDefined();
    const { page, requests } = await open(`#/inspector?${new URLSearchParams(ref)}`);
    await page.locator('.turns li').first().waitFor();
    await page.locator('.trace details').evaluateAll((details) => {
      for (const entry of details) (entry as unknown as { open: boolean }).open = true;
    });
    await page
      .getByRole('button', { name: `Show the content of ${newest?.id}` })
      .first()
      .click();
    await page.locator('pre.content', { hasText: 'Inspected message number 119.' }).waitFor();
    const reads = requests.filter((request) => request.url.startsWith('/v1/working-memory/long-2'));
    expect(reads).toHaveLength(1);
    expect(new URL(reads[0]?.url ?? '', server.url).searchParams.get('recent_messages_limit')).toBe('50');
    await page.close();
  });
});
