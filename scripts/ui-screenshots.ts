/**
 * Seeds demo data into a fresh server and saves a screenshot of every page of the web UI under
 * docs/ui/ (1280×800, and the inspector at 420 px wide to show the narrow layout).
 * `npm run ui:screenshots`.
 */
import { mkdirSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { hasChromium, launchBrowser, startUiServer } from './ui-browser.js';
import { jsonClient, seedDemoData } from './ui-demo-data.js';

if (!hasChromium) {
  console.error('Chromium is not installed at /usr/bin/chromium (apt-get install -y chromium)');
  process.exit(1);
}
const out = fileURLToPath(new URL('../docs/ui/', import.meta.url));
mkdirSync(out, { recursive: true });
const server = await startUiServer();
const browser = await launchBrowser();
try {
  const { session, memoryIds } = await seedDemoData(jsonClient(server.url));
  const scope = new URLSearchParams(session).toString();
  const page = await browser.context.newPage();
  const shots: [string, string, (() => Promise<void>)?][] = [
    ['sessions', `#/sessions?${scope}`],
    [
      'inspector',
      `#/inspector?${scope}`,
      async () => {
        await page
          .getByLabel(/^Compare turn/)
          .nth(0)
          .check();
        await page
          .getByLabel(/^Compare turn/)
          .nth(1)
          .check();
      },
    ],
    [
      'inspector-candidates',
      `#/inspector?${scope}`,
      async () => {
        await page.locator('summary', { hasText: /^knowledge:/ }).scrollIntoViewIfNeeded();
        await page.evaluate('window.scrollBy(0, -60)');
      },
    ],
    [
      'working-set',
      `#/working-set?${scope}&agent_id=support&query=${encodeURIComponent('delivery and returns')}`,
      async () => {
        await page.getByLabel('Message', { exact: true }).fill('Can the replacement come on Saturday?');
        await page.getByRole('button', { name: 'Preview (no write)' }).click();
        await page.locator('.preview').waitFor();
      },
    ],
    [
      'memories',
      '#/memories',
      async () => {
        await page
          .getByRole('button', { name: memoryIds.length ? /delivery after 6 pm/ : /./ })
          .first()
          .click();
        await page
          .locator('.versions li')
          .nth(1)
          .waitFor({ timeout: 2_000 })
          .catch(() => undefined);
      },
    ],
    [
      'procedures',
      '#/procedures?agent_id=support',
      async () => {
        await page.getByLabel('Agent').selectOption('support');
        await page.locator('summary', { hasText: 'Returns policy.md' }).click();
      },
    ],
    ['jobs', '#/jobs'],
  ];
  for (const [name, hash, prepare] of shots) {
    await page.goto(`${server.url}/ui/${hash}`);
    await page.locator('main h1').waitFor();
    await page.waitForLoadState('networkidle');
    await prepare?.();
    await page.waitForTimeout(200);
    await page.screenshot({ path: `${out}${name}.png`, fullPage: false });
    console.log(`docs/ui/${name}.png`);
  }
  await page.setViewportSize({ width: 420, height: 800 });
  await page.goto(`${server.url}/ui/#/inspector?${scope}`);
  await page.waitForLoadState('networkidle');
  await page.screenshot({ path: `${out}inspector-narrow.png` });
  console.log('docs/ui/inspector-narrow.png');
} finally {
  await browser.close();
  await server.close();
}
