/**
 * Copies the non-TypeScript files the compiled code loads at run time (the static word vectors) from
 * src/ to dist/, since tsc emits only JavaScript, and stamps dist/ with the fingerprint of what it
 * was built from (`prepare` skips a build that matches). Runs after `npm run build`.
 */
import { cpSync, writeFileSync } from 'node:fs';
import { buildFingerprint, FINGERPRINT_FILE } from './build-fingerprint.js';

const assets = ['providers/embeddings/data'];
for (const asset of assets) {
  cpSync(`src/${asset}`, `dist/${asset}`, { recursive: true });
  console.log(`Copied src/${asset} to dist/${asset}`);
}
writeFileSync(FINGERPRINT_FILE, `${buildFingerprint('.')}\n`);
