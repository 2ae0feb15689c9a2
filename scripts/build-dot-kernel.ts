/**
 * Compiles src/core/vectors/dot-kernel.wat (WebAssembly text) into the bytes that
 * src/core/vectors/dot-kernel-wasm.ts embeds, with wabt (a devDependency; nothing is compiled at
 * run time). `--check` compares instead of writing, and fails when the file is stale.
 *
 *   npx tsx scripts/build-dot-kernel.ts [--check]
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import { compileDotKernel, dotKernelModuleText } from './dot-kernel-source.js';

const { values } = parseArgs({ options: { check: { type: 'boolean', default: false } } });
const target = new URL('../src/core/vectors/dot-kernel-wasm.ts', import.meta.url);
const text = dotKernelModuleText(await compileDotKernel());
if (values.check) {
  if (readFileSync(target, 'utf8') !== text) {
    console.error('src/core/vectors/dot-kernel-wasm.ts is stale: run npm run build:dot-kernel');
    process.exit(1);
  }
} else {
  writeFileSync(target, text);
  console.log(`wrote ${target.pathname}`);
}
