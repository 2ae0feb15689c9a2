/**
 * Copies the non-TypeScript files the compiled code loads at run time (the static word vectors) from
 * src/ to dist/, since tsc emits only JavaScript. Runs after `npm run build`.
 */
import { cpSync } from 'node:fs';

const assets = ['providers/embeddings/data'];
for (const asset of assets) {
  cpSync(`src/${asset}`, `dist/${asset}`, { recursive: true });
  console.log(`Copied src/${asset} to dist/${asset}`);
}
