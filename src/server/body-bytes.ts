import { ValidationError } from '../core/errors.js';
import { createEventLoopSlicer, nextTurn } from '../core/event-loop-slicer.js';

/** Bytes decoded per step when a body's text is needed on the request thread after all. */
const DECODE_STEP_BYTES = 64 * 1024;

/** The answer for a body that is not UTF-8 (as FastAPI gives it: 400). */
export const notUtf8Error = () =>
  new ValidationError('There was an error parsing the body', [
    { path: ['body'], message: 'The body is not valid UTF-8' },
  ]);

/**
 * A large JSON body kept as the bytes received (`bodyAsBytes` routes, `parse-utf8-body.ts`): the
 * socket's chunks themselves, each owning its memory (a chunk that shares its buffer is copied
 * into one of its own), so that a route can move them to another thread without a copy. Posting
 * the decoded 8 MB text of 100,000 messages held the event loop ~23 ms on the 2-vCPU development
 * machine, joining its decoded parts about as long, and copying the chunks into one buffer cost
 * its page faults on the request thread. Only what arrived is held. Its UTF-8 is checked by
 * whoever decodes it (`decodeSegments`).
 */
export class BodyBytes {
  constructor(readonly segments: Uint8Array[] = []) {}

  /** Keeps a received chunk (moved later: the caller must not use it again). */
  append(chunk: Uint8Array): void {
    const own = chunk.byteOffset === 0 && chunk.byteLength === chunk.buffer.byteLength;
    this.segments.push(own ? chunk : new Uint8Array(chunk));
  }

  /** The text, decoded strictly in slices of the event loop (ValidationError 400 if not UTF-8). */
  async text(): Promise<string> {
    const slicer = createEventLoopSlicer();
    const parts = await decodeSegments(this.segments, DECODE_STEP_BYTES, () => slicer.pause());
    // The join copies the whole text: a turn of its own.
    await nextTurn();
    return parts.join('');
  }
}

/**
 * Decodes segments as strict UTF-8 (a character may straddle two) into parts of at most `step`
 * bytes each, calling `pause` between steps; throws ValidationError (400) if they are not UTF-8.
 */
export async function decodeSegments(
  segments: readonly Uint8Array[],
  step: number,
  pause: () => Promise<unknown> | undefined,
): Promise<string[]> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  const parts: string[] = [];
  try {
    for (const segment of segments) {
      for (let start = 0; start < segment.length; start += step) {
        parts.push(decoder.decode(segment.subarray(start, start + step), { stream: true }));
        const wait = pause();
        if (wait) await wait;
      }
    }
    parts.push(decoder.decode());
  } catch {
    throw notUtf8Error();
  }
  return parts;
}

/** The segments' buffers, to move them to another thread. */
export function buffersOf(segments: readonly Uint8Array[]): ArrayBuffer[] {
  return [...new Set(segments.map((segment) => segment.buffer as ArrayBuffer))];
}
