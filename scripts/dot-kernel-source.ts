/** Compiling dot-kernel.wat, shared by scripts/build-dot-kernel.ts and the kernel's test. */
import { readFileSync } from 'node:fs';
import wabtInit from 'wabt';

const SOURCE = new URL('../src/core/vectors/dot-kernel.wat', import.meta.url);

/** The WebAssembly binary of dot-kernel.wat. */
export async function compileDotKernel(): Promise<Uint8Array> {
  const wabt = await wabtInit();
  const module = wabt.parseWat('dot-kernel.wat', readFileSync(SOURCE, 'utf8'), { simd: true });
  try {
    module.validate();
    return module.toBinary({}).buffer;
  } finally {
    module.destroy();
  }
}

/** The TypeScript module that embeds `bytes` (base64, one line, laid out as Biome formats it). */
export function dotKernelModuleText(bytes: Uint8Array): string {
  return `// Generated from dot-kernel.wat by \`npm run build:dot-kernel\`: do not edit.
/** The WebAssembly binary of dot-kernel.wat, base64. */
export const DOT_KERNEL_WASM =
  '${Buffer.from(bytes).toString('base64')}';
`;
}
