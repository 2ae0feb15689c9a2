import { readFileSync } from 'node:fs';
import { ValidationError } from '../core/errors.js';

/**
 * A document file's text: UTF-8 (a byte order mark left out, so a first heading stays one), or
 * UTF-16 when its byte order mark says so (what Windows editors call "Unicode"). Other bytes
 * fail: read as UTF-8 they would become U+FFFD, a document stored with its words lost, unsaid.
 */
export function readTextFile(path: string): string {
  const bytes = readFileSync(path);
  const encoding =
    bytes[0] === 0xff && bytes[1] === 0xfe
      ? 'utf-16le'
      : bytes[0] === 0xfe && bytes[1] === 0xff
        ? 'utf-16be'
        : 'utf-8';
  try {
    return new TextDecoder(encoding, { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError(
      `not ${encoding === 'utf-8' ? 'UTF-8' : 'valid UTF-16'} text (convert it to UTF-8, e.g. with iconv)`,
    );
  }
}
