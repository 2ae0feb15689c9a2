import { describe, expect, it } from 'vitest';
import { EngramError } from '../../core/errors.js';
import { quantizeVectors } from './vector-quantization.js';
import { decodeWordVectorFile, encodeWordVectorFile, type WordVectorFile } from './word-vector-file.js';

function sampleFile(): WordVectorFile {
  const vectors = Float32Array.from({ length: 3 * 5 }, (_, index) => Math.sin(index + 1));
  return {
    label: 'sample@1:3:q6',
    dimensions: 5,
    bits: 6,
    words: ['the', 'café', 'well-known'],
    ...quantizeVectors(vectors, 5, 6),
    outOfVocabularyNorm: 2.5,
  };
}

describe('word-vector file', () => {
  it('round-trips every field', () => {
    const file = sampleFile();
    expect(decodeWordVectorFile(encodeWordVectorFile(file))).toEqual(file);
  });

  it('decodes from a view at an unaligned offset, as a pooled Buffer may be', () => {
    const encoded = encodeWordVectorFile(sampleFile());
    const shifted = new Uint8Array(encoded.length + 3);
    shifted.set(encoded, 3);
    expect(decodeWordVectorFile(shifted.subarray(3))).toEqual(sampleFile());
  });

  it('rejects wrong magic, version, truncation and trailing bytes', () => {
    const encoded = encodeWordVectorFile(sampleFile());
    const corruptions = [
      encoded.slice(0, 10),
      encoded.slice(0, -1),
      Uint8Array.from([...encoded, 0]),
      Uint8Array.from(encoded, (byte, index) => (index === 0 ? 0x58 : byte)),
      Uint8Array.from(encoded, (byte, index) => (index === 4 ? 9 : byte)),
    ];
    for (const corrupt of corruptions) {
      expect(() => decodeWordVectorFile(corrupt)).toThrow(EngramError);
    }
  });
});
