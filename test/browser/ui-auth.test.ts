import type { BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hasChromium, launchBrowser, startUiServer, type UiServer } from '../../scripts/ui-browser.js';
import { jsonClient, seedDemoData } from '../../scripts/ui-demo-data.js';
import { createApiKeys } from '../../src/engine/access/api-keys.js';

if (!hasChromium) {
  console.warn('test/browser skipped: no Chromium at /usr/bin/chromium (apt-get install -y chromium)');
}

/** The web UI with authentication on: the key prompt, tenant scoping and the role rules. */
describe.skipIf(!hasChromium)('web UI with authentication', () => {
  let server: UiServer;
  let browser: Awaited<ReturnType<typeof launchBrowser>>;
  let context: BrowserContext;
  const keys = { admin: '', agent: '', inspector: '', otherAdmin: '' };
  const scope = 'session_id=chat-42&namespace=support&user_id=ada';

  beforeAll(async () => {
    server = await startUiServer({ auth: { mode: 'enabled' } });
    const apiKeys = createApiKeys(server.engram.store.documents);
    for (const role of ['admin', 'agent', 'inspector'] as const) {
      keys[role] = (await apiKeys.create({ tenantId: 'acme', role })).key;
    }
    keys.otherAdmin = (await apiKeys.create({ tenantId: 'globex', role: 'admin' })).key;
    await seedDemoData(jsonClient(server.url, { authorization: `Bearer ${keys.admin}` }));
    await jsonClient(server.url, { authorization: `Bearer ${keys.otherAdmin}` })(
      'POST',
      '/v1/working-memory/globex-secret/messages',
      { messages: [{ role: 'user', content: 'Only globex may see this.' }] },
    );
    browser = await launchBrowser();
    context = browser.context;
    context.setDefaultTimeout(10_000);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  /** A new tab (its own session storage) signed in with `key`. */
  async function signIn(key: string, hash = ''): Promise<Page> {
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/${hash}`);
    await page.getByLabel('API key').fill(key);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('main h1').waitFor();
    return page;
  }

  it('asks for a key, refuses a wrong one, and keeps the right one in session storage only', async () => {
    const page = await context.newPage();
    await page.goto(`${server.url}/ui/`);
    await page.getByLabel('API key').fill('not-a-key');
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByText('That key was not accepted.').waitFor();
    expect(await page.evaluate("sessionStorage.getItem('engram.apiKey')")).toBeNull();

    await page.getByLabel('API key').fill(keys.inspector);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.locator('main h1').waitFor();
    expect(await page.locator('.who').textContent()).toContain('tenant acme · inspector');
    expect(await page.evaluate("sessionStorage.getItem('engram.apiKey')")).toBe(keys.inspector);
    expect(await page.evaluate('localStorage.length')).toBe(0);
    expect(page.url()).not.toContain(keys.inspector);
    await page.close();
  });

  it('shows the key’s tenant only', async () => {
    const page = await signIn(keys.inspector);
    await page.locator('tbody a', { hasText: 'chat-42' }).waitFor();
    expect(await page.locator('tbody a').allTextContents()).toEqual(['chat-41', 'chat-42']);
    expect(await page.content()).not.toContain('globex-secret');
    await page.close();
  });

  it('lets an inspector read turns but hides every write', async () => {
    const page = await signIn(keys.inspector, `#/inspector?${scope}`);
    await page.locator('.turns li').first().waitFor();
    await page.goto(`${server.url}/ui/#/working-set?${scope}&query=delivery`);
    await page.getByText('Read only: your role cannot pin or remove.').waitFor();
    expect(await page.getByRole('button', { name: /^(Pin|Unpin|Remove) / }).count()).toBe(0);
    await page.goto(`${server.url}/ui/#/procedures`);
    await page.getByLabel('Agent').selectOption('support');
    await page.locator('.card', { hasText: 'Evening delivery' }).waitFor();
    expect(await page.getByRole('button', { name: /^(Approve|Reject|Edit)/ }).count()).toBe(0);
    await page.close();
  });

  it('shows a 403 clearly when the role lacks the permission (an agent reading traces)', async () => {
    const page = await signIn(keys.agent, `#/inspector?${scope}`);
    const alert = page.getByRole('alert');
    await alert.waitFor();
    expect(await alert.textContent()).toMatch(
      /^Forbidden \(403\)\. Your API key’s role may not do this: .*inspect/,
    );
    await page.close();
  });
});
