/**
 * First load of the web UI on loopback in headless Chromium: time from navigation to the page
 * showing data (a page's first table row or card), cold (HTTP cache disabled) and warm (cache on,
 * 304s), and the bytes transferred, per page. The server runs in this process over a temporary
 * SQLite file with the demo data (scripts/ui-demo-data.ts).
 * Usage: npx tsx bench/ui-load.ts [--runs 10] [--pages sessions,inspector,working-set,memories,procedures,jobs]
 */
import { hasChromium, launchBrowser, startUiServer } from '../scripts/ui-browser.js';
import { jsonClient, seedDemoData } from '../scripts/ui-demo-data.js';
import { machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const pages = ['sessions', 'inspector', 'working-set', 'memories', 'procedures', 'jobs'];
const values = parseBenchArguments({
  runs: { type: 'string', default: '10', check: 'number' },
  pages: { type: 'string', default: pages.join(','), check: { listOf: pages } },
});
if (!hasChromium) throw new Error('No Chromium at /usr/bin/chromium (apt-get install -y chromium)');
const runs = Number(values.runs);

const server = await startUiServer();
const { session, agentId } = await seedDemoData(jsonClient(server.url));
const scope = new URLSearchParams(session).toString();
/** Each page, and the element that shows its data has arrived. */
const targets: Record<string, { hash: string; ready: string }> = {
  sessions: { hash: `#/sessions?${scope}`, ready: '.messages li' },
  inspector: { hash: `#/inspector?${scope}`, ready: '.trace .budget-bar' },
  memories: { hash: '#/memories', ready: 'tbody tr' },
  'working-set': { hash: `#/working-set?${scope}&query=delivery`, ready: '.cards .card' },
  procedures: { hash: `#/procedures?agent_id=${agentId}`, ready: '.cards .card' },
  jobs: { hash: '#/jobs', ready: 'tbody tr' },
};
const browser = await launchBrowser();

interface Sample {
  ms: number;
  transferred: number;
  decoded: number;
  requests: number;
}

async function load(hash: string, ready: string, cache: boolean): Promise<Sample> {
  const page = await browser.context.newPage();
  const cdp = await browser.context.newCDPSession(page);
  await cdp.send('Network.enable');
  await cdp.send('Network.setCacheDisabled', { cacheDisabled: !cache });
  // Bytes on the wire (headers and compressed bodies) as the network stack counted them.
  let transferred = 0;
  let requests = 0;
  cdp.on('Network.loadingFinished', (event) => {
    transferred += event.encodedDataLength;
    requests++;
  });
  const started = performance.now();
  await page.goto(`${server.url}/ui/${hash}`, { waitUntil: 'commit' });
  await page.locator(ready).first().waitFor();
  const ms = performance.now() - started;
  await page.waitForLoadState('networkidle');
  const decoded = (await page.evaluate(`[...performance.getEntriesByType('navigation'),
    ...performance.getEntriesByType('resource')].reduce((sum, entry) => sum + entry.decodedBodySize, 0)`)) as number;
  await page.close();
  return { ms, transferred, decoded, requests };
}

console.log(`Web UI first load on loopback, headless Chromium (${machine()}), ${runs} runs per row\n`);
const rows: (string | number)[][] = [];
try {
  // One warm-up load so the server's first-request costs (asset load, JIT) are not in the numbers.
  await load(targets.sessions?.hash ?? '', 'main h1', false);
  for (const name of values.pages.split(',')) {
    const target = targets[name];
    if (!target) throw new Error(`Unknown page ${name}: one of ${Object.keys(targets).join(', ')}`);
    for (const cache of [false, true]) {
      const samples: Sample[] = [];
      for (let run = 0; run < runs; run++) samples.push(await load(target.hash, target.ready, cache));
      const times = samples.map((sample) => sample.ms);
      const last = samples.at(-1) as Sample;
      rows.push([
        name,
        cache ? 'warm (304s)' : 'cold (no cache)',
        percentile(times, 50),
        percentile(times, 95),
        Math.max(...times),
        (last.transferred / 1024).toFixed(1),
        (last.decoded / 1024).toFixed(1),
        last.requests,
      ]);
    }
  }
} finally {
  await browser.close();
  await server.close();
}
printTable(
  ['page', 'cache', 'p50 ms to data', 'p95 ms', 'max ms', 'transferred KiB', 'decoded KiB', 'requests'],
  rows,
);
