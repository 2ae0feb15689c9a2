/**
 * The vector scan that IVF searches spend their time in: dot products of a query with packed
 * float32 vectors, by the JavaScript loop (`dotProductPair`, two vectors a pass) and by the
 * WebAssembly SIMD kernel of `VectorArena` (dot-kernel.wat), which gives the same sums bit for
 * bit; then whole `IvfIndex` searches (limit 200, as a working set's pool) with the trained cells
 * in an arena and in ordinary arrays, over the same clustered vectors (--clusters centres, each
 * coordinate with noise), and the training that comes first (once each: compare it across runs
 * with care). Search rows interleave the two ways query by query, so load weighs on both.
 *
 * Usage: node --import tsx bench/vector-scan.ts [--vectors 100000,1000000] [--dimensions 100]
 *        [--queries 200] [--clusters 1000] [--scan 6400]
 */
import { dotProductPair, unitVector } from '../src/core/vectors/dot-product.js';
import { IvfIndex } from '../src/core/vectors/ivf-index.js';
import { VectorArena } from '../src/core/vectors/vector-arena.js';
import { clusteredVectors, machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  vectors: { type: 'string', default: '100000,1000000', check: 'numbers' },
  dimensions: { type: 'string', default: '100', check: 'number' },
  queries: { type: 'string', default: '200', check: 'number' },
  clusters: { type: 'string', default: '1000', check: 'number' },
  scan: { type: 'string', default: '6400', check: 'number' },
});
const dimensions = Number(values.dimensions);
const queries = Number(values.queries);
const clustered = clusteredVectors(11, Number(values.clusters), dimensions);

/** Raw scans of `count` packed vectors: ms per scan for each way. */
function rawScan(count: number): (string | number)[] {
  const arena = VectorArena.create(dimensions, count * dimensions);
  if (!arena) throw new Error('No WebAssembly SIMD here');
  const start = arena.allocate(count * dimensions);
  const plain = new Float32Array(count * dimensions);
  for (let row = 0; row < count; row++) plain.set(unitVector(clustered()), row * dimensions);
  arena.floats.set(plain, start);
  const pair = new Float64Array(2);
  const times = { js: [] as number[], wasm: [] as number[] };
  let sink = 0;
  for (let round = 0; round < queries; round++) {
    const unit = unitVector(clustered());
    let started = performance.now();
    for (let row = 0; row + 1 < count; row += 2) {
      dotProductPair(plain, row * dimensions, unit, dimensions, pair);
      sink += (pair[0] as number) + (pair[1] as number);
    }
    times.js.push(performance.now() - started);
    started = performance.now();
    arena.setQuery(unit);
    for (let from = 0; from < count; from += 1_024) {
      const dots = arena.dotsAt(start + from * dimensions, Math.min(1_024, count - from));
      sink += dots[0] as number;
    }
    times.wasm.push(performance.now() - started);
  }
  if (Number.isNaN(sink)) console.log('');
  const js = percentile(times.js, 50);
  const wasm = percentile(times.wasm, 50);
  return [`${count.toLocaleString('en')} packed vectors, dot products only`, js, wasm, js / wasm];
}

/** IVF searches over `count` vectors, limit 200: p50 and p99 for each way, and their ratio. */
function ivfSearch(count: number): (string | number)[][] {
  const indexes = [true, false].map((arena) => new IvfIndex(dimensions, { arena }));
  for (let key = 0; key < count; key++) {
    const vector = clustered();
    for (const index of indexes) index.add(key, vector);
  }
  // The first search trains (k-means, then every vector placed in its cell).
  const training = indexes.map((index) => {
    const started = performance.now();
    index.search(clustered(), 1);
    return performance.now() - started;
  });
  const times = [[], []] as number[][];
  for (let round = 0; round < queries + 20; round++) {
    const query = clustered();
    indexes.forEach((index, way) => {
      const started = performance.now();
      index.search(query, 200);
      if (round >= 20) times[way]?.push(performance.now() - started);
    });
  }
  const [arena = [], js = []] = times;
  const label = `IVF search of ${count.toLocaleString('en')} vectors, limit 200`;
  const [arenaTraining = 0, jsTraining = 0] = training;
  return [
    [
      `training over ${count.toLocaleString('en')} vectors`,
      jsTraining,
      arenaTraining,
      jsTraining / arenaTraining,
    ],
    [`${label}, p50`, percentile(js, 50), percentile(arena, 50), percentile(js, 50) / percentile(arena, 50)],
    [`${label}, p99`, percentile(js, 99), percentile(arena, 99), percentile(js, 99) / percentile(arena, 99)],
  ];
}

console.log(
  `Vector scan (${machine()}), ${dimensions} dimensions, ${queries} queries, ${new Date().toISOString().slice(0, 10)}\n`,
);
const rows = [rawScan(Number(values.scan))];
for (const count of values.vectors.split(',').map(Number)) rows.push(...ivfSearch(count));
printTable(['work', 'JavaScript ms', 'WebAssembly ms', 'JavaScript / WebAssembly'], rows);
