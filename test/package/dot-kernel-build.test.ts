import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { compileDotKernel, dotKernelModuleText } from '../../scripts/dot-kernel-source.js';

describe('the embedded dot kernel', () => {
  it('is what dot-kernel.wat compiles to (npm run build:dot-kernel after editing it)', async () => {
    const embedded = readFileSync(
      new URL('../../src/core/vectors/dot-kernel-wasm.ts', import.meta.url),
      'utf8',
    );
    expect(embedded).toBe(dotKernelModuleText(await compileDotKernel()));
  });
});
