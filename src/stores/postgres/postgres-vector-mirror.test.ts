import { describe, expect, it } from 'vitest';
import type { StableMemoryFields } from '../memory-filter.js';
import { arraySendVector, mirrorVector, newVectorMirror, vectorFloats } from './postgres-vector-mirror.js';

/** `array_send` of a one-dimensional float4 array, as PostgreSQL writes it. */
function arraySend(values: number[], { elementType = 700, elementLength = 4 } = {}): Uint8Array {
  const bytes = new DataView(new ArrayBuffer(20 + values.length * 8));
  bytes.setInt32(0, 1); // dimensions
  bytes.setInt32(4, 0); // no nulls
  bytes.setInt32(8, elementType);
  bytes.setInt32(12, values.length);
  bytes.setInt32(16, 1); // lower bound
  values.forEach((value, index) => {
    bytes.setInt32(20 + index * 8, elementLength);
    bytes.setFloat32(24 + index * 8, value);
  });
  return new Uint8Array(bytes.buffer);
}

const fields = (id: string) =>
  ({
    id,
    validTo: null,
    namespace: null,
    userId: 'user-1',
    sessionId: null,
    agentId: null,
    documentId: null,
    memoryType: 'semantic',
    topics: [],
    entities: [],
    createdAt: '2026-01-01T00:00:00.000Z',
    eventDate: null,
    pinned: false,
  }) as StableMemoryFields;

describe('vector mirror', () => {
  it('reads the binary form of a float4 array, and nothing else', () => {
    expect(arraySendVector(arraySend([0.5, -2, 3.25]))).toEqual(Float32Array.of(0.5, -2, 3.25));
    // An empty array: no dimensions, no dimension entry.
    expect(arraySendVector(new Uint8Array([0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 188]))).toBeNull();
    expect(arraySendVector(arraySend([1, 2], { elementType: 701 }))).toBeNull(); // float8
    expect(arraySendVector(arraySend([1, 2], { elementLength: -1 }))).toBeNull(); // a null element
    expect(arraySendVector(arraySend([1, 2]).subarray(0, 30))).toBeNull();
  });

  it('moves a row between models, removes it with its row or vector, and gives up past its limits', () => {
    const vectors = newVectorMirror();
    expect(mirrorVector(vectors, 1, fields('a'), 'm1', arraySend([1, 0]))).toBe(true);
    expect(mirrorVector(vectors, 1, fields('a'), 'm2', arraySend([0, 1, 0]))).toBe(true);
    expect(vectors.byModel.get('m1')?.size).toBe(0);
    expect(vectors.byModel.get('m2')?.size).toBe(1);
    expect(mirrorVector(vectors, 1, fields('a'), null, null)).toBe(true);
    expect(vectors.byModel.get('m2')?.size).toBe(0);
    expect(mirrorVector(vectors, 2, fields('b'), 'm2', arraySend([1, 1, 1]))).toBe(true);
    expect(mirrorVector(vectors, 2, undefined, null, null)).toBe(true);
    expect(vectors.modelByPk.size).toBe(0);
    // Another length than the model's other vectors, or bytes it cannot read.
    expect(mirrorVector(vectors, 3, fields('c'), 'm2', arraySend([1, 1]))).toBe(false);
    expect(mirrorVector(newVectorMirror(), 3, fields('c'), 'm2', new Uint8Array(3))).toBe(false);
    // Growth past the float limit (16 slots of 2 floats fit in 40, the 17th doubles them).
    const capped = newVectorMirror();
    for (let pk = 0; pk < 16; pk += 1) {
      expect(mirrorVector(capped, pk, fields(`r${pk}`), 'm1', arraySend([pk, 1]), 40)).toBe(true);
    }
    expect(vectorFloats(capped)).toBe(32);
    expect(mirrorVector(capped, 16, fields('r16'), 'm1', arraySend([1, 1]), 40)).toBe(false);
  });
});
