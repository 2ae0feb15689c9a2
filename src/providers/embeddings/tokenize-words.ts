/** Letters (with combining marks) and digits, joined by inner apostrophes or hyphens: `don't`, `well-known`. */
const WORD_PATTERN = /[\p{L}\p{M}\p{N}]+(?:['-][\p{L}\p{M}\p{N}]+)*/gu;

/** `n't` stems that are not the verb itself: can't, won't, shan't, ain't. */
const NEGATED_STEMS: Record<string, string> = { ca: 'can', wo: 'will', sha: 'shall', ai: 'is' };

/** Clitics after the last apostrophe; `''` drops it ('s is a possessive as often as "is"). */
const CLITICS: Record<string, string> = { s: '', re: 'are', m: 'am', ll: 'will', ve: 'have', d: 'would' };

/**
 * Splits text into lowercase word tokens the way the GloVe vocabulary spells them: NFKC-normalized,
 * curly apostrophes straightened, punctuation dropped, contractions expanded (`don't` → `do`, `not`;
 * `we're` → `we`, `are`; `john's` → `john`). Hyphenated words and names such as `o'brien` stay whole
 * so the caller can try the compound before its parts.
 */
export function tokenizeWords(text: string): string[] {
  const normalized = text
    .normalize('NFKC')
    .toLowerCase()
    .replace(/[\u2018\u2019\u02bc]/g, "'");
  const tokens: string[] = [];
  for (const [word] of normalized.matchAll(WORD_PATTERN)) {
    if (!word.includes("'")) {
      tokens.push(word);
    } else if (word.endsWith("n't") && word.length > 3) {
      const stem = word.slice(0, -3);
      tokens.push(NEGATED_STEMS[stem] ?? stem, 'not');
    } else {
      const apostrophe = word.lastIndexOf("'");
      const clitic = CLITICS[word.slice(apostrophe + 1)];
      if (clitic === undefined) {
        tokens.push(word);
      } else {
        tokens.push(word.slice(0, apostrophe));
        if (clitic !== '') tokens.push(clitic);
      }
    }
  }
  return tokens;
}
