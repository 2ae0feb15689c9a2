import { ValidationError } from '../core/errors.js';
import { createEventLoopSlicer, nextTurn } from '../engine/event-loop-slicer.js';

/** Bytes decoded per step when a body's text is needed on the request thread after all. */
const DECODE_STEP_BYTES = 64 * 1024;

/** Size of each buffer a body is received into. */
export const SEGMENT_BYTES = 1024 * 1024;

/** The answer for a body that is not UTF-8 (as FastAPI gives it: 400). */
export const notUtf8Error = () =>
  new ValidationError('There was an error parsing the body', [
    { path: ['body'], message: 'The body is not valid UTF-8' },
  ]);

/**
 * A large JSON body kept as the bytes received (`bodyAsBytes` routes, `parse-utf8-body.ts`), in
 * segments of 1 MB allocated as the bytes arrive (never the whole `Content-Length` up front, so a
 * body refused early, or one that never comes, costs what was received), each of its own so that
 * a route can move them to another thread without a copy: posting the decoded 8 MB text of
 * 100,000 messages held the event loop ~23 ms on the 2-vCPU development machine, and joining its
 * decoded parts about as long. Its UTF-8 is checked by whoever decodes it (`decodeSegments`).
 */
export class BodyBytes {
  readonly segments: Uint8Array[] = [];
  private filled = 0;

  constructor(segments: Uint8Array[] = []) {
    this.segments = segments;
  }

  /** Appends received bytes. */
  append(chunk: Uint8Array): void {
    let at = 0;
    while (at < chunk.length) {
      let segment = this.segments.at(-1);
      if (segment === undefined || this.filled === segment.length) {
        // Not zero-filled: every byte is written before it is read. Never pooled: it can move.
        segment = new Uint8Array(Buffer.allocUnsafeSlow(SEGMENT_BYTES).buffer);
        this.segments.push(segment);
        this.filled = 0;
      }
      const taken = Math.min(chunk.length - at, segment.length - this.filled);
      segment.set(chunk.subarray(at, at + taken), this.filled);
      this.filled += taken;
      at += taken;
    }
    // The last segment is cut to what it holds when the body ends (`end`).
  }

  /** Marks the end of the body: the last segment keeps only the bytes received. */
  end(): this {
    const last = this.segments.at(-1);
    if (last !== undefined && this.filled < last.length) {
      this.segments[this.segments.length - 1] = last.subarray(0, this.filled);
    }
    return this;
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

/** The segments' buffers, to move them to another thread (a segment cut short shares its buffer). */
export function buffersOf(segments: readonly Uint8Array[]): ArrayBuffer[] {
  return [...new Set(segments.map((segment) => segment.buffer as ArrayBuffer))];
}
