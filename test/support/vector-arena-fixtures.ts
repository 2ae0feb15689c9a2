import fc from 'fast-check';
import { VectorArena } from '../../src/core/vectors/vector-arena.js';

/** Arrays of `length` finite floats in [-4, 4]. */
export const finiteFloats = (length: number) =>
  fc.array(fc.float({ min: -4, max: 4, noNaN: true, noDefaultInfinity: true }), {
    minLength: length,
    maxLength: length,
  });

/** An arena, which every supported Node version can give (WebAssembly SIMD). */
export function createArena(dimensions: number, floats: number): VectorArena {
  const arena = VectorArena.create(dimensions, floats);
  if (!arena) throw new Error('WebAssembly SIMD is available on every supported Node version');
  return arena;
}
