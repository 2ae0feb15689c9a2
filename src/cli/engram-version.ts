import { readFileSync } from 'node:fs';

/**
 * engram's version, from its package.json (one level above `src/` and `dist/` alike), read once.
 */
export const engramVersion: string = (
  JSON.parse(readFileSync(new URL('../../package.json', import.meta.url), 'utf8')) as { version: string }
).version;
