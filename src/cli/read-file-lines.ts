import { createReadStream, readFileSync } from 'node:fs';
import { ValidationError } from '../core/errors.js';

const BOM = [0xef, 0xbb, 0xbf];
const NEWLINE = 0x0a;

const startsWithBom = (bytes: Uint8Array) => BOM.every((byte, index) => bytes[index] === byte);

/**
 * Where in `bytes` (known not to be UTF-8) the first bad sequence starts. Decoding a prefix as a
 * stream fails only when a bad sequence lies within it (one cut at its end waits for more bytes),
 * so the shortest failing prefix ends in it; it starts after the last whole character before.
 */
function firstBadByte(bytes: Uint8Array): number {
  const fails = (length: number, stream: boolean) => {
    try {
      new TextDecoder('utf-8', { fatal: true }).decode(bytes.subarray(0, length), { stream });
      return false;
    } catch {
      return true;
    }
  };
  let good = 0;
  let bad = bytes.length;
  while (bad - good > 1) {
    const middle = Math.floor((good + bad) / 2);
    if (fails(middle, middle < bytes.length)) bad = middle;
    else good = middle;
  }
  // A UTF-8 sequence is at most 4 bytes long.
  for (let start = bad - 1; start > bad - 5 && start > 0; start--) {
    if (!fails(start, false)) return start;
  }
  return Math.max(0, bad - 4);
}

/**
 * `bytes` as UTF-8 text, strictly: read leniently, other encodings (Latin-1, Windows-1252) would
 * become U+FFFD, records stored with their words lost, unsaid. The error names the file, the byte
 * offset (`start` is that of `bytes` in the file) and the line.
 */
function decodeUtf8(file: string | null, bytes: Uint8Array, start: number, line: number): string {
  try {
    return new TextDecoder('utf-8', { fatal: true, ignoreBOM: true }).decode(bytes);
  } catch {
    const at = firstBadByte(bytes);
    const lines = bytes.subarray(0, at).filter((byte) => byte === NEWLINE).length;
    throw new ValidationError(
      `${file === null ? '' : `${file}: `}not UTF-8 text at byte ${start + at} (line ${line + lines}); convert it to UTF-8, e.g. with iconv`,
    );
  }
}

/** The UTF-16 encoding a byte order mark at the start of `bytes` names, else null. */
export function utf16EncodingOf(bytes: Uint8Array): 'utf-16le' | 'utf-16be' | null {
  if (bytes[0] === 0xff && bytes[1] === 0xfe) return 'utf-16le';
  if (bytes[0] === 0xfe && bytes[1] === 0xff) return 'utf-16be';
  return null;
}

/** A UTF-16 file (its byte order mark says so) fails whole: it is not JSON Lines of UTF-8. */
function assertNotUtf16(file: string, bytes: Uint8Array): void {
  if (utf16EncodingOf(bytes) !== null) {
    throw new ValidationError(
      `${file}: UTF-16 text (its byte order mark says so); convert it to UTF-8, e.g. with iconv -f UTF-16 -t UTF-8`,
    );
  }
}

/** A whole file as UTF-8 text, a byte order mark left out; other bytes fail (see `decodeUtf8`). */
export function readUtf8File(file: string): string {
  const bytes = readFileSync(file);
  assertNotUtf16(file, bytes);
  return decodeUtf8Bytes(bytes, file);
}

/**
 * A whole file's bytes as UTF-8 text, a byte order mark left out; other bytes fail naming where,
 * after `label` when one is given (see `decodeUtf8`).
 */
export function decodeUtf8Bytes(bytes: Uint8Array, label: string | null = null): string {
  const skip = startsWithBom(bytes) ? BOM.length : 0;
  return decodeUtf8(label, bytes.subarray(skip), skip, 1);
}

/**
 * A file's lines as UTF-8 text, streamed (a byte order mark at its start and a carriage return at
 * a line's end left out). Lines are split on the newline byte, which UTF-8 never uses inside a
 * character, and each is decoded strictly (see `decodeUtf8`). A line longer than `maxLineBytes`
 * fails, named, before it is held whole.
 */
export async function* readFileLines(
  file: string,
  options: { maxLineBytes: number },
): AsyncGenerator<string> {
  let pieces: Buffer[] = [];
  let held = 0; // bytes of the current line in `pieces`
  let start = 0; // file offset of the current line
  let line = 1;
  const hold = (bytes: number) => {
    held += bytes;
    if (held > options.maxLineBytes) {
      throw new ValidationError(
        `${file}: line ${line} is longer than ${options.maxLineBytes} bytes (the longest line read); write one record per line`,
      );
    }
  };
  const decode = (bytes: Buffer): string => {
    if (line === 1) assertNotUtf16(file, bytes);
    const skip = line === 1 && startsWithBom(bytes) ? BOM.length : 0;
    const end = bytes.at(-1) === 0x0d ? bytes.length - 1 : bytes.length;
    return decodeUtf8(file, bytes.subarray(skip, end), start + skip, line);
  };
  for await (const chunk of createReadStream(file) as AsyncIterable<Buffer>) {
    let from = 0;
    for (let end = chunk.indexOf(NEWLINE); end !== -1; end = chunk.indexOf(NEWLINE, from)) {
      const part = chunk.subarray(from, end);
      hold(part.length);
      const bytes = pieces.length > 0 ? Buffer.concat([...pieces, part]) : part;
      yield decode(bytes);
      start += bytes.length + 1;
      line++;
      pieces = [];
      held = 0;
      from = end + 1;
    }
    if (from < chunk.length) {
      hold(chunk.length - from);
      pieces.push(chunk.subarray(from));
    }
  }
  if (pieces.length > 0) yield decode(Buffer.concat(pieces));
}
