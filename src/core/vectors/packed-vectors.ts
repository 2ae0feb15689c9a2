import { dotProduct, dotProductPair, unitDistance } from './dot-product.js';
import { NearestHeap, type Neighbour, type TieBreak } from './nearest-heap.js';
import { ARENA_BATCH, VectorArena } from './vector-arena.js';

/**
 * Copies of the unit vectors of chosen keys, side by side (key i's vector at `i * dimensions`).
 * A scan of keys scattered over a large index reads each vector from wherever its cell keeps it:
 * at a million vectors nearly every one is a cache miss (10,000 of them took 5 ms). Packed, the
 * same scan reads memory in order.
 */
export interface PackedVectors {
  readonly keys: Int32Array;
  readonly vectors: Float32Array;
  readonly dimensions: number;
  /** Where `vectors` lives when it is in a `VectorArena` of its own (scanned by its kernel). */
  readonly inArena?: ArenaPlace | undefined;
}

/** Below this many vectors a pack stays an ordinary array: scanning it is quick either way. */
const ARENA_MIN_VECTORS = 256;

/**
 * Room for the vectors of `keys` (`vectors`, to be filled by the caller: key i's at
 * `i * dimensions`), in an arena of its own when there are enough of them, `inArena` allows it
 * and WebAssembly gives one (the arena never grows, so the view stays valid), else in an ordinary
 * array.
 */
export function allocatePacked(keys: Int32Array, dimensions: number, inArena = true): PackedVectors {
  const floats = keys.length * dimensions;
  const arena = inArena && keys.length >= ARENA_MIN_VECTORS ? VectorArena.create(dimensions, floats) : null;
  const start = arena ? arena.allocate(floats) : -1;
  if (arena && start >= 0) {
    return {
      keys,
      dimensions,
      vectors: arena.floats.subarray(start, start + floats),
      inArena: { arena, start },
    };
  }
  return { keys, dimensions, vectors: new Float32Array(floats) };
}

/** Where a run of packed vectors lives in a `VectorArena`: its first float's index there. */
export interface ArenaPlace {
  readonly arena: VectorArena;
  readonly start: number;
}

/** Dot products of one batch, when JavaScript computes them (reused: nothing is allocated per scan). */
const batchDots = new Float64Array(ARENA_BATCH);

/**
 * Offers `count` packed unit vectors (from `vectors`, with their `keys`) to `heap` by cosine
 * distance to the unit vector `unit`, a batch of dot products at a time: by the arena's kernel
 * when they live in one (`place`), else in JavaScript two per pass (`dotProductPair`: the query
 * read once for both); the same sums either way. Each distance is checked against the heap's bound
 * before `accept` is asked: most vectors are too far, and their row is never looked at. The scan
 * of an IVF cell and of packed vectors.
 */
export function scanVectors(
  vectors: Float32Array,
  keys: Int32Array,
  count: number,
  dimensions: number,
  unit: Float32Array,
  heap: NearestHeap,
  accept?: (key: number) => boolean,
  place?: ArenaPlace | null,
): void {
  place?.arena.setQuery(unit);
  const pair = new Float64Array(2);
  for (let from = 0; from < count; from += ARENA_BATCH) {
    const batch = Math.min(ARENA_BATCH, count - from);
    const dots = place ? place.arena.dotsAt(place.start + from * dimensions, batch) : batchDots;
    if (!place) {
      let at = 0;
      for (; at + 1 < batch; at += 2) {
        dotProductPair(vectors, (from + at) * dimensions, unit, dimensions, pair);
        dots[at] = pair[0] as number;
        dots[at + 1] = pair[1] as number;
      }
      if (at < batch) dots[at] = dotProduct(vectors, (from + at) * dimensions, unit, 0, dimensions);
    }
    offerDots(dots, keys, from, batch, heap, accept);
  }
}

/** Offers `count` vectors to `heap` by their dot products with the query (`dots[i]` for `keys[from + i]`). */
function offerDots(
  dots: Float64Array,
  keys: Int32Array,
  from: number,
  count: number,
  heap: NearestHeap,
  accept?: (key: number) => boolean,
): void {
  let bound = heap.bound;
  for (let index = 0; index < count; index++) {
    const distance = unitDistance(dots[index] as number);
    if (distance > bound) continue;
    const key = keys[from + index] as number;
    if (accept !== undefined && !accept(key)) continue;
    heap.offer(key, distance);
    bound = heap.bound;
  }
}

/**
 * The `limit` nearest to the unit vector `unit` among `packed`, by exact cosine distance: the same
 * distances, and so the same result, as scanning those keys in the index.
 */
export function nearestPacked(
  packed: PackedVectors,
  unit: Float32Array,
  limit: number,
  tieBreak?: TieBreak,
): Neighbour[] {
  if (limit <= 0) return [];
  const heap = new NearestHeap(limit, tieBreak);
  const { keys, dimensions } = packed;
  scanVectors(packed.vectors, keys, keys.length, dimensions, unit, heap, undefined, packed.inArena);
  return heap.sorted();
}
