import { ValidationError } from '../../../core/errors.js';
import type { JsonValue } from '../../../core/schemas/json.js';

/** Longest custom extraction prompt accepted, in characters. */
export const MAX_CUSTOM_PROMPT_CHARS = 2_000;

/**
 * What a custom prompt may not contain, each with the reason given back to the caller. The prompt
 * is matched after NFKC normalization, with invisible characters removed, whitespace collapsed
 * and letters lowercased, so full-width letters, zero-width joiners and line breaks do not hide a
 * phrase. A list of phrases is a mitigation, not a guarantee: see docs/extraction.md.
 */
const FORBIDDEN: { pattern: RegExp; reason: string }[] = [
  {
    pattern:
      /\b(ignore|disregard|forget|override|bypass)\b.{0,40}\b(previous|prior|above|earlier|preceding|system|original|all|these|those|your|the|any)\b.{0,20}\b(instructions?|prompts?|rules?|directions?|guidelines?|constraints?)\b/,
    reason: 'tries to override the extraction instructions',
  },
  {
    pattern: /\b(new|updated|real|actual|different) (system )?(instructions?|rules|prompt)\b/,
    reason: 'announces new instructions',
  },
  {
    pattern: /\bsystem (prompt|message|instructions?)\b/,
    reason: 'refers to the system prompt',
  },
  {
    pattern:
      /\b(you are now|from now on|pretend (to be|you are)|role-?play|jailbreak|developer mode|dan mode)\b/,
    reason: 'tries to change the model’s role',
  },
  {
    pattern: /(^|\n)\s*(system|assistant|developer|user|human|ai)\s*:/,
    reason: 'contains a chat role marker',
  },
  {
    pattern:
      /<\|[^|]{0,40}\|>|\[\/?inst\]|<<\/?sys>>|<\/?(system|assistant|user|developer|transcript|extraction_focus|known_memories)\b[^>]{0,40}>|#{2,}\s*(system|instruction|assistant|user)\b/,
    reason: 'contains a chat template or prompt delimiter',
  },
  {
    pattern:
      /\b(respond|reply|answer|return|output|format|write|give)\b.{0,30}\b(in|as|using|with)\b.{0,20}\b(xml|yaml|markdown|html|csv|plain ?text)\b/,
    reason: 'tries to change the output format',
  },
  {
    pattern:
      /\b(do not|don't|dont|never|stop|instead of)\b.{0,20}\b(use|return|output|respond (in|with)|answer (in|with))?\s*json\b/,
    reason: 'tries to change the output format',
  },
  {
    pattern: /\b(output|response|answer) (format|schema|structure)\b|\bjson (schema|format|keys?|fields?)\b/,
    reason: 'tries to change the output format',
  },
  {
    pattern:
      /\b(reveal|print|repeat|show|leak|disclose)\b.{0,30}\b(instructions?|prompts?|rules|secrets?|api keys?|passwords?|credentials?)\b/,
    reason: 'asks to reveal instructions or secrets',
  },
  {
    pattern: /\{\{|\}\}|\$\{|\{%|%\}/,
    reason: 'contains template syntax',
  },
];

/** Zero-width, bidirectional and other invisible formatting characters, which hide text from a reader. */
const INVISIBLE = /\p{Default_Ignorable_Code_Point}/gu;
// Control characters other than tab and line breaks: they have no place in an instruction.
// biome-ignore lint/suspicious/noControlCharactersInRegex: matching them is the point.
const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f]/;

/** The prompt as the patterns see it. */
export function normalizeForScreening(prompt: string): string {
  return prompt
    .normalize('NFKC')
    .replace(INVISIBLE, '')
    .replace(/[ \t]+/g, ' ')
    .toLowerCase();
}

const reject = (message: string) =>
  new ValidationError(`Invalid custom extraction prompt: ${message}`, [
    { path: ['config', 'custom_prompt'], message },
  ]);

/**
 * Checks the `custom` strategy's prompt (`config.custom_prompt`, as in AMS) and returns it trimmed.
 * Throws a ValidationError naming the problem when it is missing, not a string, longer than
 * {@link MAX_CUSTOM_PROMPT_CHARS}, contains control or invisible formatting characters, or
 * matches one of the override patterns (instruction overrides, role markers and chat templates,
 * output format changes, requests to reveal the prompt, template syntax). Passing this check does
 * not make a prompt trusted: it is still only ever quoted as data inside a fixed system frame.
 */
export function validateCustomPrompt(config: Record<string, JsonValue>): string {
  const value = config.custom_prompt;
  if (value === undefined || value === null) {
    throw reject('the custom strategy needs config.custom_prompt (what to extract, in words)');
  }
  if (typeof value !== 'string') throw reject('config.custom_prompt must be a string');
  const prompt = value.trim();
  if (prompt.length === 0) throw reject('config.custom_prompt is empty');
  if (prompt.length > MAX_CUSTOM_PROMPT_CHARS) {
    throw reject(`config.custom_prompt is limited to ${MAX_CUSTOM_PROMPT_CHARS} characters`);
  }
  if (CONTROL.test(prompt)) throw reject('config.custom_prompt contains control characters');
  if (prompt.normalize('NFKC').replace(INVISIBLE, '') !== prompt.normalize('NFKC')) {
    throw reject('config.custom_prompt contains invisible formatting characters');
  }
  const screened = normalizeForScreening(prompt);
  // Line starts matter for role markers; a phrase split across lines must still be seen.
  const flat = screened.replace(/\s+/g, ' ');
  for (const { pattern, reason } of FORBIDDEN) {
    if (pattern.test(screened) || pattern.test(flat)) throw reject(`config.custom_prompt ${reason}`);
  }
  return prompt;
}
