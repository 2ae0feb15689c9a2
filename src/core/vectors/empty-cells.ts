import { CellCodes } from './cell-codes.js';
import type { CentroidTree } from './centroid-tree.js';
import { IvfCell } from './ivf-cell.js';
import { VectorArena } from './vector-arena.js';
import { VectorCodes } from './vector-codes.js';

/** A trained layout's cells before any vector is placed, and where they keep their vectors. */
export interface EmptyCells {
  cells: IvfCell[];
  /** The arena of the cells (and of `tree`'s centroids), or null: ordinary arrays. */
  arena: VectorArena | null;
  /** The arena's scratch for screened scans, or null when the cells keep no codes. */
  scratch: VectorCodes | null;
}

/**
 * One cell per centroid of `tree`, each with room for 1.5 times its share of `size` vectors: in
 * one new WebAssembly arena when `arena` allows it and one can be had (the centroids are copied
 * there too), with each vector's int8 codes and a screening scratch when `codes` also does and
 * an arena with room for them can be had (else the arena holds the vectors alone).
 */
export function emptyCells(
  tree: CentroidTree,
  dimensions: number,
  size: number,
  options: { arena: boolean; codes: boolean },
): EmptyCells {
  const expected = Math.ceil((1.5 * size) / tree.cells);
  const scratchFloats = VectorCodes.floatsFor(dimensions, 0);
  const vectorFloats = (expected + 2) * tree.cells * dimensions;
  const codeFloats = CellCodes.floatsFor(dimensions, expected) * tree.cells + scratchFloats;
  let codes = options.arena && options.codes;
  let arena = codes ? VectorArena.create(dimensions, vectorFloats + codeFloats) : null;
  // Codes take a third more room: a layout too large for an arena with them (4 GiB at most)
  // keeps its vectors in one without them, scanned by the kernel as before.
  if (!arena && options.arena) {
    codes = false;
    arena = VectorArena.create(dimensions, vectorFloats);
  }
  if (arena) tree.placeIn(arena);
  const scratchStart = arena && codes ? arena.allocate(scratchFloats) : -1;
  const scratch = arena && scratchStart >= 0 ? new VectorCodes(arena, scratchStart, dimensions, 0) : null;
  const cells = Array.from(
    { length: tree.cells },
    () => new IvfCell(dimensions, expected, arena, scratch !== null),
  );
  return { cells, arena, scratch };
}
