/**
 * Builds the web UI (src/ui) into dist/ui: one minified script bundle (Preact included), one
 * minified style sheet and the page, each also precompressed (brotli, gzip) so the server sends
 * them as they are.
 * Runs on `npm install` (`prepare`) and `npm run build:ui`; `--out DIR` builds elsewhere.
 */
import { copyFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { brotliCompressSync, constants, gzipSync } from 'node:zlib';
import { build } from 'esbuild';

const root = fileURLToPath(new URL('..', import.meta.url));

/** Builds into `outDir` (default dist/ui); resolves the files written with their sizes. */
export async function buildUi(outDir = join(root, 'dist/ui')): Promise<{ file: string; bytes: number }[]> {
  mkdirSync(outDir, { recursive: true });
  await build({
    entryPoints: [join(root, 'src/ui/main.tsx')],
    outfile: join(outDir, 'app.js'),
    bundle: true,
    minify: true,
    format: 'esm',
    target: 'es2022',
    jsx: 'automatic',
    jsxImportSource: 'preact',
    legalComments: 'none',
    logLevel: 'warning',
  });
  await build({
    entryPoints: [join(root, 'src/ui/app.css')],
    outfile: join(outDir, 'app.css'),
    bundle: true,
    minify: true,
    logLevel: 'warning',
  });
  for (const name of ['index.html', 'favicon.svg']) {
    copyFileSync(join(root, 'src/ui', name), join(outDir, name));
  }
  const written = [];
  for (const name of ['index.html', 'app.js', 'app.css', 'favicon.svg']) {
    const content = readFileSync(join(outDir, name));
    writeFileSync(
      join(outDir, `${name}.br`),
      brotliCompressSync(content, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    );
    writeFileSync(join(outDir, `${name}.gz`), gzipSync(content, { level: 9 }));
    written.push({ file: name, bytes: content.length });
  }
  return written;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const flag = process.argv.indexOf('--out');
  const files = await buildUi(flag > 0 ? process.argv[flag + 1] : undefined);
  console.log(`web UI built: ${files.map(({ file, bytes }) => `${file} ${bytes} B`).join(', ')}`);
}
