/**
 * Measures the static provider: load time, embedding throughput, and how well it ranks a small
 * hand-written set of paraphrases (a sanity check, not a benchmark of record).
 *
 *   npx tsx scripts/bench-static-embeddings.ts
 */

import { parseBenchArguments } from '../bench/parse-bench-arguments.js';
import { dotProduct } from '../src/providers/embeddings/l2-normalize.js';
import { createStaticEmbeddingProvider } from '../src/providers/embeddings/static-embedding-provider.js';

// No flags: any is an error (and ENGRAM_BENCH_CHECK_ARGUMENTS=1 stops here).
parseBenchArguments({});

/** [anchor, paraphrase, unrelated] */
const TRIPLES: [string, string, string][] = [
  ['I adopted a puppy', 'we got a new dog', 'the stock market fell'],
  ['my flight to paris was delayed', 'the plane to france left late', 'she enjoys cooking pasta'],
  [
    'the user prefers dark mode in the editor',
    'he likes a black theme for his code editor',
    'the invoice is due next week',
  ],
  ["I'm allergic to peanuts", 'nuts make me sick', 'the meeting moved to thursday'],
  [
    'the server crashed after the deployment',
    'production went down following the release',
    'my sister lives in boston',
  ],
  ['we should buy more milk and eggs', 'add groceries to the shopping list', 'the senate passed the bill'],
  ['he is learning to play the guitar', 'she takes piano lessons', 'the bridge was closed for repairs'],
  ['the car needs new tires', 'replace the wheels on the vehicle', 'the cat sleeps on the sofa'],
  [
    'interest rates were raised by the central bank',
    'the federal reserve increased borrowing costs',
    'the children played football in the park',
  ],
  ['her birthday is in june', 'she was born in the summer', 'the database query is slow'],
  [
    'the doctor prescribed antibiotics',
    'the physician gave me medicine for the infection',
    'we painted the fence blue',
  ],
  ['my favourite food is sushi', 'i love japanese cuisine', 'the train arrives at noon'],
  [
    'the project deadline is friday',
    'we must finish the work by the end of the week',
    'a storm hit the coast',
  ],
  ['I moved to a new apartment', 'we relocated to another house', 'the team won the championship'],
  ['the laptop battery drains quickly', "my computer doesn't hold a charge", 'the museum opens at nine'],
  ['the kids are on summer vacation', 'school is out for the holidays', 'he repaired the leaking roof'],
  ['deploy with kubectl apply', 'run kubectl apply to roll out', 'buy flowers for mom'],
  ['order ZX-4471 has shipped', 'where is my order ZX-4471?', 'order a pizza tonight'],
];

const loadTimes: number[] = [];
for (let run = 0; run < 5; run++) {
  const started = performance.now();
  await createStaticEmbeddingProvider();
  loadTimes.push(performance.now() - started);
}
const provider = await createStaticEmbeddingProvider();
console.log(`model ${provider.model}, ${provider.dimensions} dimensions`);
console.log(
  `load: first ${loadTimes[0]?.toFixed(1)} ms, median ${loadTimes.sort((a, b) => a - b)[2]?.toFixed(1)} ms`,
);

const sentences = Array.from(
  { length: 10_000 },
  (_, index) => TRIPLES[index % TRIPLES.length]?.[index % 3] ?? '',
);
const started = performance.now();
await provider.embed(sentences);
const seconds = (performance.now() - started) / 1000;
console.log(`throughput: ${Math.round(sentences.length / seconds)} sentences/s`);

const vectors = await Promise.all(TRIPLES.map((triple) => provider.embed(triple)));
const pool = vectors.flatMap((triple, group) =>
  triple.map((vector, position) => ({ vector, group, position })),
);
let reciprocalRanks = 0;
let paraphraseCosine = 0;
let unrelatedCosine = 0;
let correct = 0;
for (const [group, [anchor, paraphrase, unrelated]] of vectors.entries()) {
  if (!anchor || !paraphrase || !unrelated) continue;
  const positive = dotProduct(anchor, paraphrase);
  const negative = dotProduct(anchor, unrelated);
  paraphraseCosine += positive;
  unrelatedCosine += negative;
  if (positive > negative) correct++;
  const outranking = pool.filter(
    (other) => !(other.group === group && other.position < 2) && dotProduct(anchor, other.vector) >= positive,
  );
  reciprocalRanks += 1 / (outranking.length + 1);
}
const count = TRIPLES.length;
console.log(`paraphrase beats unrelated: ${correct}/${count}`);
console.log(
  `mean cosine: paraphrase ${(paraphraseCosine / count).toFixed(3)}, unrelated ${(unrelatedCosine / count).toFixed(3)}`,
);
console.log(
  `paraphrase retrieval among all ${pool.length - 1} other sentences: MRR ${(reciprocalRanks / count).toFixed(3)}`,
);
