import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import { BodyBytes, buffersOf, decodeSegments, SEGMENT_BYTES } from './body-bytes.js';

describe('BodyBytes', () => {
  it('keeps what arrives in 1 MB segments, allocated as it arrives, and decodes it back', async () => {
    const text = `{"a":"${'é😀x'.repeat(SEGMENT_BYTES / 3)}"}`;
    const bytes = Buffer.from(text);
    const body = new BodyBytes();
    body.append(bytes.subarray(0, 1_000));
    // Only what arrived is held: one segment, not the whole body.
    expect(body.segments).toHaveLength(1);
    // Chunks of an odd size, so characters straddle chunks and segments.
    for (let at = 1_000; at < bytes.length; at += 65_537) body.append(bytes.subarray(at, at + 65_537));
    body.end();
    expect(body.segments.map((segment) => segment.length)).toEqual([
      SEGMENT_BYTES,
      SEGMENT_BYTES,
      bytes.length - 2 * SEGMENT_BYTES,
    ]);
    expect(buffersOf(body.segments)).toHaveLength(3);
    expect(await body.text()).toBe(text);
    expect((await decodeSegments(body.segments, 7, () => undefined)).join('')).toBe(text);
  });

  it('refuses bytes that are not UTF-8, an incomplete last character included, with the 400 error', async () => {
    for (const bad of [
      [0x7b, 0xff, 0x7d],
      [0x7b, 0xc3],
    ]) {
      const body = new BodyBytes();
      body.append(Uint8Array.from(bad));
      await expect(body.end().text()).rejects.toThrowError(ValidationError);
    }
  });
});
