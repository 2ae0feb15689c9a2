import { Transform, type TransformCallback } from 'node:stream';

/**
 * Longest stdin line (one JSON-RPC message) `engram mcp` reads: 16 MiB, so that the largest
 * knowledge.upload (5,000,000 characters, up to 3 bytes each in UTF-8) fits with its envelope.
 */
export const MAX_STDIO_LINE_BYTES = 16_777_216;

/** How much of each end of an overlong line is kept to find its request id. */
const EDGE_BYTES = 256;

const idValue = String.raw`(-?\d{1,16}|"(?:[^"\\]|\\.){0,200}")`;
/** `{"jsonrpc":"2.0","id":…` or `{"id":…` at the start (Python SDK, hand-written clients). */
const leadingId = new RegExp(String.raw`^\s*\{\s*(?:"jsonrpc"\s*:\s*"2\.0"\s*,\s*)?"id"\s*:\s*${idValue}`);
/** `…,"id":…}` closing the line: only the top-level object can end there (the TypeScript SDK's order). */
const trailingId = new RegExp(String.raw`"id"\s*:\s*${idValue}\s*\}\s*$`);

/** The request id an overlong message carries at its start or end, else null (JSON-RPC's "unknown"). */
export function requestIdOf(head: string, tail: string): string | number | null {
  const found = leadingId.exec(head)?.[1] ?? trailingId.exec(tail)?.[1];
  if (found === undefined) return null;
  try {
    return JSON.parse(found) as string | number;
  } catch {
    return null;
  }
}

/** Whether `line` holds only JSON whitespace (space, tab, CR, LF). */
function isBlank(line: Buffer): boolean {
  return line.every((byte) => byte === 0x20 || byte === 0x09 || byte === 0x0d || byte === 0x0a);
}

/**
 * Passes stdin on one whole line at a time and drops any line over `maxLineBytes`, reporting it
 * (its size and request id, when one can be seen) instead. The SDK's stdio transport holds a line
 * in one buffer and, when it passes its limit, closes the transport: one oversized call would end
 * the whole session. Here only that call fails. Blank lines are dropped silently (the SDK answered
 * each with a parse error, id null); `onLine` hears the size of each line passed on (its newline left out), in order.
 */
export function boundedLines(
  maxLineBytes: number,
  onOverlong: (line: { bytes: number; id: string | number | null }) => void,
  onLine: (bytes: number) => void = () => {},
): Transform {
  let parts: Buffer[] = [];
  let size = 0;
  /** Set while dropping an overlong line: its byte count and its first bytes. */
  let dropping: { bytes: number; head: Buffer } | undefined;
  let tail = Buffer.alloc(0);

  const take = (piece: Buffer, complete: boolean, push: (line: Buffer) => void) => {
    if (!dropping && size + piece.length > maxLineBytes + (complete ? 1 : 0)) {
      const head = Buffer.concat([...parts, piece]).subarray(0, EDGE_BYTES);
      dropping = { bytes: size, head: Buffer.from(head) };
      parts = [];
      size = 0;
    }
    if (dropping) {
      dropping.bytes += piece.length;
      tail = Buffer.concat([tail, piece.subarray(-EDGE_BYTES - 1)]).subarray(-EDGE_BYTES - 1);
      if (!complete) return;
      onOverlong({
        bytes: dropping.bytes - 1,
        id: requestIdOf(dropping.head.toString('utf8'), tail.toString('utf8')),
      });
      dropping = undefined;
      tail = Buffer.alloc(0);
      return;
    }
    parts.push(piece);
    size += piece.length;
    if (!complete) return;
    const line = parts.length === 1 ? (parts[0] as Buffer) : Buffer.concat(parts, size);
    parts = [];
    size = 0;
    if (isBlank(line)) return;
    onLine(line.length - 1);
    push(line);
  };

  return new Transform({
    transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(10, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        take(chunk.subarray(start, end), newline !== -1, (line) => this.push(line));
        start = end;
      }
      done();
    },
  });
}
