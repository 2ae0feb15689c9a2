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
 * there too), with each vector's int8 codes and a screening scratch when `codes` also does.
 */
export function emptyCells(
  tree: CentroidTree,
  dimensions: number,
  size: number,
  options: { arena: boolean; codes: boolean },
): EmptyCells {
  const expected = Math.ceil((1.5 * size) / tree.cells);
  const scratchFloats = VectorCodes.floatsFor(dimensions, 0);
  const codeFloats = options.codes
    ? CellCodes.floatsFor(dimensions, expected) * tree.cells + scratchFloats
    : 0;
  const arena = options.arena
    ? VectorArena.create(dimensions, (expected + 2) * tree.cells * dimensions + codeFloats)
    : null;
  if (arena) tree.placeIn(arena);
  const scratchStart = arena && options.codes ? arena.allocate(scratchFloats) : -1;
  const scratch = arena && scratchStart >= 0 ? new VectorCodes(arena, scratchStart, dimensions, 0) : null;
  const cells = Array.from(
    { length: tree.cells },
    () => new IvfCell(dimensions, expected, arena, scratch !== null),
  );
  return { cells, arena, scratch };
}
