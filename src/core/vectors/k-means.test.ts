import { describe, expect, it } from 'vitest';
import { CentroidTree } from './centroid-tree.js';
import { dotProduct, unitVector } from './dot-product.js';
import { countOf, nearestCentroid, type PackedVectors, sphericalKMeans } from './k-means.js';
import { seededRandom } from './seeded-random.js';

/** `perAxis` noisy unit vectors around each of the first `axes` axes of a `dimensions`-space, packed. */
function aroundAxes(axes: number, perAxis: number, dimensions: number, seed: number): PackedVectors {
  const random = seededRandom(seed);
  const data = new Float32Array(axes * perAxis * dimensions);
  for (let point = 0; point < axes * perAxis; point += 1) {
    const vector = Float32Array.from({ length: dimensions }, () => (random() - 0.5) * 0.2);
    vector[point % axes] = 1;
    data.set(unitVector(vector), point * dimensions);
  }
  return { data, dimensions };
}

describe('spherical k-means', () => {
  it('puts one unit centroid on each well-separated cluster, the same for the same seed', () => {
    const points = aroundAxes(4, 50, 8, 1);
    const centroids = sphericalKMeans(points, 4, { iterations: 10, random: seededRandom(5) });
    expect(countOf(centroids)).toBe(4);
    const axes = new Set<number>();
    for (let centroid = 0; centroid < 4; centroid += 1) {
      const vector = centroids.data.subarray(centroid * 8, (centroid + 1) * 8);
      expect(dotProduct(vector, 0, vector, 0, 8)).toBeCloseTo(1, 5);
      const axis = vector.indexOf(Math.max(...vector));
      expect(vector[axis]).toBeGreaterThan(0.95);
      axes.add(axis);
    }
    expect(axes).toEqual(new Set([0, 1, 2, 3]));
    expect(sphericalKMeans(points, 4, { iterations: 10, random: seededRandom(5) })).toEqual(centroids);
  });

  it('returns at most one centroid per point', () => {
    const points = aroundAxes(2, 1, 4, 2);
    expect(countOf(sphericalKMeans(points, 5, { iterations: 3, random: seededRandom(1) }))).toBe(2);
    expect(
      countOf(
        sphericalKMeans({ data: new Float32Array(0), dimensions: 4 }, 3, {
          iterations: 3,
          random: seededRandom(1),
        }),
      ),
    ).toBe(0);
  });
});

describe('centroid tree', () => {
  it('trains about the requested cells and sends each vector to a cell of its own cluster', () => {
    const points = aroundAxes(16, 40, 32, 3);
    const tree = CentroidTree.train(points, 16, seededRandom(9));
    expect(tree.cells).toBeGreaterThanOrEqual(12);
    expect(tree.cells).toBeLessThanOrEqual(20);
    for (let point = 0; point < countOf(points); point += 1) {
      const cell = tree.nearestCell(points.data, point * 32);
      // Its cell's centroid is as near as the best of all centroids, to within the clusters' noise.
      const best = nearestCentroid(tree.centroids, points.data, point * 32);
      const dot = (index: number) => dotProduct(tree.centroids.data, index * 32, points.data, point * 32, 32);
      expect(dot(cell)).toBeGreaterThan(dot(best) - 0.05);
    }
    const ranked = tree.rankCells(points.data.subarray(0, 32));
    expect([...ranked].sort((left, right) => left - right)).toEqual([...Array(tree.cells).keys()]);
    expect(ranked[0]).toBe(nearestCentroid(tree.centroids, points.data, 0));
  });
});
