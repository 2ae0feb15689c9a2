/**
 * Starts Debian's Chromium for the UI's tests, screenshots and load benchmark, and an engram server
 * that serves the built UI. Chromium is the system's (`apt-get install chromium`): nothing is
 * downloaded; playwright-core only drives it.
 */
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { type BrowserContext, chromium } from 'playwright-core';
import { createEngram, type Engram } from '../src/engram.js';
import { createServer, type EngramServer } from '../src/server/create-server.js';
import type { ServerConfigInput } from '../src/server/server-config.js';
import { createSqliteStore } from '../src/stores/sqlite/sqlite-store.js';
import { buildUi } from './build-ui.js';

export const CHROMIUM_PATH = process.env.ENGRAM_CHROMIUM ?? '/usr/bin/chromium';
export const hasChromium = existsSync(CHROMIUM_PATH);

const flags = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

/** A browser with a fresh profile directory, removed on close. */
export async function launchBrowser(): Promise<{ context: BrowserContext; close: () => Promise<void> }> {
  const profile = mkdtempSync(join(tmpdir(), 'engram-chromium-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: flags,
    viewport: { width: 1280, height: 800 },
  });
  return {
    context,
    async close() {
      await context.close();
      rmSync(profile, { recursive: true, force: true });
    },
  };
}

export interface UiServer {
  url: string;
  engram: Engram;
  server: EngramServer;
  close(): Promise<void>;
}

/**
 * An engram server (default sources, temporary SQLite file) serving the UI on a free port. The UI
 * is built from src/ui into the temporary directory first (under a second with esbuild), so tests
 * always see the current source, never a stale dist/ui.
 */
export async function startUiServer(config: ServerConfigInput = {}): Promise<UiServer> {
  const directory = mkdtempSync(join(tmpdir(), 'engram-ui-'));
  const uiDirectory = join(directory, 'ui');
  await buildUi(uiDirectory);
  const store = await createSqliteStore({ path: join(directory, 'engram.db') });
  const engram = await createEngram({ store, sweepIntervalMs: 0 });
  const server = createServer({ engram, config: { port: 0, logLevel: 'silent', ...config }, uiDirectory });
  const { url } = await server.listen();
  return {
    url,
    engram,
    server,
    async close() {
      await server.close();
      rmSync(directory, { recursive: true, force: true });
    },
  };
}
