import { dotProduct } from './dot-product.js';

/** Unit vectors packed one after another in a Float32Array: vector i at `i * dimensions`. */
export interface PackedVectors {
  data: Float32Array;
  dimensions: number;
}

/** How many vectors `vectors` holds. */
export const countOf = (vectors: PackedVectors): number =>
  vectors.dimensions === 0 ? 0 : vectors.data.length / vectors.dimensions;

/** The index of the centroid with the largest dot product with the vector at `offset` of `points`. */
export function nearestCentroid(centroids: PackedVectors, points: Float32Array, offset: number): number {
  const { data, dimensions } = centroids;
  let best = 0;
  let bestDot = Number.NEGATIVE_INFINITY;
  for (let centroid = 0, count = countOf(centroids); centroid < count; centroid += 1) {
    const dot = dotProduct(data, centroid * dimensions, points, offset, dimensions);
    if (dot > bestDot) {
      bestDot = dot;
      best = centroid;
    }
  }
  return best;
}

/**
 * k-means++ seeding: each next seed is drawn with probability proportional to its cosine distance
 * to the nearest seed so far (for unit vectors, squared Euclidean distance is twice that), which
 * spreads the seeds over the data. Falls back to uniform draws when every point is already a seed.
 */
function seedCentroids(points: PackedVectors, k: number, random: () => number): PackedVectors {
  const { data, dimensions } = points;
  const count = countOf(points);
  const seeds = new Float32Array(k * dimensions);
  const closest = new Float64Array(count).fill(Number.POSITIVE_INFINITY);
  let chosen = Math.floor(random() * count);
  for (let seed = 0; seed < k; seed += 1) {
    seeds.set(data.subarray(chosen * dimensions, (chosen + 1) * dimensions), seed * dimensions);
    let total = 0;
    for (let point = 0; point < count; point += 1) {
      const distance = Math.max(
        0,
        1 - dotProduct(data, point * dimensions, seeds, seed * dimensions, dimensions),
      );
      if (distance < (closest[point] as number)) closest[point] = distance;
      total += closest[point] as number;
    }
    let target = random() * total;
    chosen = Math.floor(random() * count);
    if (total > 0) {
      for (let point = 0; point < count; point += 1) {
        target -= closest[point] as number;
        if (target <= 0 && (closest[point] as number) > 0) {
          chosen = point;
          break;
        }
      }
    }
  }
  return { data: seeds, dimensions };
}

/** Options of {@link sphericalKMeans}. */
export interface KMeansOptions {
  /** Lloyd iterations after seeding (fewer when assignments stop changing). */
  iterations: number;
  random: () => number;
}

/**
 * Spherical k-means over unit vectors: k-means++ seeds, then Lloyd iterations that assign each
 * point to the centroid of largest dot product and move each centroid to the normalized mean of
 * its points. Returns min(k, count) unit centroids; a centroid that loses all its points stays put.
 */
export function sphericalKMeans(points: PackedVectors, k: number, options: KMeansOptions): PackedVectors {
  const { data, dimensions } = points;
  const count = countOf(points);
  const clusters = Math.min(k, count);
  if (clusters === 0) return { data: new Float32Array(0), dimensions };
  const centroids = seedCentroids(points, clusters, options.random);
  const assignment = new Int32Array(count).fill(-1);
  for (let iteration = 0; iteration < options.iterations; iteration += 1) {
    let changed = 0;
    const sums = new Float64Array(clusters * dimensions);
    for (let point = 0; point < count; point += 1) {
      const cluster = nearestCentroid(centroids, data, point * dimensions);
      if (assignment[point] !== cluster) changed += 1;
      assignment[point] = cluster;
      for (let axis = 0; axis < dimensions; axis += 1) {
        sums[cluster * dimensions + axis] =
          (sums[cluster * dimensions + axis] as number) + (data[point * dimensions + axis] as number);
      }
    }
    if (changed === 0) break;
    for (let cluster = 0; cluster < clusters; cluster += 1) {
      const offset = cluster * dimensions;
      let norm = 0;
      for (let axis = 0; axis < dimensions; axis += 1) norm += (sums[offset + axis] as number) ** 2;
      if (norm === 0) continue;
      norm = Math.sqrt(norm);
      for (let axis = 0; axis < dimensions; axis += 1) {
        centroids.data[offset + axis] = (sums[offset + axis] as number) / norm;
      }
    }
  }
  return centroids;
}
