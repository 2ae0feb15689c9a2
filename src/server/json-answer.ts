import { Readable } from 'node:stream';
import type { FastifyReply } from 'fastify';
import { ALONE_CHARS, createEventLoopSlicer, nextTurn } from '../core/event-loop-slicer.js';
import { serializeInSlices } from './serialize-in-slices.js';

// How a route answers JSON that can be large without holding the event loop in one step.
// Fastify would serialize, measure (`Buffer.byteLength`) and encode an answer in one step: for a
// 900 KB message echoed by an append, ~20 ms on the 2-vCPU development machine, each pass over a
// fresh string. Two shapes:
// - `jsonAnswer`: any value; serialized in one step, encoded in a later turn when long.
// - `jsonListAnswer` / `jsonChunksAnswer`: an object with one long list (messages, search hits),
//   serialized item by item in slices and encoded as it grows (`serializeInSlices`), then written
//   chunk by chunk, never joined.

/** The content type Fastify gives an object it serializes. */
const JSON_TYPE = 'application/json; charset=utf-8';

/**
 * An answer's JSON, for a route to return: the text (Fastify sends it as it would have serialized
 * `value`) or, for a long answer, its UTF-8 bytes made in a later turn of the event loop than the
 * text, so that other requests run between the two steps.
 */
export async function jsonAnswer(reply: FastifyReply, value: unknown): Promise<string | Buffer> {
  reply.type(JSON_TYPE);
  const text = JSON.stringify(value);
  if (text.length < ALONE_CHARS) return text;
  await nextTurn();
  const bytes = Buffer.from(text);
  await nextTurn();
  return bytes;
}

/**
 * Sends JSON already encoded in chunks (`serializeInSlices`) one chunk per write, with its length:
 * a long answer is never copied into one buffer, nor written to the socket in one step.
 */
export function jsonChunksAnswer(reply: FastifyReply, chunks: readonly Buffer[]): Buffer | Readable {
  reply.type(JSON_TYPE);
  if (chunks.length === 1) return chunks[0] as Buffer;
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  reply.header('content-length', length);
  return Readable.from(inSlices(chunks), { objectMode: false });
}

/**
 * The chunks one after another, with a turn of the event loop for other requests after each
 * slice: a socket that takes every write at once (a fast client on loopback) otherwise had all of
 * an 8 MB answer written in one turn (40–75 ms of `writeBuffer` on the 2-vCPU development machine).
 */
async function* inSlices(chunks: readonly Buffer[]): AsyncGenerator<Buffer> {
  const slicer = createEventLoopSlicer();
  for (const chunk of chunks) {
    const wait = slicer.pause();
    if (wait) await wait;
    yield chunk;
  }
}

/**
 * `object` answered as `JSON.stringify` would write it, with `object[key]` (a long list) mapped
 * by `toItem` and serialized one item at a time in slices of the event loop.
 */
export async function jsonListAnswer<T>(
  reply: FastifyReply,
  object: Record<string, unknown>,
  key: string,
  toItem: (item: T) => unknown,
): Promise<Buffer | Readable> {
  const chunks = await serializeInSlices(object, key, toItem, createEventLoopSlicer().pause);
  return jsonChunksAnswer(reply, chunks);
}
