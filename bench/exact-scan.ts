/**
 * Exact vector search over a tenant's vectors as a PostgreSQL server holds them in process
 * (`ExactVectorCollection`): the plain scan (every distance in float64, by the arena's kernel)
 * against the scan screened by int8 codes first (`screenedScan`: exact distances only where the
 * codes cannot rule a vector out), limit 200 under a filter accepting 99 % of the rows, as a
 * working set's pool. The same clustered vectors and queries for both ways, interleaved query by
 * query; every answer is checked to be identical, distance for distance.
 *
 * Usage: node --import tsx bench/exact-scan.ts [--vectors 100000,250000] [--dimensions 100]
 *        [--queries 200] [--clusters 1000] [--limit 200]
 */
import { ExactVectorCollection } from '../src/stores/exact-vector-collection.js';
import { clusteredVectors, machine, percentile, printTable } from './bench-utilities.js';
import { parseBenchArguments } from './parse-bench-arguments.js';

const values = parseBenchArguments({
  vectors: { type: 'string', default: '100000,250000', check: 'numbers' },
  dimensions: { type: 'string', default: '100', check: 'number' },
  queries: { type: 'string', default: '200', check: 'number' },
  clusters: { type: 'string', default: '1000', check: 'number' },
  limit: { type: 'string', default: '200', check: 'number' },
});
const dimensions = Number(values.dimensions);
const queries = Number(values.queries);
const limit = Number(values.limit);
const clustered = clusteredVectors(13, Number(values.clusters), dimensions);

interface Row {
  id: string;
  userId: string | null;
  agentId: string | null;
  memoryType: 'semantic' | 'episodic';
  documentId: string | null;
}

function compare(count: number): (string | number)[] {
  const plain = new ExactVectorCollection<Row>(dimensions, Number.POSITIVE_INFINITY);
  const screened = new ExactVectorCollection<Row>(dimensions);
  for (let key = 0; key < count; key++) {
    const row: Row = {
      id: `m${String(key).padStart(8, '0')}`,
      userId: 'user',
      agentId: null,
      memoryType: key % 100 === 0 ? 'episodic' : 'semantic',
      documentId: null,
    };
    const vector = clustered();
    plain.set(key, row, vector);
    screened.set(key, row, vector);
  }
  const accept = (row: Row) => row.memoryType === 'semantic';
  const times = { plain: [] as number[], screened: [] as number[] };
  for (let round = 0; round < queries + 10; round++) {
    const query = clustered();
    let started = performance.now();
    const expected = plain.nearestRows(query, limit, accept);
    const plainMs = performance.now() - started;
    started = performance.now();
    const found = screened.nearestRows(query, limit, accept);
    const screenedMs = performance.now() - started;
    if (
      found.length !== expected.length ||
      found.some((hit, at) => hit.row.id !== expected[at]?.row.id || hit.distance !== expected[at]?.distance)
    ) {
      throw new Error(`the screened scan answered differently (query ${round})`);
    }
    if (round < 10) continue;
    times.plain.push(plainMs);
    times.screened.push(screenedMs);
  }
  const [plainP50, screenedP50] = [percentile(times.plain, 50), percentile(times.screened, 50)];
  return [
    count.toLocaleString('en'),
    plainP50,
    percentile(times.plain, 99),
    screenedP50,
    percentile(times.screened, 99),
    plainP50 / screenedP50,
  ];
}

console.log(
  `Exact vector scan (${machine()}), ${dimensions} dimensions, limit ${limit}, ${queries} queries, ${new Date().toISOString().slice(0, 10)}\n`,
);
printTable(
  ['vectors', 'plain p50 ms', 'plain p99 ms', 'screened p50 ms', 'screened p99 ms', 'plain / screened p50'],
  values.vectors.split(',').map(Number).map(compare),
);
