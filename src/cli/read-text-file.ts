import { readFileSync } from 'node:fs';
import { ValidationError } from '../core/errors.js';
import { decodeUtf8Bytes, utf16EncodingOf } from './read-file-lines.js';

/**
 * A document file's text: UTF-8 (a byte order mark left out, so a first heading stays one), or
 * UTF-16 when its byte order mark says so (what Windows editors call "Unicode"). Other bytes
 * fail, naming the byte and line: read as UTF-8 they would become U+FFFD, a document stored with
 * its words lost, unsaid. (Import reads UTF-8 only: read-file-lines.ts.)
 */
export function readTextFile(path: string): string {
  const bytes = readFileSync(path);
  const utf16 = utf16EncodingOf(bytes);
  if (utf16 === null) return decodeUtf8Bytes(bytes);
  try {
    return new TextDecoder(utf16, { fatal: true }).decode(bytes);
  } catch {
    throw new ValidationError('not valid UTF-16 text (convert it to UTF-8, e.g. with iconv)');
  }
}
