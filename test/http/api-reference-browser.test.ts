import { execFile } from 'node:child_process';
import { existsSync } from 'node:fs';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';
import { useTestServer } from './test-server.js';

const run = promisify(execFile);
const chromium = [process.env.ENGRAM_CHROMIUM, '/usr/bin/chromium', '/usr/bin/chromium-browser'].find(
  (path): path is string => path !== undefined && existsSync(path),
);
if (!chromium) console.warn('Skipping the /docs browser test: no Chromium (set ENGRAM_CHROMIUM to its path)');

describe.skipIf(!chromium)('GET /docs in a headless browser', () => {
  const server = useTestServer();

  it('renders the API reference from /openapi.json under the page’s Content-Security-Policy', async () => {
    const { stdout } = await run(
      chromium as string,
      [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--virtual-time-budget=15000',
        '--dump-dom',
        `${server().url}/docs`,
      ],
      { maxBuffer: 64 * 1024 * 1024, timeout: 60_000 },
    );
    // Swagger UI ran (no CSP violation stopped it), fetched the document and listed its operations.
    expect(stdout).toMatch(/class="title">engram/);
    expect(stdout).toContain('Assemble one turn’s context');
    expect(stdout).toContain('/v1/working-memory/{session_id}');
  }, 90_000);
});
