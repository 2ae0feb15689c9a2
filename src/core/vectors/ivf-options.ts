import type { TieBreak } from './nearest-heap.js';

/** How an `IvfIndex` is built. */
export interface IvfIndexOptions {
  /** Default `EXACT_SEARCH_THRESHOLD` (5,000). */
  exactThreshold?: number;
  /** Seeds k-means, so that the same operations build the same index. */
  seed?: number;
  /**
   * Keep the trained cells (and packs of 256 or more vectors) in WebAssembly arenas, scanned by
   * their SIMD kernel (default true); false scans them in JavaScript. The distances are the same
   * bit for bit (`VectorArena`).
   */
  arena?: boolean;
  /**
   * In an arena, also keep each vector's int8 codes and screen the probed cells by them before
   * computing exact distances (default true): the same results, bit for bit (`CodeScreen`).
   */
  codes?: boolean;
}

/** How one `IvfIndex.search` runs. */
export interface IvfSearchOptions {
  /** Cells to scan, nearest centroid first (default: 6% of the cells, at least 8). */
  probes?: number;
  /** Keep probing cells until this many vectors were scanned (room for a filter to reject some). */
  minScanned?: number;
  /**
   * Only keys this accepts are results. It is asked only about vectors near enough to enter the
   * result, so a filter that reads scattered rows costs a few hundred lookups, not one per vector.
   */
  accept?: (key: number) => boolean;
  /** The order of equal distances (default: ascending key). */
  tieBreak?: TieBreak;
  /** Scan every vector. */
  exact?: boolean;
  /**
   * Train first when the index needs it (default). False leaves training to `trainInSteps`: the
   * search then uses the layout as it is (every vector scanned while untrained).
   */
  maintain?: boolean;
}
