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

const HEADING = /^(#{1,6})\s+(.+?)\s*#*\s*$/;
const FENCE = /^(```|~~~)/;

/** Splits Markdown (or plain text) into blocks: paragraphs, lists, fenced code, under their headings. */
function toBlocks(content: string, format: ChunkOptions['format']): Block[] {
  const blocks: Block[] = [];
  const headings: string[] = [];
  let current: string[] = [];
  let fence: string | null = null;
  const flush = () => {
    const text = current.join('\n').trim();
    if (text) blocks.push({ text, headings: [...headings] });
    current = [];
  };
  for (const line of content.replace(/\r\n?/g, '\n').split('\n')) {
    if (format === 'markdown') {
      const fenceMatch = FENCE.exec(line.trim());
      if (fence !== null) {
        current.push(line);
        if (fenceMatch && line.trim().startsWith(fence)) {
          fence = null;
          flush();
        }
        continue;
      }
      if (fenceMatch) {
        flush();
        fence = fenceMatch[1] ?? '```';
        current.push(line);
        continue;
      }
      const heading = HEADING.exec(line);
      if (heading) {
        flush();
        const level = heading[1]?.length ?? 1;
        headings.splice(level - 1, headings.length, heading[2] ?? '');
        // Empty slots (e.g. ### right under #) are dropped from the path.
        continue;
      }
    }
    if (line.trim() === '') flush();
    else current.push(line);
  }
  flush();
  return blocks.map((block) => ({ ...block, headings: block.headings.filter(Boolean) }));
}

/** Splits an oversized block into sentences, and sentences that are still too long into word runs. */
function splitBlock(text: string, options: ChunkOptions): string[] {
  const sentences = text.match(/[^.!?\n]+(?:[.!?]+["')\]]*|\n|$)\s*/g) ?? [text];
  const pieces: string[] = [];
  for (const sentence of sentences) {
    if (options.count(sentence) <= options.targetTokens) {
      pieces.push(sentence);
      continue;
    }
    const words = sentence.split(/(\s+)/);
    let run = '';
    for (const word of words) {
      if (run && options.count(run + word) > options.targetTokens) {
        pieces.push(run);
        run = '';
      }
      run += word;
    }
    if (run.trim()) pieces.push(run);
  }
  return pieces.map((piece) => piece.trim()).filter(Boolean);
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
  return result;
}

/**
 * Structure-aware chunking: blocks (paragraphs, lists, code fences) are packed into chunks of about
 * `targetTokens`, never across a heading change, so each chunk is about one section. An oversized
 * block is split by sentences, then by words. Consecutive chunks of one section overlap by
 * `overlapTokens` so a fact on a boundary is whole in at least one chunk.
 */
export function chunkDocument(content: string, options: ChunkOptions): DocumentChunk[] {
  const chunks: DocumentChunk[] = [];
  let body: string[] = [];
  let headings: string[] = [];
  let bodyTokens = 0;
  // True while `body` holds nothing but the overlap carried from the previous chunk.
  let onlyOverlap = false;
  const emit = () => {
    if (body.length === 0) return;
    const text = body.join('\n\n');
    const prefix = headings.length > 0 ? `${headings.join(' > ')}\n` : '';
    chunks.push({
      index: chunks.length,
      text: prefix + text,
      headings,
      tokens: options.count(prefix + text),
    });
    const overlap = tail(text, options.overlapTokens, options.count);
    body = overlap ? [overlap] : [];
    bodyTokens = overlap ? options.count(overlap) : 0;
    onlyOverlap = body.length > 0;
  };
  for (const block of toBlocks(content, options.format)) {
    if (block.headings.join('\u0000') !== headings.join('\u0000')) {
      emit();
      body = [];
      bodyTokens = 0;
      onlyOverlap = false;
      headings = block.headings;
    }
    const blockTokens = options.count(block.text);
    const pieces = blockTokens > options.targetTokens ? splitBlock(block.text, options) : [block.text];
    for (const piece of pieces) {
      const pieceTokens = pieces.length === 1 ? blockTokens : options.count(piece);
      if (body.length > 0 && !onlyOverlap && bodyTokens + pieceTokens > options.targetTokens) emit();
      body.push(piece);
      bodyTokens += pieceTokens;
      onlyOverlap = false;
    }
  }
  // A last chunk holding only the overlap carried from its predecessor adds nothing.
  if (body.length > 0 && !onlyOverlap) emit();
  return chunks;
}
