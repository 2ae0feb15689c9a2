import type { MemoryFilter } from '../../core/schemas/memory-record.js';
import { ExactVectorCollection } from '../exact-vector-collection.js';
import { compileStableMemoryFilter, type StableMemoryFields } from '../memory-filter.js';
import { hitTraits, type VectorHit } from '../memory-record-store.js';

/**
 * Vector floats one tenant's mirror reserves at most, int8 codes counted as a quarter float a byte
 * (160 MB: room doubles, so up to 262,144 vectors of 100 dimensions, 16,384 of 1,536). A larger
 * tenant's vector searches stay in PostgreSQL (pgvector's HNSW index).
 */
export const MAX_TENANT_VECTOR_FLOATS = 40_000_000;
/**
 * Vector floats held across the mirrors of one process (384 MB): past it, the least recently
 * searched tenants' mirrors are dropped when another is published.
 */
export const MAX_MIRRORED_VECTOR_FLOATS = 96_000_000;

/** PostgreSQL's type oid of `real` (float4), the element type of `memory_embeddings.vector`. */
const FLOAT4_OID = 700;

/**
 * A tenant's vectors as its in-process mirror holds them: one exact collection per embedding
 * model, keyed by memory pk, each row with the fields a filter reads.
 */
export interface VectorMirror {
  byModel: Map<string, ExactVectorCollection<StableMemoryFields>>;
  modelByPk: Map<number, string>;
}

export const newVectorMirror = (): VectorMirror => ({ byModel: new Map(), modelByPk: new Map() });

/** Floats the mirror's collections reserve (0 for none). */
export function vectorFloats(vectors: VectorMirror | null): number {
  let floats = 0;
  for (const collection of vectors?.byModel.values() ?? []) floats += collection.floats;
  return floats;
}

/**
 * The vector of `array_send(vector)` (PostgreSQL's binary array format: a header, then each
 * element's length and big-endian float4), or null when the bytes are not a one-dimensional
 * array of non-null float4 values. Binary: parsing the text form of 100,000 vectors took 5× as
 * long.
 */
export function arraySendVector(bytes: Uint8Array): Float32Array | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  if (bytes.byteLength < 12 || view.getInt32(0) !== 1 || view.getInt32(8) !== FLOAT4_OID) return null;
  const length = view.getInt32(12);
  if (bytes.byteLength !== 20 + length * 8) return null;
  const vector = new Float32Array(length);
  for (let index = 0; index < length; index += 1) {
    const at = 20 + index * 8;
    if (view.getInt32(at) !== 4) return null;
    vector[index] = view.getFloat32(at + 4);
  }
  return vector;
}

/**
 * Applies the row `pk` as it is now to the mirror: `fields` undefined when the row is gone,
 * `model` and `bytes` (`array_send` of its vector) null when it has no vector. False when the
 * tenant's vectors can no longer be mirrored: past `MAX_TENANT_VECTOR_FLOATS`, or a vector it
 * cannot read or whose length differs from its model's others (the caller then drops them).
 * `maxFloats` is checked when a collection grows.
 */
export function mirrorVector(
  vectors: VectorMirror,
  pk: number,
  fields: StableMemoryFields | undefined,
  model: string | null,
  bytes: Uint8Array | null,
  maxFloats = MAX_TENANT_VECTOR_FLOATS,
): boolean {
  const before = vectors.modelByPk.get(pk);
  const now = fields && model !== null && bytes !== null ? model : undefined;
  if (before !== undefined && before !== now) {
    vectors.byModel.get(before)?.delete(pk);
    vectors.modelByPk.delete(pk);
  }
  if (now === undefined || fields === undefined || bytes === null) return true;
  const vector = arraySendVector(bytes);
  if (vector === null) return false;
  let collection = vectors.byModel.get(now);
  if (!collection) {
    collection = new ExactVectorCollection<StableMemoryFields>(vector.length);
    vectors.byModel.set(now, collection);
  }
  if (collection.dimensions !== vector.length) return false;
  const floats = collection.floats;
  collection.set(pk, fields, vector);
  vectors.modelByPk.set(pk, now);
  return collection.floats === floats || vectorFloats(vectors) <= maxFloats;
}

/**
 * `searchVector` over a tenant's mirrored vectors of one model: the `limit` nearest the filter
 * accepts (it must not bound `lastAccessed`), nearest first, ties by id, as the exact scan in SQL
 * answers.
 */
export function searchVectorMirror(
  collection: ExactVectorCollection<StableMemoryFields>,
  vector: Float32Array,
  filter: MemoryFilter,
  limit: number,
): VectorHit[] {
  const accept = compileStableMemoryFilter(filter);
  return collection
    .nearestRows(vector, limit, accept, filter)
    .map(({ row, distance }) => ({ id: row.id, distance, traits: hitTraits(row) }));
}
