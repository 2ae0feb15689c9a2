import { countTokens as countCl100k } from 'gpt-tokenizer/encoding/cl100k_base';
import { countTokens as countO200k } from 'gpt-tokenizer/encoding/o200k_base';

// Special-token text counted as plain text, as engram's counters count it.
const options = { disallowedSpecial: new Set<string>() };

/** gpt-tokenizer's own count of a whole text, per encoding: the reference the counting tests compare with. */
export const exactTokenCounts = {
  cl100k_base: (text: string) => countCl100k(text, options),
  o200k_base: (text: string) => countO200k(text, options),
};
