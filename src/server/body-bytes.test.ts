import { describe, expect, it } from 'vitest';
import { ValidationError } from '../core/errors.js';
import { BodyBytes, buffersOf, decodeSegments } from './body-bytes.js';

describe('BodyBytes', () => {
  it('keeps chunks that own their memory as they are, copies the others, and decodes them back', async () => {
    const text = `{"a":"${'é😀x'.repeat(100_000)}"}`;
    const bytes = Buffer.from(text);
    const body = new BodyBytes();
    const given: Uint8Array[] = [];
    // Chunks of an odd size, so characters straddle chunks; every other one a view into `bytes`.
    for (let at = 0, index = 0; at < bytes.length; at += 65_537, index++) {
      const view = bytes.subarray(at, at + 65_537);
      const chunk = index % 2 === 0 ? new Uint8Array(view) : view;
      given.push(chunk);
      body.append(chunk);
    }
    for (const [index, segment] of body.segments.entries()) {
      // Kept as it came when it owns its memory, else copied.
      expect(segment === given[index]).toBe(index % 2 === 0);
      expect(segment).toEqual(new Uint8Array(given[index] as Uint8Array));
    }
    // Each segment owns its buffer, so all can move; none is `bytes`'s.
    expect(buffersOf(body.segments)).toHaveLength(body.segments.length);
    expect(buffersOf(body.segments)).not.toContain(bytes.buffer);
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
      await expect(body.text()).rejects.toThrowError(ValidationError);
    }
  });
});
