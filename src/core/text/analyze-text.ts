import { stemmer } from 'stemmer';

/**
 * English stopwords: function words that carry no topic. Kept short on purpose: words such as
 * "when", "where", "who" matter to questions but not to matching, so they are listed too.
 */
export const STOPWORDS: ReadonlySet<string> = new Set(
  (
    'a about above after again against all am an and any are as at be because been before being below ' +
    'between both but by can could did do does doing down during each few for from further had has have ' +
    'having he her here hers herself him himself his how i if in into is it its itself just me more most my ' +
    'myself no nor not now of off on once only or other our ours ourselves out over own same she should so ' +
    'some such than that the their theirs them themselves then there these they this those through to too ' +
    'under until up very was we were what when where which while who whom why will with would you your ' +
    "yours yourself yourselves also get got go going gone im ive id youre dont didnt doesnt thats it's " +
    'yeah yes oh hey hi really like just lot lots much many one ones thing things something anything'
  ).split(/\s+/),
);

const WORD = /[\p{L}\p{N}]+(?:['’][\p{L}]+)?/gu;

/** Lowercased words with diacritics removed and possessive/contraction tails dropped. */
export function words(text: string): string[] {
  const normalized = text
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const result: string[] = [];
  for (const match of normalized.matchAll(WORD)) {
    const word = match[0].replace(/['’](s|t|re|ve|ll|d|m)$/u, '');
    if (word.length > 0) result.push(word);
  }
  return result;
}

/** Words stemmed so far: text repeats a small vocabulary, and Porter's regexps cost ~4 µs a word. */
const stems = new Map<string, string>();
const REMEMBERED_STEMS = 100_000;

/**
 * Longest word stemmed. Longer ones are kept as they are and never remembered, as SQLite FTS5's
 * porter tokenizer passes tokens over 64 bytes through: no English word is that long, and the memo
 * would otherwise keep whatever a text's longest run of letters is (up to 100,000 of them).
 */
const MAX_STEMMED_CHARS = 64;

/** `stemmer(word)`, remembered (forgotten all at once past `REMEMBERED_STEMS` words, to bound memory). */
export function stem(word: string): string {
  if (word.length > MAX_STEMMED_CHARS) return word;
  let stemmed = stems.get(word);
  if (stemmed === undefined) {
    if (stems.size >= REMEMBERED_STEMS) stems.clear();
    stemmed = stemmer(word);
    stems.set(word, stemmed);
  }
  return stemmed;
}

/**
 * Index terms of a text: words minus stopwords, Porter-stemmed, the same analysis that SQLite
 * FTS5's `porter` tokenizer applies, so the in-memory and SQLite search agree closely.
 */
export function analyzeText(text: string): string[] {
  const terms: string[] = [];
  for (const word of words(text)) if (!STOPWORDS.has(word)) terms.push(stem(word));
  return terms;
}
