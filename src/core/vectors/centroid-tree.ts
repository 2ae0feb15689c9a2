import { dotProduct } from './dot-product.js';
import { countOf, nearestCentroid, type PackedVectors, sphericalKMeans } from './k-means.js';
import { ARENA_BATCH, type VectorArena } from './vector-arena.js';

/** Sampled vectors per cell that training iterates over: enough for stable centroids, cheap to repeat. */
const SAMPLE_PER_CELL = 32;
/** Sampled vectors per coarse group for the coarse k-means. */
const SAMPLE_PER_GROUP = 64;
const COARSE_ITERATIONS = 10;
const FINE_ITERATIONS = 6;

/** `size` vectors of `vectors` drawn without replacement (a partial Fisher-Yates shuffle), packed. */
function sampleVectors(vectors: PackedVectors, size: number, random: () => number): PackedVectors {
  const { data, dimensions } = vectors;
  const order = Int32Array.from({ length: countOf(vectors) }, (_, index) => index);
  const sample = new Float32Array(size * dimensions);
  for (let drawn = 0; drawn < size; drawn += 1) {
    const pick = drawn + Math.floor(random() * (order.length - drawn));
    const chosen = order[pick] as number;
    order[pick] = order[drawn] as number;
    sample.set(data.subarray(chosen * dimensions, (chosen + 1) * dimensions), drawn * dimensions);
  }
  return { data: sample, dimensions };
}

/** The vectors of `points` listed in `members`, packed. */
function gather(points: PackedVectors, members: readonly number[]): PackedVectors {
  const { data, dimensions } = points;
  const gathered = new Float32Array(members.length * dimensions);
  members.forEach((member, index) => {
    gathered.set(data.subarray(member * dimensions, (member + 1) * dimensions), index * dimensions);
  });
  return { data: gathered, dimensions };
}

/**
 * The cells of an IVF index: fine centroids (one per cell) grouped under about √cells coarse ones.
 * Training is two-level (k-means on a sample, then k-means within each coarse group), and so is
 * finding a vector's cell (the best fine centroid of its two nearest coarse groups), so both cost
 * O(√cells) dot products per vector instead of O(cells): building over 100,000 vectors then takes
 * a fraction of a second rather than seconds. The cell found may, rarely, not be the nearest of
 * all; that only moves a vector to a neighbouring cell, never loses it.
 */
export class CentroidTree {
  /**
   * Copies of the fine and coarse centroids in an arena (float indexes `start`, `coarseStart`),
   * whose kernel then computes their dot products.
   */
  private placed: { arena: VectorArena; start: number; coarseStart: number } | null = null;
  /** Where `rangeDots` writes. */
  private scratch = new Float64Array(0);

  private constructor(
    /** The fine centroids: cell i's at `i * dimensions`. */
    readonly centroids: PackedVectors,
    private readonly coarse: PackedVectors,
    /** Coarse group g owns cells `groupStarts[g]` up to `groupStarts[g + 1]`. */
    private readonly groupStarts: Int32Array,
  ) {}

  /** Trains about `cells` cells on unit `vectors` (at least one vector). */
  static train(vectors: PackedVectors, cells: number, random: () => number): CentroidTree {
    const steps = CentroidTree.trainInSteps(vectors, cells, random);
    for (;;) {
      const step = steps.next();
      if (step.done) return step.value;
    }
  }

  /** `train` as steps (the coarse k-means, then each group's), for callers that interleave other work. */
  static *trainInSteps(
    vectors: PackedVectors,
    cells: number,
    random: () => number,
  ): Generator<void, CentroidTree, void> {
    const { dimensions } = vectors;
    const sample = sampleVectors(vectors, Math.min(countOf(vectors), cells * SAMPLE_PER_CELL), random);
    const sampled = countOf(sample);
    const groups = Math.max(1, Math.round(Math.sqrt(cells)));
    // The sample is shuffled, so its first vectors are a smaller uniform sample.
    const coarseSample = sample.data.subarray(0, Math.min(sampled, groups * SAMPLE_PER_GROUP) * dimensions);
    const coarse = sphericalKMeans({ data: coarseSample, dimensions }, groups, {
      iterations: COARSE_ITERATIONS,
      random,
    });
    const members: number[][] = Array.from({ length: countOf(coarse) }, () => []);
    for (let point = 0; point < sampled; point += 1) {
      members[nearestCentroid(coarse, sample.data, point * dimensions)]?.push(point);
    }
    const kept: number[] = [];
    const fine: Float32Array[] = [];
    const starts = [0];
    for (const [index, group] of members.entries()) {
      if (group.length === 0) continue; // a coarse centroid no sample is nearest to owns no cell
      yield;
      const share = Math.max(1, Math.round((cells * group.length) / sampled));
      const centroids = sphericalKMeans(gather(sample, group), share, {
        iterations: FINE_ITERATIONS,
        random,
      });
      kept.push(index);
      fine.push(centroids.data);
      starts.push((starts.at(-1) as number) + countOf(centroids));
    }
    const centroids = new Float32Array((starts.at(-1) as number) * dimensions);
    fine.forEach((data, index) => {
      centroids.set(data, (starts[index] as number) * dimensions);
    });
    return new CentroidTree({ data: centroids, dimensions }, gather(coarse, kept), Int32Array.from(starts));
  }

  get cells(): number {
    return countOf(this.centroids);
  }

  /** The cell of the vector at `offset` of `vector`: the best fine centroid of its two nearest groups. */
  nearestCell(vector: Float32Array, offset = 0): number {
    const { coarse, placed } = this;
    let first = 0;
    let second = -1;
    let firstDot = Number.NEGATIVE_INFINITY;
    let secondDot = Number.NEGATIVE_INFINITY;
    const dots = this.rangeDots(coarse, placed?.coarseStart, 0, countOf(coarse), vector, offset);
    for (let group = 0, count = countOf(coarse); group < count; group += 1) {
      const dot = dots[group] as number;
      if (dot > firstDot) {
        second = first;
        secondDot = firstDot;
        first = group;
        firstDot = dot;
      } else if (dot > secondDot) {
        second = group;
        secondDot = dot;
      }
    }
    const best = this.bestInGroup(first, vector, offset);
    if (second < 0 || second === first) return best.cell;
    const runnerUp = this.bestInGroup(second, vector, offset);
    return runnerUp.dot > best.dot ? runnerUp.cell : best.cell;
  }

  /**
   * The cell whose centroid is nearest of all (ties: the lower cell), which `rankCells` ranks first
   * for the same vector: O(cells), for vectors added one by one after training, so that a search
   * for a vector always probes its cell first, even when it lies far from the data trained on.
   */
  nearestCellExact(vector: Float32Array, offset = 0): number {
    const scores = this.rangeDots(this.centroids, this.placed?.start, 0, this.cells, vector, offset);
    let best = 0;
    let bestDot = Number.NEGATIVE_INFINITY;
    for (let cell = 0, count = this.cells; cell < count; cell += 1) {
      const dot = scores[cell] as number;
      if (dot > bestDot) {
        bestDot = dot;
        best = cell;
      }
    }
    return best;
  }

  /**
   * Keeps a copy of the centroids in `arena` (that of the cells they index), so that ranking them
   * and finding a vector's cell run in its kernel: the same dot products, bit for bit. Without room
   * there, nothing changes.
   */
  placeIn(arena: VectorArena): void {
    const floats = this.cells * this.centroids.dimensions;
    const coarseFloats = countOf(this.coarse) * this.coarse.dimensions;
    const start = arena.allocate(floats);
    const coarseStart = start < 0 ? -1 : arena.allocate(coarseFloats);
    if (coarseStart < 0) return;
    arena.floats.set(this.centroids.data.subarray(0, floats), start);
    arena.floats.set(this.coarse.data.subarray(0, coarseFloats), coarseStart);
    this.placed = { arena, start, coarseStart };
  }

  /**
   * The dot products of `count` centroids of `centroids` from `from` on with the vector at `offset`
   * of `vector`, in a scratch array reused by the next call: by the arena's kernel when the
   * centroids have a copy there (from float index `placedAt`), else in JavaScript; the same sums.
   */
  private rangeDots(
    centroids: PackedVectors,
    placedAt: number | undefined,
    from: number,
    count: number,
    vector: Float32Array,
    offset: number,
  ): Float64Array {
    const { data, dimensions } = centroids;
    if (this.scratch.length < count) this.scratch = new Float64Array(count);
    const scores = this.scratch;
    const arena = this.placed?.arena;
    if (arena && placedAt !== undefined) {
      arena.setQuery(vector.subarray(offset, offset + dimensions));
      for (let done = 0; done < count; done += ARENA_BATCH) {
        const batch = Math.min(ARENA_BATCH, count - done);
        scores.set(arena.dotsAt(placedAt + (from + done) * dimensions, batch).subarray(0, batch), done);
      }
    } else {
      for (let at = 0; at < count; at += 1) {
        scores[at] = dotProduct(data, (from + at) * dimensions, vector, offset, dimensions);
      }
    }
    return scores;
  }

  /** The fine centroid of coarse group `group` nearest to the vector at `offset` of `vector`. */
  private bestInGroup(group: number, vector: Float32Array, offset: number): { cell: number; dot: number } {
    const start = this.groupStarts[group] as number;
    const end = this.groupStarts[group + 1] as number;
    const dots = this.rangeDots(this.centroids, this.placed?.start, start, end - start, vector, offset);
    let cell = start;
    let bestDot = Number.NEGATIVE_INFINITY;
    for (let at = 0; at < end - start; at += 1) {
      const dot = dots[at] as number;
      if (dot > bestDot) {
        bestDot = dot;
        cell = start + at;
      }
    }
    return { cell, dot: bestDot };
  }

  /** Every cell, nearest to `query` (largest dot product) first. */
  rankCells(query: Float32Array): Int32Array {
    const scores = this.rangeDots(this.centroids, this.placed?.start, 0, this.cells, query, 0).slice(
      0,
      this.cells,
    );
    return Int32Array.from(scores.keys()).sort(
      (left, right) => (scores[right] as number) - (scores[left] as number) || left - right,
    );
  }
}
