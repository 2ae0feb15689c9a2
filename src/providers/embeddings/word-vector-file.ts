import { EngramError } from '../../core/errors.js';
import { rowBytes } from './vector-quantization.js';

/**
 * Binary layout of the static word-vector file (all numbers little-endian):
 *
 * | bytes | field |
 * | --- | --- |
 * | 4 | magic `EGWV` |
 * | 2 | format version (1) |
 * | 1 | bits per quantized component (4..8) |
 * | 1 | reserved, 0 |
 * | 2 | dimensions |
 * | 2 | reserved, 0 |
 * | 4 | word count |
 * | 4 | label length in bytes |
 * | 4 | word list length in bytes |
 * | 4 | float32: norm given to out-of-vocabulary vectors |
 * | … | label, UTF-8 (source package and build recipe, becomes part of the model id) |
 * | … | word list, UTF-8, one word per `\n`, most frequent first; zero padding to a multiple of 4 |
 * | 4 × count | float32 scale per vector |
 * | rowBytes × count | quantized components, `bits` each, packed LSB-first, every row byte-aligned |
 *
 * Scales are read and written as native float32, i.e. little-endian on every platform Node supports.
 * A component is stored as the unsigned code `q + levels` with `q = round(value / scale)` and
 * `levels = 2^(bits-1) - 1`, so it decodes as `(code - levels) * scale`.
 */
export interface WordVectorFile {
  label: string;
  dimensions: number;
  bits: number;
  /** Words by frequency rank (index 0 is the most frequent). */
  words: string[];
  /** Per-vector scale, one per word. */
  scales: Float32Array;
  /** Packed codes, `rowBytes(dimensions, bits)` per word. */
  codes: Uint8Array;
  outOfVocabularyNorm: number;
}

const MAGIC = 'EGWV';
const FORMAT_VERSION = 1;
const HEADER_BYTES = 28;

/** Serializes a word-vector file; the inverse of {@link decodeWordVectorFile}. */
export function encodeWordVectorFile(file: WordVectorFile): Uint8Array {
  const encoder = new TextEncoder();
  const label = encoder.encode(file.label);
  const words = encoder.encode(file.words.join('\n'));
  const textEnd = HEADER_BYTES + label.length + words.length;
  const scalesStart = Math.ceil(textEnd / 4) * 4;
  const codesStart = scalesStart + file.scales.byteLength;
  const output = new Uint8Array(codesStart + file.codes.length);
  const view = new DataView(output.buffer);
  output.set(encoder.encode(MAGIC), 0);
  view.setUint16(4, FORMAT_VERSION, true);
  view.setUint8(6, file.bits);
  view.setUint16(8, file.dimensions, true);
  view.setUint32(12, file.words.length, true);
  view.setUint32(16, label.length, true);
  view.setUint32(20, words.length, true);
  view.setFloat32(24, file.outOfVocabularyNorm, true);
  output.set(label, HEADER_BYTES);
  output.set(words, HEADER_BYTES + label.length);
  output.set(new Uint8Array(file.scales.buffer, file.scales.byteOffset, file.scales.byteLength), scalesStart);
  output.set(file.codes, codesStart);
  return output;
}

/** Parses a word-vector file, checking the magic, version and that every section fits. */
export function decodeWordVectorFile(bytes: Uint8Array): WordVectorFile {
  const invalid = (reason: string) =>
    new EngramError('word_vectors_invalid', 'validation', `Invalid word-vector file: ${reason}`);
  if (bytes.length < HEADER_BYTES) throw invalid('shorter than its header');
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const decoder = new TextDecoder('utf-8', { fatal: true });
  if (decoder.decode(bytes.subarray(0, 4)) !== MAGIC) throw invalid('wrong magic number');
  const version = view.getUint16(4, true);
  if (version !== FORMAT_VERSION) throw invalid(`unsupported format version ${version}`);
  const bits = view.getUint8(6);
  const dimensions = view.getUint16(8, true);
  const count = view.getUint32(12, true);
  const labelLength = view.getUint32(16, true);
  const wordsLength = view.getUint32(20, true);
  if (bits < 4 || bits > 8 || dimensions === 0) throw invalid(`bad shape (bits ${bits}, dims ${dimensions})`);
  const wordsStart = HEADER_BYTES + labelLength;
  const scalesStart = Math.ceil((wordsStart + wordsLength) / 4) * 4;
  const codesStart = scalesStart + 4 * count;
  const codesLength = rowBytes(dimensions, bits) * count;
  if (bytes.length !== codesStart + codesLength) throw invalid('length does not match its header');
  const words =
    count === 0 ? [] : decoder.decode(bytes.subarray(wordsStart, wordsStart + wordsLength)).split('\n');
  if (words.length !== count) throw invalid(`header says ${count} words, list has ${words.length}`);
  // Copy so the Float32Array is aligned whatever the source's offset (a Buffer may share a pool).
  const scales = new Float32Array(count);
  new Uint8Array(scales.buffer).set(bytes.subarray(scalesStart, codesStart));
  return {
    label: decoder.decode(bytes.subarray(HEADER_BYTES, wordsStart)),
    dimensions,
    bits,
    words,
    scales,
    codes: bytes.subarray(codesStart),
    outOfVocabularyNorm: view.getFloat32(24, true),
  };
}
