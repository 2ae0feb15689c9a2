/** One chunk of a document, ready to embed and index. */
export interface DocumentChunk {
  index: number;
  /** The chunk text, prefixed by its heading path so it stands on its own in a context. */
  text: string;
  /** Headings above the chunk, outermost first. */
  headings: string[];
  tokens: number;
}

export interface ChunkOptions {
  format: 'markdown' | 'text';
  /** Target size of a chunk's body in tokens. */
  targetTokens: number;
  /** Tokens of the previous chunk repeated at the start of the next one (same section only). */
  overlapTokens: number;
  count: (text: string) => number;
}

interface Block {
  text: string;
  headings: string[];
}

// Linear on any line: the title's trailing `#`s and spaces are trimmed by hand, not by a pattern
// such as `(.+?)\s*#*\s*$`, which backtracks cubically on a long run of spaces.
const HEADING = /^(#{1,6})\s+([\s\S]*)$/;

const isSpace = (char: string | undefined) => char !== undefined && char.trim() === '';

/** An ATX heading's level and title (closing `#`s removed), or null when the line is no heading. */
function headingOf(line: string): { level: number; title: string } | null {
  const match = HEADING.exec(line);
  if (!match) return null;
  const text = match[2] ?? '';
  let end = text.length;
  while (end > 0 && isSpace(text[end - 1])) end--;
  let hashes = end;
  while (hashes > 0 && text[hashes - 1] === '#') hashes--;
  // A closing run of `#`s counts only after a space (or as the whole rest); the title keeps a char.
  if (hashes < end && (hashes === 0 || isSpace(text[hashes - 1]))) end = hashes;
  while (end > 0 && isSpace(text[end - 1])) end--;
  return { level: match[1]?.length ?? 1, title: end > 0 ? text.slice(0, end) : text.slice(0, 1) };
}
const FENCE = /^(```|~~~)/;

/** The lines of `content` one at a time (`\n`, `\r\n` or `\r`), without splitting it all at once. */
function* linesOf(content: string): Generator<string> {
  let start = 0;
  while (start <= content.length) {
    let end = start;
    while (end < content.length && content[end] !== '\n' && content[end] !== '\r') end++;
    yield content.slice(start, end);
    if (end >= content.length) return;
    start = content[end] === '\r' && content[end + 1] === '\n' ? end + 2 : end + 1;
  }
}

/**
 * Splits Markdown (or plain text) into blocks: paragraphs, lists, fenced code, under their headings.
 * Lazily: each block is produced as soon as its lines are read.
 */
function* toBlocks(content: string, format: ChunkOptions['format']): Generator<Block> {
  const headings: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  // Empty slots (e.g. ### right under #) are dropped from the path.
  const flush = (): Block | null => {
    const text = current.join('\n').trim();
    current = [];
    return text ? { text, headings: headings.filter(Boolean) } : null;
  };
  for (const line of linesOf(content)) {
    let done: Block | null = null;
    if (format === 'markdown') {
      const fenceMatch = FENCE.exec(line.trim());
      if (fence !== null) {
        current.push(line);
        if (fenceMatch && line.trim().startsWith(fence)) {
          fence = null;
          done = flush();
        }
        if (done) yield done;
        continue;
      }
      if (fenceMatch) {
        done = flush();
        fence = fenceMatch[1] ?? '```';
        current.push(line);
        if (done) yield done;
        continue;
      }
      const heading = headingOf(line);
      if (heading) {
        done = flush();
        // A heading closes the deeper ones and takes its own level's slot; skipped levels stay
        // empty slots (dropped when read), so two `##` under no `#` are siblings, not nested.
        headings.length = Math.min(headings.length, heading.level - 1);
        headings[heading.level - 1] = heading.title;
        if (done) yield done;
        continue;
      }
    }
    if (line.trim() === '') done = flush();
    else current.push(line);
    if (done) yield done;
  }
  const last = flush();
  if (last) yield last;
}

/**
 * Text longer than this many characters per target token is over target whatever it holds (a token
 * rarely spans 16 characters), so it is split without being counted whole first: counting a
 * multi-megabyte paragraph would be one long step.
 */
const CHARS_PER_TOKEN_BOUND = 16;

const surelyOver = (text: string, options: ChunkOptions) =>
  text.length > options.targetTokens * CHARS_PER_TOKEN_BOUND;

/** Words of a sentence; a "word" too long for any chunk (no whitespace) is cut into slices. */
function* wordsOf(sentence: string, options: ChunkOptions): Generator<string> {
  const sliceChars = options.targetTokens * 2;
  for (const word of sentence.split(/(\s+)/)) {
    if (word.length <= sliceChars) yield word;
    else
      for (let start = 0; start < word.length; start += sliceChars)
        yield word.slice(start, start + sliceChars);
  }
}

/** Splits an oversized block into sentences, and sentences that are still too long into word runs. */
function* splitBlock(text: string, options: ChunkOptions): Generator<string> {
  // Sentence ends of Latin scripts and of Chinese and Japanese (。！？, no space after them).
  const sentences = text.match(/[^.!?。！？\n]+(?:[.!?。！？]+["')\]」』）]*|\n|$)\s*/g) ?? [text];
  for (const sentence of sentences) {
    if (!surelyOver(sentence, options) && options.count(sentence) <= options.targetTokens) {
      if (sentence.trim()) yield sentence.trim();
      continue;
    }
    let run = '';
    for (const word of wordsOf(sentence, options)) {
      if (run && options.count(run + word) > options.targetTokens) {
        if (run.trim()) yield run.trim();
        run = '';
      }
      run += word;
    }
    if (run.trim()) yield run.trim();
  }
}

/** The last `tokens` worth of whole words of `text`, for overlap. */
function tail(text: string, tokens: number, count: (text: string) => number): string {
  if (tokens <= 0) return '';
  const words = text.split(/\s+/);
  let result = '';
  for (let index = words.length - 1; index >= 0; index--) {
    const candidate = `${words[index]} ${result}`.trim();
    if (count(candidate) > tokens) break;
    result = candidate;
  }
  if (result !== '' || text.trim() === '') return result;
  // Text without spaces (Chinese, Japanese): the overlap is its last characters that fit.
  let chars = Math.min(text.length, tokens * 2);
  while (chars > 0 && count(text.slice(-chars)) > tokens) chars = Math.floor(chars * 0.75);
  // Never half of a surrogate pair (an emoji) at the start.
  const start = text.length - chars + (/[\uDC00-\uDFFF]/.test(text[text.length - chars] ?? '') ? 1 : 0);
  return text.slice(start).trim();
}

/**
 * Structure-aware chunking: blocks (paragraphs, lists, code fences) are packed into chunks of about
 * `targetTokens`, never across a heading change, so each chunk is about one section. An oversized
 * block is split by sentences, then by words. Consecutive chunks of one section overlap by
 * `overlapTokens` so a fact on a boundary is whole in at least one chunk.
 */
export function chunkDocument(content: string, options: ChunkOptions): DocumentChunk[] {
  return [...chunkDocumentSteps(content, options)].filter((step) => step !== null);
}

/**
 * chunkDocument as a generator: yields each chunk when it is complete, and `null` after every block,
 * so a caller can pause between steps (a multi-megabyte document is thousands of blocks, and
 * counting their tokens takes seconds) and see progress. Each step's work is bounded by one block.
 */
export function* chunkDocumentSteps(
  content: string,
  options: ChunkOptions,
): Generator<DocumentChunk | null, void, undefined> {
  let index = 0;
  let body: string[] = [];
  let headings: string[] = [];
  let bodyTokens = 0;
  // True while `body` holds nothing but the overlap carried from the previous chunk.
  let onlyOverlap = false;
  const emit = (): DocumentChunk | null => {
    if (body.length === 0) return null;
    const text = body.join('\n\n');
    const prefix = headings.length > 0 ? `${headings.join(' > ')}\n` : '';
    const chunk = { index: index++, text: prefix + text, headings, tokens: options.count(prefix + text) };
    const overlap = tail(text, options.overlapTokens, options.count);
    body = overlap ? [overlap] : [];
    bodyTokens = overlap ? options.count(overlap) : 0;
    onlyOverlap = body.length > 0;
    return chunk;
  };
  for (const block of toBlocks(content, options.format)) {
    if (block.headings.join('\u0000') !== headings.join('\u0000')) {
      const chunk = emit();
      if (chunk) yield chunk;
      body = [];
      bodyTokens = 0;
      onlyOverlap = false;
      headings = block.headings;
    }
    const blockTokens = surelyOver(block.text, options)
      ? Number.POSITIVE_INFINITY
      : options.count(block.text);
    const whole = blockTokens <= options.targetTokens;
    const pieces = whole ? [block.text] : splitBlock(block.text, options);
    for (const piece of pieces) {
      const pieceTokens = whole ? blockTokens : options.count(piece);
      if (body.length > 0 && !onlyOverlap && bodyTokens + pieceTokens > options.targetTokens) {
        const chunk = emit();
        if (chunk) yield chunk;
      }
      body.push(piece);
      bodyTokens += pieceTokens;
      onlyOverlap = false;
      yield null;
    }
  }
  // A last chunk holding only the overlap carried from its predecessor adds nothing.
  if (body.length > 0 && !onlyOverlap) {
    const chunk = emit();
    if (chunk) yield chunk;
  }
}
