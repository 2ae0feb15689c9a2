import type { Database } from 'better-sqlite3';
import { cosineDistance, vectorNorm } from '../memory-rules.js';
import { blobVector } from './memory-record-rows.js';

/** How a connection computes cosine distances in SQL. */
export interface VectorDistance {
  engine: 'sqlite-vec' | 'javascript';
  /** SQL function `(vector BLOB, vector BLOB) -> distance`, NULL when either vector is zero. */
  sqlFunction: string;
}

const FALLBACK_FUNCTION = 'engram_cosine_distance';

/** Cosine distance of two float32 BLOBs, with sqlite-vec's NULL for a zero vector. */
function cosineOfBlobs(left: Uint8Array, right: Uint8Array): number | null {
  const a = blobVector(left);
  const b = blobVector(right);
  if (a.length !== b.length) throw new Error(`Vector dimension mismatch: ${a.length} and ${b.length}`);
  const leftNorm = vectorNorm(a);
  const rightNorm = vectorNorm(b);
  if (leftNorm === 0 || rightNorm === 0) return null;
  let dot = 0;
  for (let index = 0; index < a.length; index += 1) dot += (a[index] as number) * (b[index] as number);
  return cosineDistance(dot, leftNorm, rightNorm);
}

/**
 * Gives `database` a cosine distance function: sqlite-vec's `vec_distance_cosine` (native code,
 * loaded lazily with a dynamic import, so that nothing else depends on the package), or, when the
 * package or its binary for this platform is missing, or `preferExtension` is false, a JavaScript
 * function registered under another name. Either way the distance is computed inside the query
 * over the filtered rows, and only the best `limit` rows come back.
 */
export async function installVectorDistance(
  database: Database,
  preferExtension = true,
): Promise<VectorDistance> {
  if (preferExtension) {
    try {
      const sqliteVec = await import('sqlite-vec');
      sqliteVec.load(database);
      return { engine: 'sqlite-vec', sqlFunction: 'vec_distance_cosine' };
    } catch {
      // Fall through to the JavaScript function: slower, same results.
    }
  }
  database.function(FALLBACK_FUNCTION, { deterministic: true }, (left: unknown, right: unknown) =>
    left instanceof Uint8Array && right instanceof Uint8Array ? cosineOfBlobs(left, right) : null,
  );
  return { engine: 'javascript', sqlFunction: FALLBACK_FUNCTION };
}
